/**
 * The contact guard (src/traffic/contact-guard.ts), the live scene's last resort against NPC–NPC contact: two
 * NPCs meeting on a bend of a narrow two-way road, each cutting its bend (FMTC's S-bend near (122, 96): lane
 * centres 3.5 m apart, NPCs 0.5–1.2 m left of theirs), touch at their real size without it and pass clear with
 * it; an NPC heading into a car standing across its way brakes, the standing car is left alone, and two going
 * the same way are left to car-following; one braked for another coming out of a turn across its way keeps
 * braking (the hold) instead of going on whenever that one's held steering rolls it away.
 */
import { describe, expect, it } from 'vitest';
import { STEP_DT } from '../../src/traffic/bicycle.js';
import { ContactGuard, DEFAULT_CONTACT_GUARD_OPTIONS } from '../../src/traffic/contact-guard.js';
import { RealContacts } from '../../src/traffic/contacts.js';
import { moveAgents, type ContinuousControls } from '../../src/traffic/movement.js';
import { steerFor } from '../../src/traffic/shield.js';
import type { World } from '../../src/traffic/world.js';
import { makeWorld } from '../helpers/world-builder.js';

/** the bend: two lanes round the origin, right-hand traffic (CCW on the outer lane, a left bend; CW inside) */
const R_OUTER = 31.75, R_INNER = 28.25;
const SPEED = 8;

/** Pure pursuit towards the circle of radius r round the origin, driven counter-clockwise (dir 1) or clockwise (−1). */
function steerToCircle(w: World, i: number, r: number, dir: number, accel: number): number {
  const x = w.x[i], y = w.y[i];
  const ld = Math.max(6, 1.2 * w.speed(i));
  const th = Math.atan2(y, x) + (dir * ld) / r;
  const alpha = Math.atan2(r * Math.sin(th) - y, r * Math.cos(th) - x) - w.yaw[i];
  const turn = ((2 * Math.sin(alpha)) / ld) * w.speed(i) * STEP_DT;
  return steerFor(turn, w.speed(i) + 0.5 * accel * STEP_DT, w.length[i]);
}

/**
 * NPC 0 on the outer lane and NPC 1 on the inner one, 40° of arc apart, heading for each other; each means to
 * hold a line `cut` m left of its lane's centre (what the policy does on a bend). Runs 6 s; returns the contact
 * steps at real size and how often the guard acted.
 */
function meetOnBend(cut: number, guarded: boolean): { contacts: number; braked: number } {
  const a0 = -0.35, a1 = 0.35;
  const r0 = R_OUTER - cut, r1 = R_INNER + cut;
  const world = makeWorld([
    { x: r0 * Math.cos(a0), y: r0 * Math.sin(a0), yaw: a0 + Math.PI / 2, speed: SPEED },
    { x: r1 * Math.cos(a1), y: r1 * Math.sin(a1), yaw: a1 - Math.PI / 2, speed: SPEED },
  ]);
  const controls: ContinuousControls = { use: new Uint8Array(2).fill(1), accel: new Float32Array(2), steer: new Float32Array(2) };
  const guard = new ContactGuard(2);
  const contacts = new RealContacts(2);
  // back to the lane's centre: the shield's pure pursuit towards its lane path
  const laneSteer = (s: number, accel: number) => (s === 0 ? steerToCircle(world, 0, R_OUTER, 1, accel) : steerToCircle(world, 1, R_INNER, -1, accel));
  let steps = 0, braked = 0;
  for (let k = 0; k < 60; k++) {
    controls.steer[0] = steerToCircle(world, 0, r0, 1, 0);
    controls.steer[1] = steerToCircle(world, 1, r1, -1, 0);
    controls.accel.fill(0);
    if (guarded) {
      guard.apply(world, controls, laneSteer);
      braked += guard.braked[0] + guard.braked[1];
    }
    moveAgents(world, [0, 0], controls);
    contacts.detect(world);
    steps += contacts.contact[0];
  }
  return { contacts: steps, braked };
}

describe('contact guard: oncoming NPCs cutting a bend', () => {
  it('touch at real size without the guard', () => {
    expect(meetOnBend(1.1, false).contacts).toBeGreaterThan(0);
  });

  it('pass clear with it, each steered back towards its lane', () => {
    const r = meetOnBend(1.1, true);
    expect(r.braked).toBeGreaterThan(0);
    expect(r.contacts).toBe(0);
  });

  it('leaves two that keep to their lanes alone', () => {
    expect(meetOnBend(0, true)).toEqual({ contacts: 0, braked: 0 });
  });
});

describe('contact guard: a car standing in the way', () => {
  it('brakes the NPC heading into the side of a car standing across its way, not the standing one', () => {
    const world = makeWorld([
      { x: 0, y: 0, yaw: 0, speed: 10 },
      { x: 12, y: 0, yaw: Math.PI / 2, speed: 0 },
    ]);
    const controls: ContinuousControls = { use: new Uint8Array(2).fill(1), accel: Float32Array.from([0, 1]), steer: new Float32Array(2) };
    const guard = new ContactGuard(2);
    guard.apply(world, controls, () => NaN);
    expect(guard.braked[0]).toBe(1);
    expect(controls.accel[0]).toBeCloseTo(-guard.options.decel, 5);
    expect(guard.braked[1]).toBe(0);
    expect(controls.accel[1]).toBe(1);
    // what each waits for (NpcView.waitingFor takes it first: two braked for each other are a gridlock ring)
    expect(guard.brakedForSlot[0]).toBe(1);
    expect(guard.brakedForSlot[1]).toBe(-1);
  });

  it('lets one far enough back keep its speed', () => {
    const world = makeWorld([
      { x: 0, y: 0, yaw: 0, speed: 10 },
      { x: 40, y: 0, yaw: Math.PI / 2, speed: 0 },
    ]);
    const controls: ContinuousControls = { use: new Uint8Array(2).fill(1), accel: new Float32Array(2), steer: new Float32Array(2) };
    const guard = new ContactGuard(2);
    guard.apply(world, controls, () => NaN);
    expect(guard.braked[0]).toBe(0);
    expect(controls.accel[0]).toBe(0);
  });

  it('leaves a follower to car-following (two going the same way)', () => {
    const world = makeWorld([
      { x: 0, y: 0, yaw: 0, speed: 10 },
      { x: 12, y: 0, yaw: 0, speed: 0 },
    ]);
    const controls: ContinuousControls = { use: new Uint8Array(2).fill(1), accel: new Float32Array(2), steer: new Float32Array(2) };
    const guard = new ContactGuard(2);
    guard.apply(world, controls, () => NaN);
    expect(guard.braked[0]).toBe(0);
  });

  it('rejects a look-ahead that is not a whole number of steps and braking that is not positive', () => {
    expect(() => new ContactGuard(2, { horizonSteps: 0.5, holdHorizonSteps: 30, decel: 6, marginLon: 0.2, marginLat: 0.1 })).toThrow(/horizonSteps/);
    expect(() => new ContactGuard(2, { horizonSteps: 10, holdHorizonSteps: 30, decel: 0, marginLon: 0.2, marginLat: 0.1 })).toThrow(/decel/);
  });
});

/**
 * FMTC × 30 seed 3 at J6 (t ≈ 434 s), in a plain frame: NPC 0 drives at 10 m/s along its lane (the x axis) with
 * its policy asking for +4 m/s² throughout; NPC 1, 14 m ahead and 4 m to its left, comes out of a right turn
 * across 0's way (steering right for 0.6 s, then straight on), speeding up, then braking to a stop in 0's lane. Rolled
 * on with its steering held, 1 keeps turning away from 0's path, so each step the guard braked 0 it let it go again
 * on the next. Both run under the guard (as in the engine). Returns real-size contact steps and where they stand.
 */
function outOfATurn(holdHorizonSteps: number): { contacts: number; gap: number; speed0: number } {
  const world = makeWorld([
    { x: 0, y: 0, yaw: 0, speed: 10 },
    { x: 14, y: 4, yaw: -1.7, speed: 5 },
  ]);
  const controls: ContinuousControls = { use: new Uint8Array(2).fill(1), accel: new Float32Array(2), steer: new Float32Array(2) };
  const guard = new ContactGuard(2, { ...DEFAULT_CONTACT_GUARD_OPTIONS, holdHorizonSteps });
  const contacts = new RealContacts(2);
  let steps = 0;
  for (let k = 0; k < 50; k++) {
    controls.accel[0] = 4;
    controls.steer[0] = 0;
    controls.accel[1] = k < 8 ? 2 : Math.max(-4, -world.speed(1) / STEP_DT);
    controls.steer[1] = k < 6 ? -0.6 : 0;
    // back to its lane: straight on for 0; 1 has none here
    guard.apply(world, controls, (s) => (s === 0 ? 0 : NaN));
    moveAgents(world, [0, 0], controls);
    contacts.detect(world);
    steps += contacts.contact[0];
  }
  return { contacts: steps, gap: Math.hypot(world.x[1] - world.x[0], world.y[1] - world.y[0]), speed0: world.speed(0) };
}

describe('contact guard: the hold', () => {
  it('without it, the NPC is let go between brakings and runs into the one that stops in its way', () => {
    expect(outOfATurn(0).contacts).toBeGreaterThan(0);
  });

  it('with it, the NPC keeps braking and stops short', () => {
    const r = outOfATurn(DEFAULT_CONTACT_GUARD_OPTIONS.holdHorizonSteps);
    expect(r.contacts).toBe(0);
    expect(r.speed0).toBeLessThan(0.1);
  });

  it('rejects a hold that is not a whole number of steps ≥ 0', () => {
    expect(() => new ContactGuard(2, { ...DEFAULT_CONTACT_GUARD_OPTIONS, holdHorizonSteps: -1 })).toThrow(/holdHorizonSteps/);
    expect(() => new ContactGuard(2, { ...DEFAULT_CONTACT_GUARD_OPTIONS, holdHorizonSteps: 1.5 })).toThrow(/holdHorizonSteps/);
  });
});
