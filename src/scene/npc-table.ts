/**
 * The NPCs as a snapshot shows them, and the table every snapshot interpolates from. Apart from the scene
 * (scene.ts) because it is the frames' hot path: a frame at any rate reads these reused typed arrays, made once
 * per change to the NPCs, instead of the engine's views.
 */
import { wrapPi } from '../geo/frame.js';
import { POLICY_DT, type NpcBase, type NpcView, type TrafficEngine } from '../traffic/engine.js';
import { AgentKind } from '../traffic/world.js';
import type { ObjectKind } from '../vehicle/index.js';
import { hypot } from '../util/hypot.js';
import type { NpcPopulation } from './population.js';

/** An NPC as the scene shows it: the engine's NPC moved to the snapshot's time, with why it is held back. */
export interface NpcState extends NpcBase {
  /** velocity of the motion shown (m/s, map frame): displacement over the current policy step */
  vx: number;
  vy: number;
  /** spawned by the scene itself (kept at npc_target) rather than on request */
  auto: boolean;
  /** why it is held back: a traffic rule (red, yellow, stop_sign, give_way, box, crosswalk), a vehicle ahead (queue), or none */
  hold: NpcHold;
  /** a test case's scripted actor (its story id; id = ACTOR_ID_BASE + its number), absent for the policy's NPCs */
  actor?: string;
  /** what it is; absent means a vehicle */
  kind?: ObjectKind;
}

export type NpcHold = 'none' | 'red' | 'yellow' | 'stop_sign' | 'give_way' | 'box' | 'queue' | 'crosswalk';

/** Why an NPC is held back, as the inspector shows it: a rule, else a vehicle it waits behind while slow. */
function holdOf(n: NpcView): NpcHold {
  // behind a vehicle that is itself waiting at the line: in the queue
  if ((n.hold === 'red' || n.hold === 'yellow' || n.hold === 'stop_sign') && n.waitingFor !== -1) return 'queue';
  if (n.hold !== 'none') return n.hold;
  return n.speed < 1 && n.waitingFor !== -1 ? 'queue' : 'none';
}

/**
 * The NPCs as the latest change to them (a step, a spawn, a removal, a setting) left them, column by column in
 * reused typed arrays: what every snapshot interpolates. Each column holds what snapshot() computed per NPC
 * and frame from the engine's views before (the same expressions on the same numbers), so a frame reads
 * arrays, with no engine views, id lookups or velocities to make, and makes each NPC's state once.
 */
export class NpcTable {
  count = 0;
  id = new Float64Array(0);
  prevX = new Float64Array(0);
  prevY = new Float64Array(0);
  prevYaw = new Float64Array(0);
  /** x − prevX, y − prevY, wrapPi(yaw − prevYaw): the committed motion */
  dx = new Float64Array(0);
  dy = new Float64Array(0);
  dYaw = new Float64Array(0);
  vx = new Float64Array(0);
  vy = new Float64Array(0);
  speed = new Float64Array(0);
  length = new Float64Array(0);
  width = new Float64Array(0);
  goalX = new Float64Array(0);
  goalY = new Float64Array(0);
  /** 1 collided, 2 off-road, 4 auto */
  flags = new Uint8Array(0);
  readonly hold: NpcHold[] = [];
  /** afterStep: the rows whose NPC is still in the world */
  private kept = new Uint8Array(0);

  private reserve(n: number): void {
    if (n <= this.id.length) return;
    const cap = Math.max(n, 2 * this.id.length, 64);
    const f64 = () => new Float64Array(cap);
    this.id = f64(); this.prevX = f64(); this.prevY = f64(); this.prevYaw = f64();
    this.dx = f64(); this.dy = f64(); this.dYaw = f64(); this.vx = f64(); this.vy = f64(); this.speed = f64();
    this.length = f64(); this.width = f64(); this.goalX = f64(); this.goalY = f64();
    this.flags = new Uint8Array(cap);
    this.kept = new Uint8Array(cap);
  }

  fill(views: readonly NpcView[], engine: TrafficEngine, population: NpcPopulation): void {
    this.reserve(views.length);
    for (let k = 0; k < views.length; k++) {
      const n = views[k];
      const fresh = engine.isFresh(n.id);
      const dx = n.x - n.prevX;
      const dy = n.y - n.prevY;
      const vx = fresh ? n.speed * Math.cos(n.yaw) : dx / POLICY_DT;
      const vy = fresh ? n.speed * Math.sin(n.yaw) : dy / POLICY_DT;
      this.id[k] = n.id;
      this.prevX[k] = n.prevX;
      this.prevY[k] = n.prevY;
      this.prevYaw[k] = n.prevYaw;
      this.dx[k] = dx;
      this.dy[k] = dy;
      this.dYaw[k] = wrapPi(n.yaw - n.prevYaw);
      this.vx[k] = vx;
      this.vy[k] = vy;
      this.speed[k] = hypot(vx, vy);
      this.length[k] = n.length;
      this.width[k] = n.width;
      this.goalX[k] = n.goalX;
      this.goalY[k] = n.goalY;
      this.flags[k] = (n.collided ? 1 : 0) | (n.offroad ? 2 : 0) | (population.isAuto(n.id) ? 4 : 0);
      if (k < this.hold.length) this.hold[k] = holdOf(n);
      else this.hold.push(holdOf(n));
    }
    this.count = views.length;
  }

  /**
   * The rows of the step's views (taken after the engine's step) as the rest of the step left them: the
   * population only sets goals and removes NPCs (update), or adds some (fill, spawn). The goals are read from
   * the engine's world where npcs() reads them, the rows of removed NPCs are dropped (the others keep their
   * order, as npcs() keeps it); false when the world holds an NPC the views do not (added since: the caller
   * reads every NPC again).
   */
  fillAfterStep(views: readonly NpcView[], engine: TrafficEngine, population: NpcPopulation): boolean {
    this.fill(views, engine, population);
    const w = engine.world;
    const n = this.count;
    this.kept.fill(0, 0, n);
    let present = 0;
    for (let s = 0; s < w.count; s++) {
      if (!w.present[s] || w.kind[s] !== AgentKind.Controlled) continue;
      const id = w.id[s];
      let k = 0;
      while (k < n && this.id[k] !== id) k++;
      if (k === n) return false;
      this.goalX[k] = w.goalX[s];
      this.goalY[k] = w.goalY[s];
      this.kept[k] = 1;
      present++;
    }
    if (present === n) return true;
    let to = 0;
    for (let k = 0; k < n; k++) {
      if (!this.kept[k]) continue;
      if (to !== k) this.move(k, to);
      to++;
    }
    this.count = to;
    return true;
  }

  /**
   * Every NPC's state at a fraction alpha (0 … 1) of the motion the last step committed it to, in the table's
   * order, as a snapshot lists them.
   */
  states(alpha: number): NpcState[] {
    const npcs: NpcState[] = [];
    for (let k = 0; k < this.count; k++) {
      const f = this.flags[k];
      npcs.push({
        id: this.id[k],
        x: this.prevX[k] + alpha * this.dx[k],
        y: this.prevY[k] + alpha * this.dy[k],
        yaw: wrapPi(this.prevYaw[k] + alpha * this.dYaw[k]),
        vx: this.vx[k], vy: this.vy[k], speed: this.speed[k],
        length: this.length[k], width: this.width[k], goalX: this.goalX[k], goalY: this.goalY[k],
        collided: (f & 1) !== 0, offroad: (f & 2) !== 0, auto: (f & 4) !== 0,
        hold: this.hold[k],
      });
    }
    return npcs;
  }

  private move(from: number, to: number): void {
    this.id[to] = this.id[from];
    this.prevX[to] = this.prevX[from];
    this.prevY[to] = this.prevY[from];
    this.prevYaw[to] = this.prevYaw[from];
    this.dx[to] = this.dx[from];
    this.dy[to] = this.dy[from];
    this.dYaw[to] = this.dYaw[from];
    this.vx[to] = this.vx[from];
    this.vy[to] = this.vy[from];
    this.speed[to] = this.speed[from];
    this.length[to] = this.length[from];
    this.width[to] = this.width[from];
    this.goalX[to] = this.goalX[from];
    this.goalY[to] = this.goalY[from];
    this.flags[to] = this.flags[from];
    this.hold[to] = this.hold[from];
  }
}
