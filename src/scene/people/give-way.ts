/**
 * NPC vehicles give way to people at crosswalks (Korean Road Traffic Act art. 27: a driver stops before a
 * crosswalk while a person crosses it or is about to; turning vehicles in permissive phases and right turns on
 * red included, as their planned lanes run through the crosswalk). A rule layer over the junction rules: after
 * they wrote each NPC's stop (src/scene/rules/rules.ts), it adds a stop before the first crosswalk on the NPC's
 * planned lanes that is occupied in its path, when that is nearer than the rule's own line, with the hold reason
 * 'crosswalk'. Occupied in its path (occupiedFor): a person in the lane's conflict zone (the axis range an NPC's body
 * on the lane sweeps on the stripes, crosswalks.ts, and GIVE_WAY_CONFLICT_PAD_M and half a person either side) or walking into it before the vehicle would
 * have cleared the crosswalk (GIVE_WAY_PERSON_GAP_S to spare), or one waiting at its kerb whom the pedestrian signal lets go
 * and who would be there as soon. A vehicle that could only obey by braking harder than COMMIT_DECEL
 * (for a waiting person) or HARD_DECEL (for one on the crosswalk) is not held, unless it was already stopping
 * for that crosswalk; one whose front is already on the stripes clears them (a person on them waits) unless it is
 * slower than GIVE_WAY_CREEP_HOLD_MPS with a person crossing in its path: it then stands where it is. Before a junction
 * (junctions joined by a road that holds no queue of two count as one) it waits at its line unless the crosswalks on
 * and just past its lanes through it stay clear GIVE_WAY_EXIT_CLEAR_EXTRA_S longer than it needs, so it never stands inside for people;
 * people let an NPC committed to a junction out first (markComing), and one that has waited GIVE_WAY_IMPATIENT_S claims its turn.
 */
import type { TrafficEngine } from '../../traffic/engine.js';
import { POLICY_DT } from '../../traffic/engine.js';
import { MAX_PLAN } from '../../traffic/predict.js';
import { HoldReason, type StopConstraints } from '../../traffic/stops.js';
import { GOVERNOR_STOP_MARGIN_M } from '../../traffic/tuning.js';
import { AgentKind } from '../../traffic/world.js';
import { COMFORT_DECEL, COMMIT_DECEL, DECIDE_M, GO_ACCEL, HARD_DECEL } from '../rules/rule-params.js';
import type { CrosswalkGeometry } from './crosswalks.js';
import { GAP, Phase, PERSON_WIDTH_M, type Walkers } from './walkers.js';
import { GIVE_WAY_AT_ENTRY_M, GIVE_WAY_CONFLICT_PAD_M, GIVE_WAY_CREEP_HOLD_MPS, GIVE_WAY_EXIT_CLEAR_EXTRA_S, GIVE_WAY_IMPATIENT_S, GIVE_WAY_IN_BOX_REACH_M, GIVE_WAY_LINE_BACK_M, GIVE_WAY_PAST_EXIT_M, GIVE_WAY_PERSON_GAP_S, GIVE_WAY_STANDING_BELOW_MPS } from './tuning.js';

/** a road between two junctions shorter than this holds no queue of two vehicles of this half length standing at the
 * second one's line (1 m apart): the two junctions are one box for the crosswalks (FMTC's J7 into J6, 5.7 m; J4 into
 * J3, where two movements of J4 merge onto a 10 m road and the second of two NPCs stopping at J3's line stood in J4) [m] */
function linkFit(half: number): number {
  return 2 * (2 * half) + 1 + GOVERNOR_STOP_MARGIN_M + GIVE_WAY_LINE_BACK_M;
}

/** Nothing in the way (0), a person waiting to step on (1), a person on the crosswalk in the path (2). */
export const Occupied = { None: 0, Waiting: 1, Crossing: 2 } as const;

/** How far a vehicle's conflict zone on a crosswalk reaches beyond the axis range its body covers (vehicleHalfWidth: beyond
 * its centre; 0: beyond the body's own extent): GIVE_WAY_CONFLICT_PAD_M and half a person [m]. */
export function conflictReach(vehicleHalfWidth: number): number {
  return vehicleHalfWidth + GIVE_WAY_CONFLICT_PAD_M + 0.5 * PERSON_WIDTH_M;
}

/**
 * How crosswalk c is occupied for a vehicle whose path covers axis coordinates uLo … uHi on it (its conflict zone:
 * that, `reach` either side) and which would be clear of the crosswalk in `clearS` seconds: a person on it who is in that zone, or who
 * walks into it before clearS + GIVE_WAY_PERSON_GAP_S (Occupied.Crossing); else one waiting at its kerb whom the signal lets
 * go and who would walk into it by then (Occupied.Waiting). People who have passed the zone, or are far enough
 * away that the vehicle clears it first, do not hold it (the reading of the law traffic simulators and the US
 * Uniform Vehicle Code § 11-502 take: yield to a person on the crosswalk in, or approaching so closely to, the
 * vehicle's half of the road as to be in danger), so a long crosswalk walked end to end does not stop a lane for
 * the whole crossing.
 */
export function occupiedFor(walkers: Walkers, c: number, uLo: number, uHi: number, reach: number, clearS: number): number {
  let out: number = Occupied.None;
  const horizon = clearS + GIVE_WAY_PERSON_GAP_S;
  for (let i = 0; i < walkers.span; i++) {
    if (walkers.cw[i] !== c) continue;
    const ph = walkers.phase[i];
    if (ph === Phase.Away || (ph === Phase.Waiting && !walkers.ready[i])) continue;
    const dir = walkers.dir[i];
    const u = walkers.u[i];
    // past the zone's far edge: out of the way; else the walk to its near edge (0: in it)
    if (dir > 0 ? u > uHi + reach : u < uLo - reach) continue;
    const toZone = Math.max(0, dir > 0 ? uLo - reach - u : u - (uHi + reach));
    if (toZone > walkers.walkSpeed[i] * horizon) continue;
    if (ph === Phase.Crossing) return Occupied.Crossing;
    out = Occupied.Waiting;
  }
  return out;
}

export class CrosswalkGiveWay {
  /** the rule runs (tests switch it off to see the figures count) */
  enabled = true;
  /** per slot, when given (the junction rules' RuleMemory.heldForPeople): 1 while this rule holds it, so that the box
   * rule counts no room ahead of it (FMTC's J4: an NPC entered behind one about to stop for J3's crosswalk, and stood) */
  heldMark: Uint8Array | null = null;
  /** NPC-steps held before a crosswalk for people (the rule's stop was the nearest) */
  heldSteps = 0;
  /** per slot: the crosswalk it is stopping for (−1 none), and the NPC id that holds the slot */
  private readonly heldCw: Int32Array;
  private readonly heldId: Int32Array;
  /** per slot: steps it has stood at a junction's entry held for a crosswalk past it (see GIVE_WAY_IMPATIENT_S) */
  private readonly boxWait: Int32Array;

  constructor(private readonly geo: CrosswalkGeometry, private readonly walkers: Walkers, private readonly engine: TrafficEngine, private readonly stops: StopConstraints) {
    const cap = engine.world.capacity;
    this.heldCw = new Int32Array(cap).fill(-1);
    this.heldId = new Int32Array(cap).fill(-1);
    this.boxWait = new Int32Array(cap);
  }

  reset(): void {
    this.heldSteps = 0;
    this.heldCw.fill(-1);
    this.heldId.fill(-1);
    this.boxWait.fill(0);
  }

  /** Adds each NPC's crosswalk stop to the scene's stops (after the junction rules wrote theirs). */
  apply(): void {
    const geo = this.geo;
    this.clearMarks();
    if (!this.enabled || geo.count === 0) return;
    const engine = this.engine;
    const world = engine.world;
    const stops = this.stops;
    const lanes = engine.lanes.lanes;
    const { planLanes, planCount, planS } = engine;
    const { crossFirst, crossCw, crossSIn, crossSOut, crossULo, crossUHi } = geo;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) continue;
      if (this.heldId[s] !== world.id[s]) {
        this.heldId[s] = world.id[s];
        this.heldCw[s] = -1;
        this.boxWait[s] = 0;
      }
      const n = planCount[s];
      if (n === 0) {
        this.heldCw[s] = -1;
        continue;
      }
      const v = world.speed(s);
      const half = 0.5 * world.length[s];
      // the rows' axis ranges already hold the body (crosswalks.ts): the zone adds the pad and half a person
      const reach = conflictReach(0);
      const look = Math.max(DECIDE_M, (v * v) / (2 * COMFORT_DECEL) + 10);
      let bestLine = Infinity;
      let bestCw = -1;
      let d = -planS[s];
      // the junction ahead (its internal lanes): where it enters and leaves it — with the junctions after it that a
      // road too short to hold the NPC joins to it (FMTC's J7 into J6), one box; for an NPC in a junction, the next
      // one, when the road from the one it is in can hold it (else it is committed through both: no box)
      let boxIn = NaN, boxOut = NaN;
      const inBox = lanes[planLanes[s * MAX_PLAN]].internal;
      const fit = linkFit(half);
      let own = inBox, ownOut = NaN, noBox = false;
      // past `look` too while in the junctions of a box whose entry is within it, and up to a vehicle's room past its
      // exit: whether it may enter is decided before the entry, for the crosswalks on and just past its lanes (FMTC's
      // J7 into J6, whose lanes cross a crosswalk 40 m on)
      for (let k = 0; k < n && (d - half < look || inChainLook(d, boxIn, boxOut, fit)); k++) {
        const lane = planLanes[s * MAX_PLAN + k];
        const internal = lanes[lane].internal;
        if (own && !internal) {
          own = false;
          ownOut = d;
        }
        if (!own && internal) {
          if (Number.isNaN(boxIn) && !noBox) {
            if (inBox && d - ownOut < fit) noBox = true;
            else boxIn = d;
          } else if (!Number.isNaN(boxOut) && d - boxOut < fit) boxOut = NaN;
        } else if (!own && !Number.isNaN(boxIn) && Number.isNaN(boxOut)) boxOut = d;
        for (let r = crossFirst[lane]; r < crossFirst[lane + 1]; r++) {
          const dIn = d + crossSIn[r];
          const dFront = dIn - half;
          const c = crossCw[r];
          if (dFront < 0) {
            // its front already on the stripes: a slow one (creeping on from a queue or a stop line) stands where it
            // is while a person crossing is in its path; a faster one clears them (a person on them waits)
            if (v < GIVE_WAY_CREEP_HOLD_MPS && d + crossSOut[r] + half > 0 && occupiedFor(this.walkers, c, crossULo[r], crossUHi[r], reach, 0) === Occupied.Crossing) {
              const here = half + GOVERNOR_STOP_MARGIN_M + (v * v) / (2 * COMMIT_DECEL);
              if (here < bestLine) {
                bestLine = here;
                bestCw = c;
              }
            }
            continue;
          }
          if ((dFront > look && !inChainLook(dIn, boxIn, boxOut, fit)) || dIn - GIVE_WAY_LINE_BACK_M >= bestLine) continue;
          // clear of the crosswalk: its whole length past the far side of the stripes, speeding up at GO_ACCEL
          const dClear = Math.max(dFront, 0) + (crossSOut[r] - crossSIn[r]) + 2 * half;
          const clearS = (Math.sqrt(v * v + 2 * GO_ACCEL * dClear) - v) / GO_ACCEL;
          const occ = occupiedFor(this.walkers, c, crossULo[r], crossUHi[r], reach, clearS);
          if (occ === Occupied.None) {
            // before a junction whose exit it crosses: it does not enter unless the crosswalk stays clear GIVE_WAY_EXIT_CLEAR_EXTRA_S
            // longer (it may slow for the turn or the traffic in it, and then stand in the junction for the people)
            if (Number.isNaN(boxIn) || dIn - GIVE_WAY_LINE_BACK_M - GOVERNOR_STOP_MARGIN_M - 2 * half >= (Number.isNaN(boxOut) ? d + lanes[lane].length : boxOut)) continue;
            const needBox = (v * v) / (2 * Math.max(boxIn - half - GOVERNOR_STOP_MARGIN_M, 0.05));
            if (boxIn - half <= 0 || (needBox > COMMIT_DECEL && this.heldCw[s] !== c)) continue;
            if (occupiedFor(this.walkers, c, crossULo[r], crossUHi[r], reach, clearS + GIVE_WAY_EXIT_CLEAR_EXTRA_S) === Occupied.None) continue;
            if (boxIn >= bestLine) continue;
            bestLine = boxIn;
            bestCw = c;
            continue;
          }
          const need = (v * v) / (2 * Math.max(dFront - GIVE_WAY_LINE_BACK_M - GOVERNOR_STOP_MARGIN_M, 0.05));
          if (need > (occ === Occupied.Crossing ? HARD_DECEL : COMMIT_DECEL) && this.heldCw[s] !== c) continue;
          let line = dIn - GIVE_WAY_LINE_BACK_M;
          // standing there would leave its rear in the junction: it waits before the junction instead, where it
          // can stop comfortably (a vehicle standing in a junction for people past its exit blocks the crossing traffic)
          const boxEnd = Number.isNaN(boxOut) ? d + lanes[lane].length : boxOut;
          if (!Number.isNaN(boxIn) && line - GOVERNOR_STOP_MARGIN_M - 2 * half < boxEnd && boxIn - half > 0) {
            const needBox = (v * v) / (2 * Math.max(boxIn - half - GOVERNOR_STOP_MARGIN_M, 0.05));
            if (needBox <= COMMIT_DECEL || this.heldCw[s] === c) line = Math.min(line, boxIn);
          }
          if (line >= bestLine) continue;
          bestLine = line;
          bestCw = c;
        }
        d += lanes[lane].length;
      }
      this.heldCw[s] = bestCw;
      // standing at a junction's entry for a crosswalk past it (the box's line is its stop) — and on while the junction
      // rules hold it at that line in between (the room past the exit, giving way): FMTC's J4 into J3, whose exit
      // crosswalks walk with J3's green, held an NPC for them on every green and by the box rule on every red, and the
      // count started afresh at each change (stuck 180 s); so did one crosswalk taking over from another
      const atEntry = !Number.isNaN(boxIn) && boxIn - half - GOVERNOR_STOP_MARGIN_M < GIVE_WAY_AT_ENTRY_M;
      const heldAtEntry = (bestCw >= 0 && bestLine === boxIn) || stops.line[s] <= boxIn + GIVE_WAY_AT_ENTRY_M;
      if (v < GIVE_WAY_STANDING_BELOW_MPS && atEntry && heldAtEntry && (bestCw >= 0 || this.boxWait[s] > 0)) this.boxWait[s]++;
      else this.boxWait[s] = 0;
      if (this.heldMark) this.heldMark[s] = bestCw >= 0 && bestLine < stops.line[s] ? 1 : 0;
      if (bestCw >= 0 && bestLine < stops.line[s]) {
        stops.set(s, bestLine, COMFORT_DECEL, HoldReason.Crosswalk, -1);
        this.heldSteps++;
      }
    }
  }

  /** Nobody held for people (the rule did not run this step). */
  clearMarks(): void {
    if (this.heldMark) this.heldMark.fill(0);
  }

  /**
   * Marks in walkers.coming every crosswalk an NPC's planned lanes run onto within the distance it needs to stop
   * (a person's gap acceptance: reaction, then braking at GAP.decel), or within GIVE_WAY_IN_BOX_REACH_M of an NPC inside a
   * junction: the people there wait for it.
   */
  markComing(): void {
    const coming = this.walkers.coming;
    coming.fill(0);
    const geo = this.geo;
    if (geo.count === 0) return;
    const engine = this.engine;
    const world = engine.world;
    const lanes = engine.lanes.lanes;
    const { planLanes, planCount, planS } = engine;
    const { crossFirst, crossCw, crossSIn, crossSOut } = geo;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) continue;
      const n = planCount[s];
      if (n === 0) continue;
      const v = world.speed(s);
      // one inside a junction, however slow, has the crosswalks at its exit: people let it out first (else, on a
      // long crosswalk with a steady stream of people, it stands in the junction and blocks the crossing traffic)
      const inBox = lanes[planLanes[s * MAX_PLAN]].internal;
      // one that has stood at a junction's entry for a crosswalk past it GIVE_WAY_IMPATIENT_S claims its turn: the people
      // there let it go next (those on the crosswalks walk on; once they are off, it goes)
      // (not while the junction rules hold it at its line this step: the people wait for nothing then)
      const impatient = this.boxWait[s] > GIVE_WAY_IMPATIENT_S / POLICY_DT && !(this.stops.line[s] < 0.5 * world.length[s] + GOVERNOR_STOP_MARGIN_M + GIVE_WAY_AT_ENTRY_M);
      if (v < GIVE_WAY_STANDING_BELOW_MPS && !inBox && !impatient) continue;
      const half = 0.5 * world.length[s];
      const gapReach = v < 0.3 ? -Infinity : (v * v) / (2 * GAP.decel) + v * GAP.reactionS + GAP.spareM;
      let reach = Math.max(gapReach, inBox ? GIVE_WAY_IN_BOX_REACH_M : 0);
      let d = -planS[s];
      // one in a junction, or too close to stop before the next one at COMMIT_DECEL (the give-way does not hold it
      // there either), is committed to that junction's exit: people let it out across the whole junction, however
      // wide, and across the next one too when the road between cannot hold it
      let inChain = inBox, seenBox = inBox, exitD = NaN;
      const fit = linkFit(half);
      for (let k = 0; k < n; k++) {
        const lane = planLanes[s * MAX_PLAN + k];
        const internal = lanes[lane].internal;
        if (!inChain && internal) {
          if (!seenBox) {
            seenBox = true;
            const room = d - half - GOVERNOR_STOP_MARGIN_M;
            if (impatient || room <= 0 || (v * v) / (2 * room) > COMMIT_DECEL) inChain = true;
          } else if (d - exitD < fit) inChain = true;
        }
        if (inChain && !internal) {
          inChain = false;
          exitD = d;
          reach = Math.max(reach, d + half + GIVE_WAY_PAST_EXIT_M);
        }
        if (!inChain && d - half >= reach) break;
        for (let r = crossFirst[lane]; r < crossFirst[lane + 1]; r++) {
          const dFront = d + crossSIn[r] - half;
          // on it already (its body not yet off the far side), or coming within reach
          // 1: too close to stop for a person (who may still be let go: NPCs that can stop do); 2: let out of the
          // junction first (the people there are not let go either, else the NPC would wait for them and they for it)
          if ((dFront <= reach || inChain) && d + crossSOut[r] + half > 0) coming[crossCw[r]] = Math.max(coming[crossCw[r]], dFront <= gapReach ? 1 : 2);
        }
        d += lanes[lane].length;
      }
    }
  }
}

/** Is `d` within the look of a box entered at boxIn and left at boxOut (NaN: not yet), and a vehicle's room (fit) past it? */
function inChainLook(d: number, boxIn: number, boxOut: number, fit: number): boolean {
  return !Number.isNaN(boxIn) && (Number.isNaN(boxOut) || d < boxOut + fit);
}
