/**
 * A sweep whose rows came out the same (issue 46): the CCRb grid's three 12 m runs, the car ahead braking at 2, 4
 * and 6 m/s², read the same because the braking ego was at its own limit in each — the table alone let that pass
 * for a finding about the car ahead. Rows whose status and criteria read the same (verdict and value as the tables
 * print them) while a swept value differs are grouped, and each group is said with what made it so:
 * an ego braking at its own full brake, an ego standing at its own standstill gap, figures taken before the first
 * event started; or, when nothing known explains it, that the swept keys did not reach what the criteria measure.
 * Pure: the rows and each run's ego limits in, sentences out.
 */
import type { AttemptResult } from '../world.js';
import { fixed, valueText } from './format.js';

/** What limits a simulated ego's own driving, from its vehicle and driver (the run's resolved scenario). */
export interface EgoLimits {
  ego: string;
  /** the deceleration of a full brake, max_brake_torque / (wheel radius × mass) [m/s²] */
  full_brake_mps2: number;
  /** the autopilot's standstill gap to the vehicle ahead [m] (null: not an autopilot) */
  min_gap_m: number | null;
}

export interface IdenticalRow {
  params: Record<string, number | string>;
  result: AttemptResult;
  limits?: readonly EgoLimits[];
}

/** a peak this close to the full brake is the brake's limit, not a choice [share] */
const AT_FULL_BRAKE = 0.85;
/** a stop this close to the standstill gap is the gap [m] */
const AT_MIN_GAP_M = 1;

/** what the tables print of a row: its status, each criterion's verdict and value (not when: a stop at 10 s or 14 s reads the same) */
const outcome = (r: AttemptResult) => [r.status, ...r.criteria.map((c) => `${c.name}:${c.verdict}:${valueText(c)}`)].join('|');

/** The ego a criterion judges: the one its detail names, else the only one. */
function egoOf(detail: string, limits: readonly EgoLimits[]): EgoLimits | undefined {
  return limits.find((l) => new RegExp(`(^|\\W)${l.ego.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\W|$)`).test(detail)) ?? (limits.length === 1 ? limits[0] : undefined);
}

/** Why one row's criteria read as they do whatever was swept: the limits its figures sit at. */
function causes(row: IdenticalRow): string[] {
  const r = row.result;
  const limits = row.limits ?? [];
  const out: string[] = [];
  const firstEvent = r.events.filter((e) => e.started_s !== null).sort((a, b) => a.started_s! - b.started_s!)[0];
  for (const c of r.criteria) {
    if (typeof c.value !== 'number') continue;
    const ego = egoOf(c.detail, limits);
    const before = firstEvent && c.at_s !== null && c.at_s < firstEvent.started_s! ? `, at ${fixed(c.at_s)} s, before ${firstEvent.id} started (${fixed(firstEvent.started_s!)} s)` : '';
    if (c.kind === 'peak_decel' && ego && c.value >= AT_FULL_BRAKE * ego.full_brake_mps2) {
      out.push(`${ego.ego} braked at its own limit (${c.name} ${valueText(c)} of its full brake's ${fixed(ego.full_brake_mps2)} m/s², from the vehicle's max_brake_torque)`);
      if (before) out.push(`${c.name} was taken${before}`);
    } else if (c.kind === 'stopped_before' && ego?.min_gap_m !== null && ego !== undefined && Math.abs(c.value - ego.min_gap_m!) <= AT_MIN_GAP_M) {
      out.push(`${ego.ego} stopped at its own standstill gap (${c.name} ${valueText(c)}; autopilot min_gap_m ${ego.min_gap_m} m)`);
    } else if (before) out.push(`${c.name} was taken${before}`);
  }
  return out;
}

const listed = (xs: readonly (number | string)[]) => [...new Set(xs.map(String))].join(', ');

/** One sentence per group of rows (numbered from 1, as the tables number them) that read the same. */
export function identicalRowNotes(rows: readonly IdenticalRow[]): string[] {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => groups.set(outcome(r.result), [...(groups.get(outcome(r.result)) ?? []), i]));
  const notes: string[] = [];
  for (const idx of groups.values()) {
    if (idx.length < 2) continue;
    const keys = [...new Set(idx.flatMap((i) => Object.keys(rows[i].params)))];
    const varying = keys.filter((k) => new Set(idx.map((i) => String(rows[i].params[k]))).size > 1);
    if (varying.length === 0) continue;
    const fixedKeys = keys.filter((k) => !varying.includes(k));
    const where = fixedKeys.length ? ` at ${fixedKeys.map((k) => `${k} = ${String(rows[idx[0]].params[k])}`).join(', ')}` : '';
    const swept = varying.map((k) => `${k} (${listed(idx.map((i) => rows[i].params[k]))})`).join(' and ');
    const shared = causes(rows[idx[0]]).filter((c) => idx.every((i) => causes(rows[i]).includes(c)));
    const why = shared.length
      ? shared.join('; ')
      : 'no limit of the ego explains it: check that the swept keys reach what the criteria measure';
    notes.push(`Rows ${idx.map((i) => i + 1).join(', ')}${where} read the same whatever ${swept}: ${why}.`);
  }
  return notes;
}
