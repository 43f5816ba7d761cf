/**
 * Ambient people of a live scene: the crosswalks of its map, the walkers, the give-way rule of its NPCs and the
 * people figures, behind one object the scene calls at each policy step. A map without crosswalks has none of
 * them: nothing is drawn, stepped or held, so such a scene runs exactly as it did before people existed.
 */
import type { CrosswalkRecord } from '../../map/traffic-control.js';
import { POLICY_DT, type TrafficEngine } from '../../traffic/engine.js';
import type { StopConstraints } from '../../traffic/stops.js';
import type { NpcState } from '../npc-table.js';
import { CrosswalkGeometry } from './crosswalks.js';
import { CrosswalkGiveWay } from './give-way.js';
import { PeopleWatch, type PeopleCounts } from './people-watch.js';
import { UNSIGNALISED, type WalkStateSource } from './walk-state.js';
import { Phase, PERSON_DEPTH_M, PERSON_WIDTH_M, Walkers } from './walkers.js';

export { CrosswalkGeometry } from './crosswalks.js';
export { CrosswalkGiveWay, occupiedFor } from './give-way.js';
export { PeopleWatch, type PeopleCounts } from './people-watch.js';
export { UNSIGNALISED, type WalkState, type WalkStateSource } from './walk-state.js';
export { Phase, PERSON_DEPTH_M, PERSON_WIDTH_M, Walkers } from './walkers.js';
export { drawWalkingSpeed } from './walking-speed.js';

/** most people a scene keeps (the `pedestrians` setting's maximum) */
export const MAX_PEDESTRIANS = 200;

export interface PeopleSummary extends PeopleCounts {
  /** people the scene keeps (the setting; 0 on a map without crosswalks) */
  pedestrians: number;
  /** crosswalks of the map */
  crosswalks: number;
  /** NPC-seconds held before a crosswalk for people (the give-way rule's stop the nearest) */
  npc_s_held_for_people: number;
}

export class ScenePeople {
  readonly geo: CrosswalkGeometry;
  readonly walkers: Walkers;
  readonly giveWay: CrosswalkGiveWay;
  readonly watch: PeopleWatch;
  /** the pedestrian signal of each crosswalk (unsignalised until the scene is given a source) */
  walk: WalkStateSource = UNSIGNALISED;

  /** `stops`: the scene's stop constraints, which the crosswalk give-way adds its stops to */
  constructor(records: readonly CrosswalkRecord[], private readonly engine: TrafficEngine, target: number, stops: StopConstraints) {
    this.geo = new CrosswalkGeometry(records, engine.lanes);
    this.walkers = new Walkers(this.geo, MAX_PEDESTRIANS);
    this.giveWay = new CrosswalkGiveWay(this.geo, this.walkers, engine, stops);
    this.watch = new PeopleWatch(this.geo, MAX_PEDESTRIANS, engine.world.capacity);
    this.target = target;
  }

  /** people the scene keeps (0 without crosswalks, whatever the setting) */
  get target(): number {
    return this.walkers.target;
  }

  set target(n: number) {
    this.walkers.target = this.geo.count === 0 ? 0 : Math.max(0, Math.min(MAX_PEDESTRIANS, Math.floor(n)));
  }

  reset(seed: number): void {
    this.walkers.reset(seed);
    this.giveWay.reset();
    this.watch.reset();
  }

  /**
   * Before the engine's step at simulation time t (after the junction rules wrote their stops): people arrive,
   * start and walk to t + dt; the NPCs' crosswalk stops are added when `rules` run.
   */
  beforeStep(t: number, dt: number, rules: boolean): void {
    if (this.geo.count === 0) return;
    if (this.walkers.span > 0) this.giveWay.markComing();
    this.walkers.step(t, dt, this.walk, this.engine.world);
    // nobody out: no NPC has anyone to give way to
    if (rules && this.walkers.span > 0) this.giveWay.apply();
    else this.giveWay.clearMarks();
  }

  /** After the engine's step: the figures. */
  afterStep(): void {
    if (this.geo.count === 0) return;
    this.watch.observe(this.engine.world, this.walkers, this.walk);
  }

  /** The people on the map as snapshot rows (NpcState, kind 'pedestrian'), at a fraction alpha of this step's motion. */
  appendStates(alpha: number, out: NpcState[]): void {
    const w = this.walkers;
    const geo = this.geo;
    for (let i = 0; i < w.span; i++) {
      if (w.phase[i] === Phase.Away) continue;
      const c = w.cw[i];
      const yaw = w.yaw(i);
      const v = w.speed[i];
      const far = w.dir[i] > 0 ? geo.length[c] : 0;
      out.push({
        id: w.id[i], x: w.x(i, alpha), y: w.y(i, alpha), yaw, vx: v * Math.cos(yaw), vy: v * Math.sin(yaw), speed: v,
        length: PERSON_DEPTH_M, width: PERSON_WIDTH_M,
        goalX: geo.ax[c] + far * geo.ux[c] - w.lat[i] * geo.uy[c], goalY: geo.ay[c] + far * geo.uy[c] + w.lat[i] * geo.ux[c],
        collided: this.watch.struck[i] !== 0, offroad: false, auto: true, hold: 'none', kind: 'pedestrian',
      });
    }
  }

  summary(): PeopleSummary {
    return { pedestrians: this.target, crosswalks: this.geo.count, npc_s_held_for_people: Math.round(this.giveWay.heldSteps * POLICY_DT * 10) / 10, ...this.watch.counts };
  }
}
