/**
 * Two NPCs at a crossing: the one due there first has the right of way and assumes the other brakes. When the
 * other is too fast to stop short of the crossing, braking too stops the first one in its path (FMTC: a car
 * turning left stopped across the straight lane, and the straight one, braking hard, ran into it). It goes on
 * along its lane instead, where that keeps clear of everything as predicted.
 */
import { describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/index.js';
import { ACTION_ACCEL, ACTION_COUNT } from '../../src/policy/actions.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { SafetyShield, ShieldOutcome } from '../../src/traffic/shield.js';
import { makeWorld } from '../helpers/world-builder.js';

// two one-way lanes crossing at the origin: A along +x, B along +y
const lanes = new LaneNetwork(buildRoadEntities([
  { type: 'lane', geometry: [{ x: -200, y: 0 }, { x: 200, y: 0 }] },
  { type: 'lane', geometry: [{ x: 0, y: -200 }, { x: 0, y: 200 }] },
], { x: 0, y: 0 }));

/** NPC 0 on lane A 6 m before the crossing at 8 m/s; NPC 1 on lane B `gap` m before it at `speed` */
function choose(gap: number, speed: number): { accel: number; outcome: number } {
  const world = makeWorld([
    { x: -6, y: 0, yaw: 0, speed: 8, goal: [40, 0] },
    { x: 0, y: -gap, yaw: Math.PI / 2, speed, goal: [0, 40] },
  ]);
  const shield = new SafetyShield(world.capacity, null, lanes);
  shield.prepare(world);
  // a policy that wants to keep its speed and go straight on
  const logits = new Float32Array(ACTION_COUNT);
  const best = ACTION_ACCEL.findIndex((a, k) => a === 0 && k % 13 === 6);
  logits[best] = 10;
  const out = { accel: 0, steer: 0 };
  shield.chooseFor(world, 0, logits, 0, best, (_s, a) => a, out);
  return { accel: out.accel, outcome: shield.outcome[0] };
}

describe('shield: clearing a crossing the other cannot stop short of', () => {
  it('goes on instead of stopping in the path of a car too fast to stop before the crossing', () => {
    // 22 m away at 14 m/s: braking at 4 m/s² it stops 2.5 m past the crossing
    const r = choose(22, 14);
    expect(r.outcome).toBe(ShieldOutcome.Emergency);
    expect(r.accel).toBeGreaterThanOrEqual(0);
  });

  it('still brakes or goes on as usual when the other can stop short (no emergency)', () => {
    const r = choose(40, 8);
    expect(r.outcome).not.toBe(ShieldOutcome.Emergency);
  });
});
