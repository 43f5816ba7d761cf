/**
 * The last resort against NPC–NPC contact in the live scene (never in `vils eval`: the engine runs it only with
 * the safety shield on). The shield checks each NPC's action against the others predicted along their lanes'
 * centres; on bends and narrow two-way roads NPCs run 0.5–1.2 m off that centre, and two that meet there were
 * each cleared by a prediction of the other that did not come true (docs/intersections.md, "Measured").
 * After every NPC has chosen its controls for the step, the guard rolls each vehicle on with what it really
 * does now — an NPC its chosen acceleration and steering held, an ego its velocity — for `horizonSteps`, and
 * tests every pair at its real size (the boxes contacts.ts counts, plus small margins). An NPC moving towards a
 * vehicle it would touch within that time (the other ahead of it) brakes at `decel` instead. Once braked, it keeps
 * braking for that vehicle while the two would still touch within `holdHorizonSteps`, the other rolled on as it
 * chose, going straight on at its speed, or stopping where it is. Without the hold, two closing at 10 m/s took
 * turns (FMTC × 30 seed 3, t ≈ 434 s at J6: an NPC coming out of a tight right turn wide, its held steering rolling
 * it away from the other's path, the other steered back to its lane at full throttle each second step and met it
 * when it stopped in its way: 16 contact steps). A pair touching already is left to the shield, whose smaller boxes
 * let it part. No allocation per step.
 */
import { stepBicycle, STEP_DT, type BicycleState } from './bicycle.js';
import type { ContinuousControls } from './movement.js';
import { obbOverlapCS } from './obb.js';
import { AgentKind, type World } from './world.js';
import { XOrder } from './x-order.js';
import { GUARD_AHEAD_COS, GUARD_MARGIN_SPEED_MPS, GUARD_MIN_SPEED_MPS, GUARD_SAME_WAY_COS, GUARD_SLOW_SPEED_MPS } from './tuning.js';

export interface ContactGuardOptions {
  /** how far ahead each pair is rolled on [steps of 0.1 s] */
  readonly horizonSteps: number;
  /** how far ahead an NPC the guard braked for another in the last step keeps checking that one [steps; 0: no hold] */
  readonly holdHorizonSteps: number;
  /** braking of an NPC that would touch another [m/s², > 0] */
  readonly decel: number;
  /** added to each box's half length and half width [m] */
  readonly marginLon: number;
  readonly marginLat: number;
}

export const DEFAULT_CONTACT_GUARD_OPTIONS: ContactGuardOptions = {
  horizonSteps: 15,
  holdHorizonSteps: 15,
  decel: 6,
  marginLon: 0.2,
  marginLat: 0.1,
};

export class ContactGuard {
  /** per slot: 1 when the guard braked it in the last step */
  readonly braked: Uint8Array;
  /** per slot: the vehicle (slot) it braked for in the last step, −1 with none (what the NPC waits for: two braked
   * for each other form a ring) */
  readonly brakedForSlot: Int32Array;
  /** per slot: the slot and id of the vehicle it avoided in the last step, and its own id then (−1: none) */
  private readonly heldSlot: Int32Array;
  private readonly heldId: Int32Array;
  private readonly heldSelfId: Int32Array;
  /** poses per slot and step k (1..H): index slot·H + k − 1, with the heading's cosine and sine (H: the longer look-ahead) */
  private readonly px: Float64Array;
  private readonly py: Float64Array;
  private readonly pc: Float64Array;
  private readonly ps: Float64Array;
  private readonly active: Int32Array;
  private readonly rank: Int32Array;
  private readonly near: Int32Array;
  private readonly byX: XOrder;
  private readonly st: BicycleState = { x: 0, y: 0, yaw: 0, vx: 0, vy: 0 };
  /** buffer stride: the longer look-ahead */
  private readonly H: number;
  /** work done so far: pairs rolled out against each other, NPCs braked, of those kept avoiding a vehicle they had */
  readonly work = { pairs: 0, brakes: 0, held: 0 };

  constructor(capacity: number, readonly options: ContactGuardOptions = DEFAULT_CONTACT_GUARD_OPTIONS) {
    if (!(options.horizonSteps >= 1 && Number.isInteger(options.horizonSteps))) throw new Error(`contact guard: horizonSteps must be a whole number ≥ 1, got ${options.horizonSteps}`);
    if (!(Number.isInteger(options.holdHorizonSteps) && options.holdHorizonSteps >= 0)) throw new Error(`contact guard: holdHorizonSteps must be a whole number ≥ 0, got ${options.holdHorizonSteps}`);
    if (!(options.decel > 0)) throw new Error(`contact guard: decel must be > 0 m/s², got ${options.decel}`);
    this.H = Math.max(options.horizonSteps, options.holdHorizonSteps);
    this.heldSlot = new Int32Array(capacity).fill(-1);
    this.heldId = new Int32Array(capacity).fill(-1);
    this.heldSelfId = new Int32Array(capacity).fill(-1);
    this.braked = new Uint8Array(capacity);
    this.brakedForSlot = new Int32Array(capacity).fill(-1);
    this.px = new Float64Array(capacity * this.H);
    this.py = new Float64Array(capacity * this.H);
    this.pc = new Float64Array(capacity * this.H);
    this.ps = new Float64Array(capacity * this.H);
    this.active = new Int32Array(capacity);
    this.rank = new Int32Array(capacity);
    this.near = new Int32Array(capacity);
    this.byX = new XOrder(capacity);
  }

  /**
   * Checks the controls the NPCs chose for this step (`controls`, where `use` is 1) and replaces the acceleration
   * of each NPC that would run into another with braking at `decel` (no harder than to a stop in this step).
   */
  apply(world: World, controls: ContinuousControls, laneSteer: (slot: number, accel: number) => number): void {
    this.braked.fill(0);
    this.brakedForSlot.fill(-1);
    this.rank.fill(-1);
    const H = this.H, hs = this.options.horizonSteps;
    let n = 0, reach = 0;
    this.byX.clear();
    for (let i = 0; i < world.count; i++) {
      const k = world.kind[i];
      if (!world.present[i] || (k !== AgentKind.Controlled && k !== AgentKind.External)) continue;
      if (!(Number.isFinite(world.x[i]) && Number.isFinite(world.y[i]))) continue;
      const r = this.roll(world, i, controls);
      if (r > reach) reach = r;
      this.rank[i] = n;
      this.active[n++] = i;
      this.byX.add(i, world.x[i]);
    }
    this.byX.sort();
    // first the NPCs still under way that the guard braked for a vehicle in the last step: they keep braking for it
    // while the two would touch within the hold's look-ahead, the other going on as it chose, straight on at its
    // speed, or stopping where it is
    const hold = Math.min(H, this.options.holdHorizonSteps);
    for (let i = 0; i < world.count; i++) {
      const j = this.heldSlot[i];
      if (j < 0) continue;
      const same = this.heldSelfId[i] === world.id[i] && this.rank[i] >= 0 && this.rank[j] >= 0 && world.id[j] === this.heldId[i];
      this.heldSlot[i] = -1;
      if (hold === 0 || !same || world.speed(i) <= GUARD_MIN_SPEED_MPS || !this.movingNpc(world, i, controls)) continue;
      if (Math.cos(world.yaw[i] - world.yaw[j]) > GUARD_SAME_WAY_COS) continue;
      const steps = hold;
      // the other rolled on as it chose, going straight on at its speed (held steering turns an NPC coming out of
      // a bend away too soon), or stopping where it is (its shield may brake it for this one)
      if (this.firstTouch(world, i, j, steps) <= 0 && !this.touchesStraight(world, i, j, controls, steps) && !this.touchesStanding(world, i, j, controls, steps)) continue;
      this.work.held++;
      this.avoid(world, i, j, controls, laneSteer, steps, true);
    }
    const span = 2 * reach + 1e-6;
    for (let a = 0; a < n; a++) {
      const i = this.active[a];
      const m = this.byX.inRange(world.x[i] - span, world.x[i] + span, this.near);
      for (let q = 0; q < m; q++) {
        const j = this.near[q];
        if (this.rank[j] <= a) continue;
        const ni = this.movingNpc(world, i, controls), nj = this.movingNpc(world, j, controls);
        if (!ni && !nj) continue;
        // two going the same way are car-following's and the shield's (a follower held at its acceleration
        // for the look-ahead meets its leader, and braking it cost the demo track 10 % of its speed)
        if (Math.cos(world.yaw[i] - world.yaw[j]) > GUARD_SAME_WAY_COS) continue;
        const k = this.firstTouch(world, i, j, hs);
        if (k <= 0) continue;
        // the one whose own motion takes it into the other (held where it is) runs into it: it avoids (head-on,
        // both; a follower, not its leader; one steering into another's side); where neither does alone, the one
        // with the other ahead of it where they would touch (at a crossing, the one whose front meets the
        // other's side)
        let iRuns = ni && this.touchesStanding(world, i, j, controls, hs);
        let jRuns = nj && this.touchesStanding(world, j, i, controls, hs);
        if (!iRuns && !jRuns) {
          const b = (i * H + k - 1), c = (j * H + k - 1);
          const dx = this.px[c] - this.px[b], dy = this.py[c] - this.py[b];
          const ahead = GUARD_AHEAD_COS * Math.hypot(dx, dy);
          iRuns = ni && dx * this.pc[b] + dy * this.ps[b] > ahead;
          jRuns = nj && -dx * this.pc[c] - dy * this.ps[c] > ahead;
        }
        if (iRuns) this.avoid(world, i, j, controls, laneSteer, hs, false);
        if (jRuns) this.avoid(world, j, i, controls, laneSteer, hs, false);
      }
    }
  }

  /**
   * An NPC the guard may brake: one with chosen controls this step that is under way (one standing or moving off is
   * the shield's alone: braking two that stand in each other's way holds both for good)
   */
  private movingNpc(world: World, i: number, controls: ContinuousControls): boolean {
    return world.kind[i] === AgentKind.Controlled && controls.use[i] === 1 && (world.speed(i) > GUARD_MIN_SPEED_MPS || controls.accel[i] > 0);
  }

  /**
   * NPC i would run into `other`: back towards its lane path at its chosen acceleration where that keeps it
   * clear of `other` over `steps` (`held`: of `other` rolled on, going straight on and stopping where it is — one
   * held for `other` that went on when only the first kept clear met it at J6 on FMTC × 30 seed 3); else braking
   * at `decel` along its lane path, where that does; else braking with its own steering.
   */
  private avoid(world: World, i: number, other: number, controls: ContinuousControls, laneSteer: (slot: number, accel: number) => number, steps: number, held: boolean): void {
    const accel0 = controls.accel[i], steer0 = controls.steer[i];
    const brake = Math.min(accel0, Math.max(-this.options.decel, -world.speed(i) / STEP_DT));
    if (!this.braked[i]) this.work.brakes++;
    this.braked[i] = 1;
    this.brakedForSlot[i] = other;
    this.heldSlot[i] = other;
    this.heldId[i] = world.id[other];
    this.heldSelfId[i] = world.id[i];
    const lane = laneSteer(i, accel0);
    if (!Number.isNaN(lane)) {
      controls.steer[i] = lane;
      this.roll(world, i, controls);
      if (this.firstTouch(world, i, other, steps) === 0 && !(held && (this.touchesStraight(world, i, other, controls, steps) || this.touchesStanding(world, i, other, controls, steps)))) return;
      controls.accel[i] = brake;
      controls.steer[i] = laneSteer(i, brake);
      this.roll(world, i, controls);
      if (this.firstTouch(world, i, other, steps) === 0) return;
    }
    controls.accel[i] = brake;
    controls.steer[i] = steer0;
    this.roll(world, i, controls);
  }

  /** Does `mover`, rolled on as it chose, touch `stander` held where it is (within `steps`)? */
  private touchesStanding(world: World, mover: number, stander: number, controls: ContinuousControls, steps: number): boolean {
    const H = this.H;
    const c = Math.cos(world.yaw[stander]), sn = Math.sin(world.yaw[stander]);
    for (let k = 0; k < H; k++) {
      const b = stander * H + k;
      this.px[b] = world.x[stander]; this.py[b] = world.y[stander]; this.pc[b] = c; this.ps[b] = sn;
    }
    const touch = this.firstTouch(world, mover, stander, steps) > 0;
    this.roll(world, stander, controls);
    return touch;
  }

  /** Does `mover`, rolled on as it chose, touch `other` going straight on at its velocity (within `steps`)? */
  private touchesStraight(world: World, mover: number, other: number, controls: ContinuousControls, steps: number): boolean {
    const H = this.H;
    const c = Math.cos(world.yaw[other]), sn = Math.sin(world.yaw[other]);
    for (let k = 0; k < steps; k++) {
      const b = other * H + k;
      this.px[b] = world.x[other] + (k + 1) * STEP_DT * world.vx[other];
      this.py[b] = world.y[other] + (k + 1) * STEP_DT * world.vy[other];
      this.pc[b] = c; this.ps[b] = sn;
    }
    const touch = this.firstTouch(world, mover, other, steps) > 0;
    this.roll(world, other, controls);
    return touch;
  }

  /**
   * The first step (1..steps) at which i's and j's rolled-on boxes (real size plus the margins) overlap, or 0:
   * none, or they touch already (left to the shield).
   */
  private firstTouch(world: World, i: number, j: number, steps: number): number {
    const o = this.options;
    const hli = 0.5 * world.length[i], hwi = 0.5 * world.width[i], hlj = 0.5 * world.length[j], hwj = 0.5 * world.width[j];
    if (obbOverlapCS(world.x[i], world.y[i], Math.cos(world.yaw[i]), Math.sin(world.yaw[i]), hli, hwi, world.x[j], world.y[j], Math.cos(world.yaw[j]), Math.sin(world.yaw[j]), hlj, hwj)) return 0;
    // the margins in full from GUARD_MARGIN_SPEED_MPS on, none for two at a standstill (one creeping past a standing car
    // at real size clears it)
    const f = Math.min(1, Math.max(world.speed(i), world.speed(j)) / GUARD_MARGIN_SPEED_MPS);
    const Li = hli + f * o.marginLon, Wi = hwi + f * o.marginLat, Lj = hlj + f * o.marginLon, Wj = hwj + f * o.marginLat;
    const far = Math.hypot(Li, Wi) + Math.hypot(Lj, Wj);
    const H = this.H;
    this.work.pairs++;
    for (let k = 1; k <= steps; k++) {
      const b = i * H + k - 1, c = j * H + k - 1;
      const dx = this.px[c] - this.px[b], dy = this.py[c] - this.py[b];
      if (dx * dx + dy * dy > far * far) continue;
      if (obbOverlapCS(this.px[b], this.py[b], this.pc[b], this.ps[b], Li, Wi, this.px[c], this.py[c], this.pc[c], this.ps[c], Lj, Wj)) return k;
    }
    return 0;
  }

  /**
   * Rolls slot i on for H steps: an NPC with its chosen controls (braking no further than to a stop), any other
   * vehicle at its velocity; returns how far it reaches within horizonSteps from where it is plus its half
   * diagonal [m] (the pairs are found within that; a vehicle held for already is checked further by slot)
   */
  private roll(world: World, i: number, controls: ContinuousControls): number {
    const H = this.H, o = this.options, hs = o.horizonSteps;
    const s = this.st;
    s.x = world.x[i]; s.y = world.y[i]; s.yaw = world.yaw[i]; s.vx = world.vx[i]; s.vy = world.vy[i];
    const npc = world.kind[i] === AgentKind.Controlled && controls.use[i] === 1;
    const accel = npc ? controls.accel[i] : 0, steer = npc ? controls.steer[i] : 0;
    let far = 0;
    for (let k = 1; k <= H; k++) {
      if (npc) {
        const v = Math.hypot(s.vx, s.vy);
        stepBicycle(s, Math.max(accel, -v / STEP_DT), steer, world.length[i]);
      } else {
        s.x += s.vx * STEP_DT;
        s.y += s.vy * STEP_DT;
      }
      const b = i * H + k - 1;
      this.px[b] = s.x; this.py[b] = s.y; this.pc[b] = Math.cos(s.yaw); this.ps[b] = Math.sin(s.yaw);
      const d = Math.hypot(s.x - world.x[i], s.y - world.y[i]);
      if (k <= hs && d > far) far = d;
    }
    return far + Math.hypot(0.5 * world.length[i] + o.marginLon, 0.5 * world.width[i] + o.marginLat);
  }
}
