/**
 * A criterion's detail and its breach, written from its fields (value, limit, at, the first breach) at the
 * moment they are asked for — never a string kept from an earlier step, so a result's numbers and words agree.
 * Every detail with a measured value reads "<value> <unit> <relation> <limit> <unit> … at <t> s" in that order,
 * the value printed with the decimals it takes to sit on its side of the limit (figures.ts).
 */
import { asGiven, figureAgainst } from './figures.js';
import type { CriterionSpec } from './spec.js';
import type { Verdict } from './world.js';

/** how a goal criterion was decided */
export type GoalHow = '' | 'stopped' | 'standing' | 'within' | 'past' | 'not_stopped' | 'never_moved' | 'reached' | 'timeout' | 'not_reached';

/** What the text reads of a criterion's run (criteria.ts's CriterionRun has it). */
interface Run {
  readonly spec: CriterionSpec;
  readonly verdict: Verdict;
  readonly value: number;
  readonly hit: string;
  readonly at: number;
  readonly firstValue: number;
  readonly firstAt: number;
  readonly firstHit: string;
  readonly t0: number;
  readonly how: GoalHow;
  readonly unit: string;
  readonly limit: number | null;
}

const time = (t: number) => `${t.toFixed(2)} s`;

/** for a minimum (min_ttc, min_distance, stopped_before's margin): '0.92 s < 1 s' or '1.34 s ≥ 1 s' */
function against(x: number, limit: number, unit: string): string {
  return `${figureAgainst(x, [limit])} ${unit} ${x < limit ? '<' : '≥'} ${asGiven(limit)} ${unit}`;
}

/** for a maximum (peak_decel, reach's radius): '>' or '≤' */
function againstMax(x: number, limit: number, unit: string): string {
  return `${figureAgainst(x, [limit])} ${unit} ${x > limit ? '>' : '≤'} ${asGiven(limit)} ${unit}`;
}

/** The criterion's detail now. */
export function describeCriterion(c: Run): string {
  const s = c.spec;
  const limit = c.limit ?? 0;
  const u = c.unit;
  switch (s.kind) {
    case 'no_collision':
      return c.verdict === 'fail' ? `${s.ego} hit ${c.hit} at ${time(c.at)}` : c.verdict === 'pass' ? 'no contact' : 'no contact so far';
    case 'min_ttc':
    case 'min_distance': {
      const what = s.kind === 'min_ttc' ? 'TTC' : 'distance';
      const sofar = c.verdict === 'pending' ? ' so far' : '';
      if (Number.isNaN(c.value)) return s.kind === 'min_ttc' ? `no vehicle in its path${sofar}` : `no other vehicle${sofar}`;
      if (c.value === Infinity) return `never closing on a vehicle in its path${sofar} (TTC ∞)`;
      const worst = `${what} to ${c.hit} ${against(c.value, limit, u)} at ${time(c.at)}, the minimum${sofar}`;
      return c.verdict === 'fail' && c.firstAt !== c.at ? `${worst}; first below ${asGiven(limit)} ${u} at ${time(c.firstAt)}: ${figureAgainst(c.firstValue, [limit])} ${u} to ${c.firstHit}` : worst;
    }
    case 'peak_decel': {
      if (Number.isNaN(c.value)) return 'no deceleration measured yet';
      const worst = `deceleration ${againstMax(c.value, limit, u)} at ${time(c.at)}, the peak${c.verdict === 'pending' ? ' so far' : ''}`;
      return c.verdict === 'fail' && c.firstAt !== c.at ? `${worst}; first above ${asGiven(limit)} ${u} at ${time(c.firstAt)}: ${figureAgainst(c.firstValue, [limit])} ${u}` : worst;
    }
    case 'stopped_before': {
      const point = s.point.kind === 'vehicle' ? s.point.id : 'the point';
      if (Number.isNaN(c.value)) return c.verdict === 'pending' ? `${point} not in the scene yet` : `${s.ego} had not stopped before ${point} when the attempt ended (no distance measured)`;
      if (c.value === -Infinity) return `${s.ego} was past ${point} at ${time(c.at)} before it stopped`;
      const d = `${against(c.value, limit, u)} before ${point} at ${time(c.at)}`;
      switch (c.how) {
        case 'stopped': return `${s.ego} stopped ${d}`;
        case 'standing': return `${s.ego} standing ${d}, when the attempt ended`;
        case 'within': return `${s.ego}'s front ${d} while moving: it did not stop before it`;
        case 'not_stopped': return `${s.ego} moving ${d}, when the attempt ended: it had not stopped`;
        case 'never_moved': return `${s.ego} ${d}, when the attempt ended: it never drove off (faster than 1 m/s) to stop there`;
        default: return `${s.ego} ${d}, moving`;
      }
    }
    case 'reach': {
      if (Number.isNaN(c.value)) return 'no distance measured yet';
      const d = `${againstMax(c.value, limit, u)} of the point at ${time(c.at)}`;
      switch (c.how) {
        case 'reached': return `within ${d} (${(c.at - c.t0).toFixed(2)} s of story time)`;
        case 'timeout': return `closest ${d}: not within the radius ${asGiven(s.within)} s into the story`;
        case 'not_reached': return `closest ${d}: not reached when the attempt ended`;
        default: return `closest ${d} so far`;
      }
    }
  }
}

/** A failed criterion's first breach, for the attempt's reason: 'TTC to cutter 0.92 s < 1 s at 14.20 s'. */
export function firstBreach(c: Run): string {
  const s = c.spec;
  const limit = c.limit ?? 0;
  if ((s.kind === 'min_ttc' || s.kind === 'min_distance') && !Number.isNaN(c.firstAt)) return `${s.kind === 'min_ttc' ? 'TTC' : 'distance'} to ${c.firstHit} ${against(c.firstValue, limit, c.unit)} at ${time(c.firstAt)}`;
  if (s.kind === 'peak_decel' && !Number.isNaN(c.firstAt)) return `deceleration ${againstMax(c.firstValue, limit, c.unit)} at ${time(c.firstAt)}`;
  return describeCriterion(c);
}
