import { describe, expect, it } from 'vitest';
import { stepBicycle, stepTurning } from '../../src/traffic/bicycle.js';
import { steerFor } from '../../src/traffic/shield.js';
import { SeededRandom } from '../../src/util/random.js';

/** uniform [0, 1) draws from the project's seeded generator */
function rng(seed: number): () => number {
  const r = new SeededRandom(seed);
  return () => r.next();
}

describe('stepTurning (the shield rollout\'s closed-form classic step)', () => {
  it('moves and turns a car as stepBicycle does with steerFor\'s steering, over random states, turns and braking', () => {
    const r = rng(11);
    let worstPos = 0, worstYaw = 0, clamped = 0, straight = 0;
    for (let n = 0; n < 20000; n++) {
      const speed = r() < 0.05 ? r() * 0.08 : r() * 20;
      const decel = r() < 0.3 ? 0 : Math.min(4, speed / 0.1) * r();
      const length = 3.5 + 2 * r();
      const yaw = (r() * 2 - 1) * Math.PI;
      // heading changes up to ±0.3 rad, some beyond what any steering gives at this speed
      const turn = (r() * 2 - 1) * (r() < 0.1 ? 2 : 0.3);
      const x = (r() - 0.5) * 2000, y = (r() - 0.5) * 2000;
      const want = { x, y, yaw, vx: speed * Math.cos(yaw), vy: speed * Math.sin(yaw) };
      const vm = speed - 0.05 * decel;
      stepBicycle(want, -decel, steerFor(turn, vm, length), length);
      const got = { x, y, yaw, c: Math.cos(yaw), sn: Math.sin(yaw) };
      stepTurning(got, speed, decel, turn, length);
      worstPos = Math.max(worstPos, Math.hypot(got.x - want.x, got.y - want.y));
      const dyaw = Math.abs(Math.atan2(Math.sin(got.yaw - want.yaw), Math.cos(got.yaw - want.yaw)));
      worstYaw = Math.max(worstYaw, dyaw);
      expect(got.c).toBe(Math.cos(got.yaw));
      expect(got.sn).toBe(Math.sin(got.yaw));
      if (vm < 0.05) straight++;
      else if (Math.abs((turn * length) / (vm * 0.1)) > Math.sqrt(3.99)) clamped++;
    }
    console.log(`worst position ${worstPos.toExponential(2)} m, heading ${worstYaw.toExponential(2)} rad; ${clamped} clamped, ${straight} straight`);
    // stepBicycle rounds the speed and tan δ to float32 (GPUDrive's arithmetic): that is all the difference
    expect(worstPos).toBeLessThan(1e-6);
    expect(worstYaw).toBeLessThan(1e-6);
    expect(clamped).toBeGreaterThan(100);
    expect(straight).toBeGreaterThan(100);
  });
});
