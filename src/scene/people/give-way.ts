/**
 * NPC vehicles give way to people at crosswalks (Korean Road Traffic Act art. 27: a driver stops before a
 * crosswalk while a person crosses it or is about to; turning vehicles in permissive phases and right turns on
 * red included, as their planned lanes run through the crosswalk). A rule layer over the junction rules: after
 * they wrote each NPC's stop (src/scene/control/rules.ts), it adds a stop before the first crosswalk on the NPC's
 * planned lanes that is occupied in its path, when that is nearer than the rule's own line, with the hold reason
 * 'crosswalk'. Occupied in its path: a person on it who has not yet passed the lane's conflict zone (the
 * vehicle's width and CONFLICT_PAD_M either side, where the lane crosses the walking axis), or one waiting at its
 * kerb whom the pedestrian signal lets go. A vehicle that could only obey by braking harder than COMMIT_DECEL
 * (for a waiting person) or HARD_DECEL (for one on the crosswalk) is not held, unless it was already stopping
 * for that crosswalk; one whose front is already on the stripes is not held either (it clears them).
 */
import type { TrafficEngine } from '../../traffic/engine.js';
import { MAX_PLAN } from '../../traffic/predict.js';
import { HoldReason, STOP_MARGIN_M } from '../../traffic/stops.js';
import { AgentKind } from '../../traffic/world.js';
import { COMFORT_DECEL, COMMIT_DECEL, DECIDE_M, HARD_DECEL } from '../control/rule-params.js';
import type { CrosswalkGeometry } from './crosswalks.js';
import { Phase, PERSON_WIDTH_M, type Walkers } from './walkers.js';

/** the conflict zone reaches this far either side of the vehicle's body along the walking axis [m] */
export const CONFLICT_PAD_M = 1;
/** vehicles stop with their front this far before the stripes (plus the governor's STOP_MARGIN_M) [m] */
const LINE_BACK_M = 1;
/** a front this far onto the stripes is past stopping before them [m] */
const ENTERED_M = 0.3;

/** Nothing in the way (0), a person waiting to step on (1), a person on the crosswalk in the path (2). */
export const Occupied = { None: 0, Waiting: 1, Crossing: 2 } as const;

/**
 * How crosswalk c is occupied for a vehicle whose path crosses its axis at uLane, its body `halfWidth` either
 * side of it: a person crossing who has not passed the far edge of the conflict zone, else one waiting at its
 * kerb whom the signal lets go.
 */
export function occupiedFor(walkers: Walkers, c: number, uLane: number, halfWidth: number): number {
  const reach = halfWidth + CONFLICT_PAD_M + 0.5 * PERSON_WIDTH_M;
  let out: number = Occupied.None;
  for (let i = 0; i < walkers.span; i++) {
    if (walkers.cw[i] !== c) continue;
    const ph = walkers.phase[i];
    if (ph === Phase.Crossing) {
      const dir = walkers.dir[i];
      if (dir * (walkers.u[i] - (uLane + dir * reach)) < 0) return Occupied.Crossing;
    } else if (ph === Phase.Waiting && walkers.ready[i]) out = Occupied.Waiting;
  }
  return out;
}

export class CrosswalkGiveWay {
  /** the rule runs (tests switch it off to see the figures count) */
  enabled = true;
  /** per slot: the crosswalk it is stopping for (−1 none), and the NPC id that holds the slot */
  private readonly heldCw: Int32Array;
  private readonly heldId: Int32Array;

  constructor(private readonly geo: CrosswalkGeometry, private readonly walkers: Walkers, private readonly engine: TrafficEngine) {
    const cap = engine.world.capacity;
    this.heldCw = new Int32Array(cap).fill(-1);
    this.heldId = new Int32Array(cap).fill(-1);
  }

  reset(): void {
    this.heldCw.fill(-1);
    this.heldId.fill(-1);
  }

  /** Adds each NPC's crosswalk stop to the engine's stops (after the junction rules wrote theirs). */
  apply(): void {
    const geo = this.geo;
    if (!this.enabled || geo.count === 0) return;
    const engine = this.engine;
    const world = engine.world;
    const stops = engine.stops;
    const lanes = engine.lanes.lanes;
    const { planLanes, planCount, planS } = engine;
    const { crossFirst, crossCw, crossSIn, crossU } = geo;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) continue;
      if (this.heldId[s] !== world.id[s]) {
        this.heldId[s] = world.id[s];
        this.heldCw[s] = -1;
      }
      const n = planCount[s];
      if (n === 0) {
        this.heldCw[s] = -1;
        continue;
      }
      const v = world.speed(s);
      const half = 0.5 * world.length[s];
      const halfWidth = 0.5 * world.width[s];
      const look = Math.max(DECIDE_M, (v * v) / (2 * COMFORT_DECEL) + 10);
      let bestLine = Infinity;
      let bestCw = -1;
      let d = -planS[s];
      for (let k = 0; k < n && d - half < look; k++) {
        const lane = planLanes[s * MAX_PLAN + k];
        for (let r = crossFirst[lane]; r < crossFirst[lane + 1]; r++) {
          const dIn = d + crossSIn[r];
          const dFront = dIn - half;
          if (dFront < -ENTERED_M || dFront > look || dIn - LINE_BACK_M >= bestLine) continue;
          const c = crossCw[r];
          const occ = occupiedFor(this.walkers, c, crossU[r], halfWidth);
          if (occ === Occupied.None) continue;
          const need = (v * v) / (2 * Math.max(dFront - LINE_BACK_M - STOP_MARGIN_M, 0.05));
          if (need > (occ === Occupied.Crossing ? HARD_DECEL : COMMIT_DECEL) && this.heldCw[s] !== c) continue;
          bestLine = dIn - LINE_BACK_M;
          bestCw = c;
        }
        d += lanes[lane].length;
      }
      this.heldCw[s] = bestCw;
      if (bestCw >= 0 && bestLine < stops.line[s]) stops.set(s, bestLine, COMFORT_DECEL, HoldReason.Crosswalk, -1);
    }
  }
}
