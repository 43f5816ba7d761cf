/**
 * No vanishing traffic: after an attempt's end the scene runs on (as served live) and the story's actors with
 * it, as its after_end says — continue (the script goes on), stop (brakes to a standstill in lane), leave
 * (takes up the lane's speed) — and each leaves the scene only when it is more than remove_beyond_m from the
 * vehicle under test, at a reset, or when the next attempt is armed; an actor handed to the policy likewise.
 * The attempt's record stays as it was at the end. On the demo track through StoryHost, as `vils serve` runs
 * it; the car under test is a "real" one the test reports, standing at the start of R6.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile } from '../../../src/map/scene-json.js';
import { PolicySession } from '../../../src/policy/session.js';
import { directSink, parseStory, StoryHost } from '../../../src/scenario/index.js';
import { LiveScene } from '../../../src/scene/index.js';
import { POLICY_DT } from '../../../src/traffic/engine.js';
import { testModel } from '../../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

interface Step {
  t: number;
  /** the actor in the scene's snapshot (null: not there) */
  actor: { id: number; x: number; y: number; speed: number } | null;
  /** its distance from the car [m] */
  d: number;
}

/**
 * An attempt of a lead car 20 m ahead of the standing car at 30 km/h, ended at 2 s, then `steps` more steps of
 * the scene running on. `extra`: more of the story (after_end, remove_beyond_m, events).
 */
async function attempt(extra: Record<string, unknown>, steps: number, recedeMps = 0) {
  const scene = new LiveScene(TRACK, policy.fork(), { npc_target: 0, seed: 1 });
  scene.reset();
  const spec = parseStory({
    actors: [{ id: 'lead', start: { ahead_of: 'car', gap_m: 20, speed_kmh: 30 } }],
    criteria: [{ no_collision: 'car' }],
    end: { after_s: 2 },
    ...extra,
  }, 'after-end');
  const story = new StoryHost(spec, directSink(scene), [], { underTest: 'car' });
  // the car stands 5 m into R6; after the end it may move away back along R5 (as if driven off elsewhere)
  const r5 = scene.lanes.laneById('R5');
  const r5End = scene.lanes.lanes[r5].length;
  let car = scene.lanes.pose(scene.lanes.laneById('R6'), 5);
  const report = (t: number) => {
    const back = recedeMps * Math.max(0, t - 2);
    if (back > 5) car = scene.lanes.pose(r5, r5End - (back - 5));
    scene.updateEgo({ egoId: 'car', x: car.x, y: car.y, yaw: car.yaw, speed: 0, length: 4.6, width: 1.9 }, t);
  };
  report(0);
  story.arm(0, scene.snapshot(0));
  const seen: Step[] = [];
  let atEnd: string | null = null;
  let k = 0;
  const run = async (n: number) => {
    for (const stop = k + n; k < stop; k++) {
      const t = k * POLICY_DT;
      report(t);
      story.beforeBoundary(t);
      await scene.advanceTo(t);
      const snap = scene.snapshot(t);
      story.afterBoundary(t, snap);
      if (story.ended && atEnd === null) atEnd = JSON.stringify({ result: story.result(), happenings: story.happenings, trace: story.trace.toJSON() });
      // the lead as the frames list it: a scripted actor (actor: 'lead'), or the NPC the policy drives
      const a = snap.npcs.find((n) => n.actor === 'lead' || (extra.events !== undefined && n.actor === undefined)) ?? null;
      seen.push({ t, actor: a && { id: a.id, x: a.x, y: a.y, speed: a.speed }, d: a ? Math.hypot(a.x - car.x, a.y - car.y) : NaN });
    }
  };
  await run(21);
  expect(story.ended).toBe(true);
  await run(steps);
  // the record is closed at the end: result, happenings and trace as they were
  expect(JSON.stringify({ result: story.result(), happenings: story.happenings, trace: story.trace.toJSON() })).toBe(atEnd);
  return { scene, story, seen, run, t: () => k * POLICY_DT };
}

/** Every step: the actor is in the scene while within `beyond` of the car; once out, it stays out. */
function keptWithinRange(seen: readonly Step[], beyond: number): void {
  let last: Step | null = null;
  for (const s of seen) {
    if (s.actor) expect(last === null || last.actor !== null, `back at ${s.t}`).toBe(true);
    // gone: it was beyond the range when last seen (or moving there within the step)
    else if (last?.actor) expect(last.d, `vanished at ${s.t.toFixed(1)} s, ${last.d.toFixed(1)} m from the car`).toBeGreaterThan(beyond - 2);
    last = s;
  }
}

describe('story: after the end, the actors carry on (after_end) and leave only far from the car', () => {
  it('continue: the lead drives on at 30 km/h, stays in every frame within 150 m, and leaves the scene beyond it', async () => {
    const { seen } = await attempt({}, 200);
    const after = seen.slice(21);
    expect(after[0].actor).not.toBeNull();
    expect(after[0].actor!.speed).toBeCloseTo(30 / 3.6, 3);
    keptWithinRange(seen, 150);
    const gone = after.findIndex((s) => s.actor === null);
    expect(gone).toBeGreaterThan(100);
    expect(after[gone - 1].d).toBeGreaterThan(150);
    expect(after[gone - 1].d).toBeLessThan(152);
  }, 60_000);

  it('stop: it brakes to a standstill in lane at 3 m/s² and stays; a reset takes it away, and so does the next arm', async () => {
    const { seen, story, scene, t } = await attempt({ after_end: 'stop' }, 60);
    const after = seen.slice(21);
    expect(after.every((s) => s.actor !== null)).toBe(true);
    // from 8.33 m/s at 3 m/s²: 2.8 s to stand
    expect(after[10].actor!.speed).toBeCloseTo(30 / 3.6 - 3 * 1.1, 1);
    expect(after.slice(35).every((s) => s.actor!.speed === 0)).toBe(true);
    // standing in its lane (R6 or R1), not pushed off it
    const p = scene.lanes.locate(after.at(-1)!.actor!.x, after.at(-1)!.actor!.y, undefined, 1)!;
    expect(['R6', 'R1']).toContain(scene.lanes.lanes[p.lane].id);
    story.resetAttempt(t());
    expect(scene.snapshot(t()).npcs.some((n) => n.actor !== undefined)).toBe(false);

    const again = await attempt({ after_end: 'stop' }, 10);
    const before = again.scene.snapshot(again.t()).npcs.find((n) => n.actor === 'lead')!;
    again.story.arm(again.t(), again.scene.snapshot(again.t()));
    // the new attempt's lead is placed where the story says, the old one gone with the arm: one lead, a new id
    const leads = again.scene.snapshot(again.t()).npcs.filter((n) => n.actor === 'lead');
    expect(leads.length).toBeLessThanOrEqual(1);
    expect(leads.every((n) => n.id !== before.id || Math.hypot(n.x - before.x, n.y - before.y) > 1)).toBe(true);
  }, 60_000);

  it('leave: it takes up the lane\'s speed (50 km/h on R6 and R1) and leaves the scene beyond remove_beyond_m', async () => {
    const { seen } = await attempt({ after_end: 'leave', remove_beyond_m: 100 }, 150);
    const after = seen.slice(21);
    // 8.33 → 13.89 m/s at 2 m/s²: 2.8 s
    expect(Math.max(...after.filter((s) => s.actor).map((s) => s.actor!.speed))).toBeCloseTo(13.889, 2);
    keptWithinRange(seen, 100);
    expect(after.some((s) => s.actor === null)).toBe(true);
  }, 60_000);

  it('an actor handed to the policy stays an NPC of the scene after the end while within range, and leaves beyond it', async () => {
    // the NPC waits at the crossing's light 40 m on; the car moves away from it at 5 m/s
    const { seen, story, scene, t } = await attempt({ events: [{ id: 'free', trigger: { after_s: 0.5 }, actions: [{ actor: 'lead', hand_to_policy: true }] }], remove_beyond_m: 60 }, 150, 5);
    const after = seen.slice(21);
    expect(after[0].actor).not.toBeNull();
    keptWithinRange(seen, 60);
    expect(after.filter((s) => s.actor).length).toBeGreaterThan(10);
    expect(after.at(-1)!.actor).toBeNull();
    const npc = after[0].actor!.id;
    expect(npc).toBeLessThan(1_000_000);
    // still the same NPC for as long as it is in the scene
    expect(after.filter((s) => s.actor).every((s) => s.actor!.id === npc)).toBe(true);
    expect(scene.snapshot(t()).npcs.some((n) => n.id === npc)).toBe(false);
    story.resetAttempt(t());
  }, 60_000);
});
