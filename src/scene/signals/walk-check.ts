/**
 * The plan check for walks: a phase's `walks` (plan-spec.ts) may grant a walk (`W`) only where no vehicle group
 * whose protected green crosses the crosswalk (walk-layout.ts conflicts) is green or yellow — else the plan is
 * refused, naming the phase, the walk, its crosswalk and the vehicle group with the movement that crosses it.
 */
import type { ControlledJunction, SignalGroup } from '../junction-kit/layout.js';
import type { SignalPlan } from './plan-spec.js';
import type { WalkGroup } from './walk-layout.js';

const WALK_CODES = ['W', 'r'];

export function validateWalks(plan: SignalPlan, cj: ControlledJunction, groups: readonly SignalGroup[], walks: readonly WalkGroup[]): string[] {
  const name = cj.junction.id;
  const errs: string[] = [];
  const given = plan.phases.filter((p) => p.walks !== undefined).length;
  if (given === 0) return errs;
  if (given !== plan.phases.length) return [`${name}: walks are given for ${given} of ${plan.phases.length} phases (give them for every phase or none)`];
  plan.phases.forEach((p, i) => {
    const ws = p.walks!;
    if (typeof ws !== 'string' || ws.length !== walks.length) {
      errs.push(`${name} phase ${i + 1}: walks "${String(ws)}" must have one character per walk group (${walks.length}${walks.length ? `: ${walks.map((w) => w.id).join(', ')}` : ''})`);
      return;
    }
    for (let w = 0; w < ws.length; w++) {
      if (!WALK_CODES.includes(ws[w])) {
        errs.push(`${name} phase ${i + 1}: unknown walk state "${ws[w]}" of ${walks[w].id} (use W or r)`);
        continue;
      }
      if (ws[w] !== 'W' || typeof p.states !== 'string') continue;
      for (const c of walks[w].conflicts) {
        const k = cj.groups.indexOf(c.group);
        const st = k >= 0 ? p.states[k] : 'r';
        if (st === 'G' || st === 'g' || st === 'y') {
          errs.push(`${name} phase ${i + 1}: walk ${walks[w].id} (crosswalk ${walks[w].crosswalkId}) refused: ${groups[c.group].id} is ${st === 'y' ? 'yellow' : 'green'} and its protected green crosses it (${c.turn} from lane ${c.lane})`);
        }
      }
    }
  });
  return errs;
}
