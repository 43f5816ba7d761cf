/**
 * Giving way, as a gap check: an NPC may enter a movement if every vehicle with priority on a conflicting movement
 * reaches the conflict zone after the NPC has cleared it (with GAP_S to spare) or leaves it before the NPC gets
 * there; at an all-way stop, the approaches go in the order their vehicles stopped. Who has priority comes from
 * the signals, the signs and the junction's own order (layout.ts); who is where, from vehicle-places.ts. Where two
 * lanes merge and neither gives way, the vehicle ahead goes first (a zip merge); an NPC that has stood long at its
 * line takes a gap an NPC with priority can brake gently for (impatience).
 */
import { ConflictKind } from '../../map/junctions.js';
import type { TrafficEngine } from '../../traffic/engine.js';
import type { LaneNetwork } from '../../traffic/lanes.js';
import { GOVERNOR_STOP_MARGIN_M } from '../../traffic/tuning.js';
import { AgentKind, type World } from '../../traffic/world.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import { GREEN, GREEN_YIELD, YELLOW, type MovementSignalStates } from '../junction-kit/handoff.js';
import { speedLimitOf, timeToCover } from '../junction-kit/kinematics.js';
import type { RuleMemory } from './rule-memory.js';
import {
  COMMIT_DECEL, EGO_TURN_S, FULL_STOP_SPEED, GAP_S, GO_ACCEL, IMPATIENT_DECEL, IMPATIENT_S, LOOKAHEAD_M, MERGE_HEADWAY_S, OWN_ACCEL, QUEUE_GAP_M, QUEUED_MPS, STILL_S, STOP_ZONE_M,
  ZIP_TIE_M,
} from './rule-params.js';
import type { VehiclePlaces } from './vehicle-places.js';

export class RightOfWay {
  constructor(
    private readonly index: MovementIndex,
    private readonly places: VehiclePlaces,
    private readonly signals: MovementSignalStates,
    private readonly memory: RuleMemory,
    private readonly lanes: LaneNetwork,
    private readonly engine: TrafficEngine,
  ) {}

  /**
   * The vehicle NPC s must give way to before entering movement m (its slot, −1 for one that is not a vehicle of
   * the world), or −2 when it may go.
   */
  giveWay(world: World, s: number, j: number, m: number, dFront: number, v: number, signal: boolean, allWay: boolean, occupantsOnly = false, redTurn = false): number {
    const { occupants, approachers, inMg, inA, frontMg, frontA, apD } = this.places;
    const { code, yields } = this.signals;
    const memory = this.memory;
    const cj = this.index.layout.junctions[j];
    const J = cj.junction;
    const n = cj.movements.length;
    const mine = cj.movements[m];
    const vmax = Math.max(speedLimitOf(this.lanes, mine.entry.lane), 5);
    const L = world.length[s];
    const base = this.index.base[j];
    const myMg = base + m;
    // stood at this line long (a steady stream with priority, the road beyond it full whenever the stream breaks)
    const impatient = !signal && !allWay && this.places.apMg[s] === myMg && memory.stillSince[s] >= 0 && memory.time - memory.stillSince[s] > IMPATIENT_S;
    for (let c = 0; c < n; c++) {
      const kind = J.conflicts[m * n + c];
      // two lanes merging where neither gives way (FMTC's J20: two lanes of one road into one): the vehicle ahead
      // goes first, as in a zip merge; without it both went in side by side and stood nose to nose at the merge
      const zip = !signal && !allWay && kind === ConflictKind.Merge && cj.yields[m * n + c] === 0 && cj.yields[c * n + m] === 0;
      // movements of one approach run side by side, but for such a merge and for one that crosses the other's lane
      // inside the junction (K-City's J35: a left turn from the second lane across the straight on from the first;
      // skipped, the two went in side by side on one green and touched where they cross)
      const sameApproach = cj.movements[c].approach === mine.approach;
      if (kind === ConflictKind.None || (sameApproach && !zip && kind !== ConflictKind.Cross)) continue;
      const cg = base + c;
      const zsM = cj.zoneStart[m * n + c], zeM = cj.zoneEnd[m * n + c];
      const zsC = cj.zoneStart[c * n + m], zeC = cj.zoneEnd[c * n + m];
      const tArrive = timeToCover(dFront + zsM, v, OWN_ACCEL, vmax);
      // clear of it: past a crossing (its rear out of the zone, and a margin); ahead of it in a merge (its front
      // through the merge, and a headway: the other then follows it)
      const tClear = kind === ConflictKind.Merge
        ? timeToCover(dFront + zeM, v, OWN_ACCEL, vmax) + MERGE_HEADWAY_S
        : timeToCover(dFront + zeM + L, v, OWN_ACCEL, vmax) + GAP_S;
      // whoever is in the conflicting movement and will still be in the way
      for (const w of occupants[cg]) {
        if (w === s) continue;
        const along = inMg[w] === cg ? inA[w] : frontMg[w] >= 0 && this.index.refs[frontMg[w]].j === j ? frontA[w] : zsC;
        const hw = 0.5 * world.length[w];
        if (along - hw >= zeC) continue; // past the conflict zone
        const vw = world.speed(w);
        const wArrive = along + hw >= zsC ? 0 : (zsC - (along + hw)) / Math.max(vw, 0.5);
        const wLeave = (zeC - (along - hw)) / Math.max(vw, 0.3);
        if (wArrive < tClear && wLeave + GAP_S > tArrive) return w;
      }
      if (occupantsOnly) continue;
      // who has priority over this movement now
      let priority: boolean;
      // (one approach shares its signal: the junction's own order says who gives way, to one that goes)
      if (sameApproach) priority = cj.yields[m * n + c] === 1 && (!signal || code[cg] === GREEN || code[cg] === YELLOW || code[cg] === GREEN_YIELD);
      else if (signal) {
        const cc = code[cg];
        const going = cc === GREEN || cc === YELLOW || cc === GREEN_YIELD;
        // a right turn on red gives way to every movement that goes; a permissive green to those going with priority
        priority = redTurn ? going : yields[myMg] === 1 && going && yields[cg] === 0;
      } else priority = !allWay && cj.yields[m * n + c] === 1;
      const toZone = dFront + zsM;
      if (allWay) {
        // the approaches in the order their vehicles stopped; a vehicle already moving in goes first
        const mineT = memory.stopDoneT[s];
        for (const w of approachers[cg]) {
          const dfw = apD[w] - 0.5 * world.length[w];
          if (dfw > STOP_ZONE_M + 1) continue;
          if (world.kind[w] === AgentKind.External) {
            if (world.speed(w) > FULL_STOP_SPEED) return w;
            if (memory.standSince[w] < 0) memory.standSince[w] = memory.time;
            if (memory.time - memory.standSince[w] < EGO_TURN_S && memory.standSince[w] <= mineT) return w;
            continue;
          }
          if (memory.stopDone[w] === cg && (memory.stopDoneT[w] < mineT || (memory.stopDoneT[w] === mineT && w < s))) return w;
        }
        continue;
      }
      for (const w of approachers[cg]) {
        if (w === s) continue;
        // one that has no priority but comes too fast to stop comfortably will come all the same
        if (!priority && !(zip && this.ahead(world, w, zsC, toZone, s)) && !this.committed(world, w)) continue;
        const vw = world.speed(w);
        // held at a line of its own (a red light, a stop sign, giving way), standing in a queue, or standing for a
        // while for whatever reason: not coming (a driver goes when the car with priority waits on); but one beside
        // it at the same line, free to go, is about to (the two stood there together at the red)
        if (vw < QUEUED_MPS && ((world.kind[w] === AgentKind.Controlled && (memory.heldMg[w] >= 0 || this.queued(world, w))) || (!(sameApproach && kind === ConflictKind.Cross) && memory.time - memory.stillSince[w] > STILL_S))) continue;
        const hw = 0.5 * world.length[w];
        const dist = apD[w] - hw + zsC;
        if (dist > LOOKAHEAD_M) continue;
        // an NPC with priority that can still stop gently before its line will wait for this one, once it is in
        if (impatient && world.kind[w] === AgentKind.Controlled && this.canStopGently(world, w)) continue;
        const wArrive = timeToCover(dist, vw, GO_ACCEL, Math.max(speedLimitOf(this.lanes, cj.movements[c].entry.lane), 5));
        const wLeave = wArrive + (zeC - zsC + 2 * hw) / Math.max(vw, 3);
        if (wArrive < tClear && wLeave + GAP_S > tArrive) return w;
      }
    }
    return -2;
  }

  /** Can vehicle w no longer stop comfortably before the line it approaches (it will go in whatever it owes)? */
  private committed(world: World, w: number): boolean {
    const v = world.speed(w);
    if (v < 1) return false;
    const dFront = this.places.apD[w] - 0.5 * world.length[w] - GOVERNOR_STOP_MARGIN_M;
    return (v * v) / (2 * Math.max(dFront, 0.05)) > COMMIT_DECEL && this.memory.heldMg[w] < 0;
  }

  /** Is vehicle w nearer the conflict zone (zsC into its movement) than NPC s, toZone from it? Ties: the lower slot. */
  private ahead(world: World, w: number, zsC: number, toZone: number, s: number): boolean {
    const theirs = this.places.apD[w] - 0.5 * world.length[w] + zsC;
    return theirs < toZone - ZIP_TIE_M || (theirs <= toZone + ZIP_TIE_M && w < s);
  }

  /** Can vehicle w stop before the line it approaches at IMPATIENT_DECEL or less? */
  private canStopGently(world: World, w: number): boolean {
    const v = world.speed(w);
    const dFront = this.places.apD[w] - 0.5 * world.length[w] - GOVERNOR_STOP_MARGIN_M;
    return dFront > 0 && v * v <= 2 * IMPATIENT_DECEL * dFront;
  }

  /** Is NPC w standing behind a vehicle that stands too (car-following holds it in a queue)? */
  private queued(world: World, w: number): boolean {
    const leader = this.engine.shield?.predictor.leader[w] ?? -1;
    if (leader < 0 || !world.present[leader] || world.speed(leader) >= QUEUED_MPS) return false;
    const gap = Math.hypot(world.x[leader] - world.x[w], world.y[leader] - world.y[w]) - 0.5 * (world.length[leader] + world.length[w]);
    return gap < QUEUE_GAP_M;
  }
}
