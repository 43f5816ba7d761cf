/**
 * What a junction's group states mean for its movements: which go, which go but give way (a left turn in a
 * permissive green), and which pairs would conflict. One room because the controller, the plan checks, the
 * default plans and the rules all ask it, and must agree.
 */
import { ConflictKind, type Movement } from '../../map/junctions.js';
import type { ControlledJunction, SignalGroup } from '../junction-kit/layout.js';
import type { GroupStateCode } from './plan-spec.js';
import { OPPOSITE_COS } from '../junction-kit/kit-params.js';

export const turning = (m: Movement) => m.turn === 'left' || m.turn === 'uturn';

/**
 * Movement m may go together with c while giving way to it: m turns left (or U) across c coming the other way,
 * and m's group is not a protected-left group.
 */
export function permissiveAgainst(cj: ControlledJunction, groups: readonly SignalGroup[], m: number, c: number): boolean {
  const mm = cj.movements[m], mc = cj.movements[c];
  const g = cj.groupOfMovement[m];
  if (g >= 0 && groups[g].left) return false;
  return turning(mm) && Math.cos(mm.entry.yaw - mc.entry.yaw) < OPPOSITE_COS;
}

/** Do the two groups conflict (some movement of one crosses or merges with one of the other, across approaches)? */
export function groupsConflict(cj: ControlledJunction, groups: readonly SignalGroup[], a: number, b: number, allowPermissive: boolean): boolean {
  const n = cj.movements.length;
  for (const m of groups[a].movements) {
    for (const c of groups[b].movements) {
      if (cj.junction.conflicts[m * n + c] === ConflictKind.None) continue;
      if (cj.movements[m].approach === cj.movements[c].approach) continue;
      if (allowPermissive && (permissiveAgainst(cj, groups, m, c) || permissiveAgainst(cj, groups, c, m))) continue;
      return true;
    }
  }
  return false;
}

export interface MovementState {
  code: GroupStateCode;
  /** it must give way to conflicting traffic (permissive green, or the yellow after one) */
  yields: boolean;
}

/** Movement states from the junction's group states (one char per group of cj.groups). */
export function movementStates(cj: ControlledJunction, groups: readonly SignalGroup[], states: string, out?: MovementState[]): MovementState[] {
  const n = cj.movements.length;
  const res = out ?? cj.movements.map(() => ({ code: 'r' as GroupStateCode, yields: false }));
  const codeOf = (m: number): GroupStateCode => {
    const g = cj.groupOfMovement[m];
    return g < 0 ? 'o' : (states[cj.groups.indexOf(g)] as GroupStateCode);
  };
  for (let m = 0; m < n; m++) {
    const code = codeOf(m);
    let yields = code === 'g';
    if ((code === 'G' || code === 'y') && !yields) {
      for (let c = 0; c < n && !yields; c++) {
        if (c === m || cj.junction.conflicts[m * n + c] === ConflictKind.None) continue;
        const cc = codeOf(c);
        if ((cc === 'G' || cc === 'g' || cc === 'y') && permissiveAgainst(cj, groups, m, c)) yields = true;
      }
    }
    res[m].code = code === 'G' && yields ? 'g' : code;
    res[m].yields = yields;
  }
  return res;
}

/** The conflicts a set of group states would show at once: pairs of conflicting movements both going with priority. */
export function stateConflicts(cj: ControlledJunction, groups: readonly SignalGroup[], states: string): string[] {
  const ms = movementStates(cj, groups, states);
  const n = ms.length;
  const out: string[] = [];
  const seen = new Set<string>();
  const go = (s: MovementState) => s.code === 'G' || s.code === 'g' || s.code === 'y';
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      if (cj.junction.conflicts[a * n + b] === ConflictKind.None) continue;
      if (cj.movements[a].approach === cj.movements[b].approach) continue;
      if (!go(ms[a]) || !go(ms[b]) || ms[a].yields || ms[b].yields) continue;
      const ga = groups[cj.groupOfMovement[a]].id, gb = groups[cj.groupOfMovement[b]].id;
      const key = `${ga}|${gb}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(`${ga} (${ms[a].code === 'y' ? 'yellow' : 'green'}) and ${gb} (${ms[b].code === 'y' ? 'yellow' : 'green'}) conflict: movement ${cj.movements[a].id} (${cj.movements[a].turn}) crosses ${cj.movements[b].id} (${cj.movements[b].turn})`);
    }
  }
  return out;
}
