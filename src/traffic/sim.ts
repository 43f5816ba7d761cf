/**
 * One world's step in GPUDrive's order (spec §7.6): movement → collisions → step counter → goal/done
 * check → observations. Pure: no clock, no I/O, no policy; actions come in, state goes out.
 */
import { RoadIndex } from '../map/spatial-index.js';
import type { ObservationRows } from '../policy/rows.js';
import { CollisionDetector } from './collisions.js';
import { checkGoals } from './goals.js';
import { moveAgents, type ContinuousControls } from './movement.js';
import { ObservationBuilder } from './observation.js';
import { AgentKind, type World } from './world.js';

export interface SimOptions {
  /** steps per episode; after the last one every agent is done (91 in evaluation), Infinity for live use */
  readonly episodeSteps?: number;
  /** the collision pass and the observations without their shortcuts (CollisionDetector's and RoadRows' reference): for the exactness test */
  readonly reference?: boolean;
}

export class Sim {
  readonly collisions: CollisionDetector;
  readonly observations: ObservationBuilder;
  readonly episodeSteps: number;

  constructor(readonly world: World, readonly roads: RoadIndex | null, opts: SimOptions = {}) {
    this.collisions = new CollisionDetector(world.capacity, opts.reference ?? false);
    this.observations = new ObservationBuilder(world.capacity, undefined, opts.reference ?? false);
    this.episodeSteps = opts.episodeSteps ?? Infinity;
  }

  /** The reset pass: collision flags reflect overlaps of the initial state; no goal check. */
  reset(): void {
    this.world.stepIndex = 0;
    this.collisions.detect(this.world, this.roads, 0);
  }

  /** Advances one step; `actions[slot]` (or live `controls`) move the controlled agents. */
  step(actions: ArrayLike<number>, controls?: ContinuousControls): void {
    const w = this.world;
    const logIndex = w.stepIndex;
    moveAgents(w, actions, controls);
    this.collisions.detect(w, this.roads, logIndex);
    w.stepIndex++;
    checkGoals(w);
    if (w.stepIndex >= this.episodeSteps) {
      for (let i = 0; i < w.count; i++) if (w.kind[i] !== AgentKind.External) w.done[i] = 1;
    }
  }

  /** Slots of controlled agents still driving (present and not done), written to `out`; returns the count. */
  activeControlled(out: Int32Array): number {
    const w = this.world;
    let n = 0;
    for (let i = 0; i < w.count; i++) if (w.present[i] && !w.done[i] && w.kind[i] === AgentKind.Controlled) out[n++] = i;
    return n;
  }

  /** Observations in the 2984-float layout; the real row counts are in `observations.rows`. */
  observe(observers: ArrayLike<number>, n: number, out: Float32Array, sizeScale: number): void {
    this.observations.build(this.world, this.roads, observers, n, out, sizeScale);
  }

  /** The same observations as the policy's rows (real rows only). */
  observeRows(observers: ArrayLike<number>, n: number, rows: ObservationRows, sizeScale: number): void {
    this.observations.buildRows(this.world, this.roads, observers, n, rows, sizeScale);
  }
}
