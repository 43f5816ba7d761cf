/**
 * The story runner on a straight road, the ego moved by the test: impossible set-ups refused before the run, a
 * CCRb-like case whose verdict flips with the ego's braking, trigger semantics, a lane change landing on the
 * neighbour lane's centre in exactly its duration, determinism, and "not started" after the start timeout.
 */
import { describe, expect, it } from 'vitest';
import { parseStory } from '../../../src/scenario/story/parse.js';
import { StoryRefused, StoryRunner } from '../../../src/scenario/story/runner.js';
import type { ActorPose } from '../../../src/scenario/story/world.js';
import { LANE_WIDTH, ego, runStory, straightRoad, ttcAhead } from './roads.js';

const twoLanes = straightRoad(2);
const oneLane = straightRoad(1);

function problems(doc: unknown, net = twoLanes, vehicles = [ego(100, 50)]) {
  return new StoryRunner(parseStory(doc, 'case.yaml'), net).validate({ t: 0, vehicles });
}

describe('story: refused before the run', () => {
  const cutIn = (lane: string) => ({
    actors: [{ id: 'cutter', start: { ahead_of: 'sim1', gap_m: 20, lane, speed_kmh: 40 } }],
    events: [{ id: 'cut', trigger: { ttc: { from: 'sim1', to: 'cutter', below_s: 3 } }, actions: [{ actor: 'cutter', lane_change: { to: 'left', duration_s: 2 } }] }],
  });

  it('a cut-in on a one-lane road', () => {
    expect(problems(cutIn('same'), oneLane)).toEqual([
      { key: 'story.events[0].actions[0].lane_change.to', message: 'cutter starts on lane R and no lane along its way has a lane to its left: a lane change left is impossible' },
    ]);
    // the same story on two lanes runs
    expect(problems(cutIn('same'), twoLanes)).toEqual([]);
    // placed in a lane that is not there
    expect(problems(cutIn('left'), oneLane)[0]).toEqual({ key: 'story.actors[0].start', message: 'there is no lane to the left of lane R ahead of sim1' });
  });

  it('unknown vehicles, lanes and junctions; actors off the map or on top of the ego', () => {
    const doc = {
      actors: [
        { id: 'a', start: { lane: 'R', s_m: 2000 } },
        { id: 'b', start: { lane: 'X9', s_m: 10 } },
        { id: 'c', start: { ahead_of: 'sim2', gap_m: 10 } },
        { id: 'd', start: { lane: 'L', s_m: 31 } },
        { id: 'e', start: { x: 50, y: 40 } },
      ],
      events: [{ id: 'go', trigger: { headway: { from: 'sim7', to: 'a', below_s: 1 } }, actions: [{ actor: 'a', follow_route: ['R', 'L'] }, { set_signal: { junction: 'J9', phase: 1 } }] }],
      criteria: [{ min_distance: { ego: 'ego', m: 1 } }],
    };
    const spec = parseStory(doc, 'case.yaml');
    const runner = new StoryRunner(spec, twoLanes);
    const world = { t: 0, vehicles: [ego(100, 50), ego(30, 0, 'npc3', LANE_WIDTH)], junctions: ['J1'] };
    const p = runner.validate(world);
    const byKey = Object.fromEntries(p.map((x) => [x.key, x.message]));
    expect(byKey['story.actors[1].start.lane']).toBe("unknown lane 'X9' (the map's lanes: R, L)");
    expect(byKey['story.actors[2].start.ahead_of']).toMatch(/^unknown vehicle 'sim2' \(vehicles: a, b, c, d, e, sim1, npc3\)$/);
    expect(byKey['story.events[0].trigger.headway.from']).toMatch(/^unknown vehicle 'sim7'/);
    expect(byKey['story.criteria[0].min_distance.ego']).toMatch(/^unknown vehicle 'ego'/);
    expect(byKey['story.events[0].actions[1].set_signal.junction']).toBe("unknown junction 'J9' (signalised junctions: J1)");
    expect(byKey['story.events[0].actions[0].follow_route[1]']).toBe('lane R does not lead to lane L (it leads to nothing)');
    expect(byKey['story.actors[0].start']).toBe('off the map: lane R is 1000.0 m long, s_m is 2000');
    expect(byKey['story.actors[3].start']).toBe('d would start overlapping npc3');
    expect(byKey['story.actors[2].start']).toBeUndefined(); // said once, at its ahead_of
    expect(byKey['story.actors[4].start']).toBe('off the map: no lane within 3 m of (50, 40)');
    expect(() => runner.place(world, runner.newPoses())).toThrow(StoryRefused);
    expect(() => runner.place(world, runner.newPoses())).toThrow(/^case\.yaml: the story cannot run here:\n {2}story\.actors\[1\]\.start\.lane: unknown lane 'X9'/);
  });
});

/** CCRb: the lead 12 m ahead at 50 km/h like the ego brakes at 6 m/s² after 1 s */
const ccrb = {
  actors: [{ id: 'lead', start: { ahead_of: 'sim1', gap_m: 12, speed_kmh: 50 } }],
  events: [{ id: 'brake', trigger: { after_s: 1 }, actions: [{ actor: 'lead', speed: { target_kmh: 0, accel_mps2: 6 } }] }],
  criteria: [{ no_collision: 'sim1' }, { min_distance: { ego: 'sim1', to: 'lead', m: 0.5 } }, { peak_decel: { ego: 'sim1', max_mps2: 10 } }, { stopped_before: { ego: 'sim1', point: { actor: 'lead' } } }],
  end: { any: [{ collision: 'sim1' }, { stopped: { of: 'sim1', for_s: 1 } }, { after_s: 20 }] },
};

/** an AEB: full braking (9 m/s²) once TTC to the lead is below 2 s */
const aeb = (e: ReturnType<typeof ego>) => (_t: number, poses: readonly ActorPose[]) => (ttcAhead(e, poses[0]) < 2 ? -9 : 0);

describe('story: CCRb with a scripted ego', () => {
  it('an ego that brakes at TTC < 2 s passes; one that never brakes fails by collision', () => {
    const braking = ego(100, 50);
    const good = runStory(ccrb, twoLanes, [braking], aeb(braking));
    expect(good.result.status).toBe('passed');
    expect(good.result.reason).toBe('end condition');
    // done at the first step end past 1 s + 2.31 s of braking
    expect(good.result.events).toEqual([{ id: 'brake', started_s: 1, done_s: expect.closeTo(3.4, 9), executions: 1 }]);
    const crit = Object.fromEntries(good.result.criteria.map((c) => [c.name, c]));
    expect(crit.no_collision).toMatchObject({ verdict: 'pass', value: null });
    expect(crit.min_distance.verdict).toBe('pass');
    expect(crit.min_distance.value).toBeGreaterThan(0.5); // 9 m/s² at TTC 2 s stops the ego 0.74 m short
    expect(crit.peak_decel).toMatchObject({ verdict: 'pass', value: expect.closeTo(9, 9) });
    expect(crit.stopped_before.verdict).toBe('pass');
    // the lead stopped where 50 km/h braked at 6 m/s² stops: v²/2a past where it was at 1 s
    const lead = good.poses[0];
    expect(lead.speed).toBe(0);
    const leadStart = 100 + 4.5 / 2 + 12 + 4.5 / 2;
    expect(lead.x).toBeCloseTo(leadStart + 50 / 3.6 + (50 / 3.6) ** 2 / 12, 6);

    const blind = ego(100, 50);
    const bad = runStory(ccrb, twoLanes, [blind], () => 0);
    expect(bad.result.status).toBe('failed');
    const c2 = Object.fromEntries(bad.result.criteria.map((c) => [c.name, c]));
    expect(c2.no_collision).toMatchObject({ verdict: 'fail', value: 'lead', at_s: expect.closeTo(3.1, 9), detail: 'sim1 hit lead at 3.10 s' });
    expect(c2.min_distance).toMatchObject({ verdict: 'fail', value: 0 });
    expect(c2.stopped_before.verdict).toBe('fail');
    expect(bad.happenings.filter((h) => h.kind === 'criterion_failed').map((h) => h.id)).toEqual(expect.arrayContaining(['no_collision', 'min_distance', 'stopped_before']));
    // the reason names the criterion that failed first and its figure; why it ended is kept apart
    expect(bad.result.reason).toMatch(/^min_distance failed: distance to lead 0\.\d+ m < 0\.5 m at \d+\.\d\d s; also failed: (no_collision, stopped_before|stopped_before, no_collision)$/);
    expect(bad.result.ended_by).toBe('end condition');
    expect(bad.happenings.at(-1)).toMatchObject({ kind: 'end', id: 'failed', detail: `${bad.result.reason} (ended by end condition)` });
  });

  it('is deterministic: the same ego inputs give the same actor motion and verdict', () => {
    const once = () => {
      const e = ego(100, 50);
      const r = runStory(ccrb, twoLanes, [e], aeb(e));
      return { trace: r.trace, result: JSON.stringify(r.result), happenings: JSON.stringify(r.happenings) };
    };
    const a = once(), b = once();
    expect(b.trace).toEqual(a.trace);
    expect(b.result).toBe(a.result);
    expect(b.happenings).toBe(a.happenings);
  });
});

describe('story: triggers and actions', () => {
  it('a lane change reaches the neighbour lane centre in exactly duration_s (sinusoidal: half way at half time)', () => {
    const doc = {
      actors: [{ id: 'car', start: { lane: 'R', s_m: 200, speed_kmh: 36 } }],
      events: [{ id: 'move', trigger: { after_s: 1 }, actions: [{ actor: 'car', lane_change: { to: 'left', duration_s: 2 } }] }],
    };
    const ys: number[] = [];
    const yaws: number[] = [];
    const r = runStory(doc, twoLanes, [ego(0, 0)], (t, poses) => {
      ys[Math.round(t * 10)] = poses[0].y;
      yaws[Math.round(t * 10)] = poses[0].yaw;
      return 0;
    }, 0.1, 40);
    expect(ys[10]).toBe(0);
    expect(ys[20]).toBeCloseTo(LANE_WIDTH / 2, 6);
    expect(ys[29]).toBeLessThan(LANE_WIDTH - 1e-3);
    expect(ys[30]).toBeCloseTo(LANE_WIDTH, 5);
    expect(ys[39]).toBeCloseTo(LANE_WIDTH, 5);
    // turned towards the left lane while crossing (peak lateral rate π/2·3.5/2 m/s at 10 m/s), straight after
    expect(yaws[20]).toBeCloseTo(Math.atan2((Math.PI / 2) * (LANE_WIDTH / 2), 10), 6);
    expect(yaws[31]).toBe(0);
    expect(r.poses[0]).toMatchObject({ lane: 'L', offset: 0 });
    expect(r.happenings.find((h) => h.kind === 'action_done')).toEqual({ t: expect.closeTo(3, 9), kind: 'action_done', id: 'move.0', detail: 'lane_change' });
    expect(r.result.events[0]).toEqual({ id: 'move', started_s: 1, done_s: expect.closeTo(3, 9), executions: 1 });
  });

  it('all / any, event_done with a delay, priority override and skip', () => {
    const doc = {
      actors: [{ id: 'car', start: { lane: 'R', s_m: 300, speed_kmh: 36 } }],
      events: [
        // 20 → 0 km/h over 2 s, at 1 s
        { id: 'slow', trigger: { all: [{ after_s: 1 }, { speed: { of: 'car', above_kmh: 30 } }] }, actions: [{ actor: 'car', speed: { target_kmh: 0, duration_s: 2 } }] },
        // 1.5 s after slow is done (at 3 s): 4.5 s
        { id: 'go', trigger: { event_done: { event: 'slow', plus_s: 1.5 } }, actions: [{ actor: 'car', speed: { target_kmh: 18, accel_mps2: 1 } }] },
        // any: the car standing, or 100 s: at 3 s (standing from 3 s on)
        { id: 'mark', trigger: { any: [{ at_s: 100 }, { stopped: 'car' }] }, actions: [{ actor: 'car', follow_route: ['R'] }] },
        // at 5 s, while go runs (till 9.5 s): skip waits; override at 6 s stops go
        { id: 'polite', trigger: { at_s: 5 }, priority: 'skip', actions: [{ actor: 'car', stop: { decel_mps2: 2 } }] },
        { id: 'rude', trigger: { at_s: 6 }, priority: 'override', actions: [{ actor: 'car', speed: { target_kmh: 36, accel_mps2: 2 } }] },
      ],
    };
    const r = runStory(doc, twoLanes, [ego(0, 0)], () => 0, 0.1, 120);
    const ev = Object.fromEntries(r.result.events.map((e) => [e.id, e]));
    expect(ev.slow).toMatchObject({ started_s: 1, done_s: expect.closeTo(3, 9) });
    expect(ev.mark.started_s).toBeCloseTo(3, 9);
    expect(ev.go.started_s).toBeCloseTo(4.5, 9);
    expect(ev.go.done_s).toBeCloseTo(6, 9); // stopped by rude
    expect(ev.rude.started_s).toBeCloseTo(6, 9);
    // polite waited (said once) while go, then rude ran; it starts the step after rude is done (1.5 → 10 m/s at 2 m/s²: 10.25 s)
    expect(r.happenings.filter((h) => h.id === 'polite').map((h) => [h.kind, Math.round(h.t * 10) / 10])).toEqual([['event_skipped', 5], ['event_started', 10.3]]);
    expect(ev.rude.done_s).toBeCloseTo(10.3, 9);
    expect(r.happenings.find((h) => h.kind === 'event_stopped')).toMatchObject({ id: 'go', detail: 'overridden by rude', t: expect.closeTo(6, 9) });
    expect(r.happenings.find((h) => h.kind === 'action_overridden')).toMatchObject({ id: 'go.0' });
  });

  it('ttc_below fires when the ego closes in: a cut-in at TTC 3 s', () => {
    const doc = {
      actors: [{ id: 'cutter', start: { ahead_of: 'sim1', gap_m: 40, lane: 'left', speed_kmh: 30 } }],
      events: [{ id: 'cut', trigger: { ttc: { from: 'sim1', to: 'cutter', below_s: 3 } }, actions: [{ actor: 'cutter', lane_change: { to: 'right', duration_s: 1.5 } }] }],
      criteria: [{ min_ttc: { ego: 'sim1', s: 1 } }],
    };
    const e = ego(100, 60);
    const r = runStory(doc, twoLanes, [e], () => 0, 0.1, 100);
    // gap 40 m closing at 30 km/h: TTC 3 s when the gap is 25 m, 1.8 s after the start (the first step past it)
    const at = r.result.events[0].started_s!;
    expect(at).toBeGreaterThanOrEqual(1.8 - 1e-9);
    expect(at).toBeLessThanOrEqual(1.9 + 1e-9);
    expect(r.poses[0]).toMatchObject({ lane: 'R', offset: 0 });
    // in the ego's path only once it cut in: TTC then falls below 1 s, and it runs into the cutter
    const ttc = r.result.criteria[0];
    expect(ttc.verdict).toBe('fail');
    expect(ttc.value).toBe(0);
  });

  it('keep_time_gap holds the actor 1.5 s ahead of the ego; hand_to_policy and take_from_policy are commands', () => {
    const doc = {
      actors: [{ id: 'pace', start: { ahead_of: 'sim1', gap_m: 10, speed_kmh: 50 } }],
      events: [
        { id: 'keep', actions: [{ actor: 'pace', keep_time_gap: { to: 'sim1', gap_s: 1.5 } }] },
        { id: 'free', trigger: { at_s: 30 }, actions: [{ actor: 'pace', hand_to_policy: true }] },
        { id: 'back', trigger: { at_s: 31 }, actions: [{ actor: 'pace', take_from_policy: true }] },
      ],
    };
    const e = ego(100, 50);
    let gap = NaN, speed = NaN;
    const r = runStory(doc, twoLanes, [e], (t, poses) => {
      if (Math.abs(t - 29.9) < 1e-6) {
        gap = (poses[0].x - e.x - 4.5) / e.speed;
        speed = poses[0].speed;
      }
      return 0;
    }, 0.1, 330);
    expect(gap).toBeCloseTo(1.5, 2);
    expect(speed).toBeCloseTo(e.speed, 3);
    expect(r.commands).toEqual([{ kind: 'hand_to_policy', actor: 'pace', t: expect.closeTo(30, 9) }, { kind: 'take_from_policy', actor: 'pace', t: expect.closeTo(31, 9) }]);
    // keep_time_gap runs until something ends it: here the hand-over to the policy
    expect(r.result.events.map((x) => x.done_s)).toEqual([expect.closeTo(30, 9), expect.closeTo(30, 9), expect.closeTo(31, 9)]);
    expect(r.poses[0].controller).toBe('script');
  });

  it('a live attempt whose start trigger never fires is "not started" after start_timeout_s, never passed', () => {
    const doc = {
      actors: [{ id: 'lead', start: { lane: 'R', s_m: 500 } }],
      events: [{ id: 'go', trigger: { reach: { of: 'sim1', point: { lane: 'R', s_m: 400 }, radius_m: 3 } }, actions: [{ actor: 'lead', speed: { target_kmh: 20, accel_mps2: 2 } }] }],
      criteria: [{ no_collision: 'sim1' }],
      start_timeout_s: 5,
    };
    const r = runStory(doc, twoLanes, [ego(100, 0)], () => 0, 0.1, 200);
    expect(r.steps).toBe(51);
    expect(r.result).toMatchObject({ status: 'not_started', reason: 'start timeout: no event started within 5 s', end_s: 5 });
    // without a timeout, the host's end says the same
    const r2 = runStory({ ...doc, start_timeout_s: undefined }, twoLanes, [ego(100, 0)], () => 0, 0.1, 20);
    expect(r2.result).toMatchObject({ status: 'not_started', reason: 'finished by the host', end_s: 2 });
  });

  it('a lane change the road does not allow where it is triggered aborts the attempt', () => {
    // the car starts on L (left lane) and is told to go left again: L has no left neighbour, but R has, so validate lets it through
    const doc = {
      actors: [{ id: 'car', start: { lane: 'L', s_m: 50, speed_kmh: 30 } }],
      events: [{ id: 'left', trigger: { after_s: 1 }, actions: [{ actor: 'car', lane_change: { to: 'left', duration_s: 2 } }] }],
    };
    const r = runStory(doc, twoLanes, [ego(0, 0)], () => 0);
    expect(r.result).toMatchObject({ status: 'aborted', reason: 'story.events[0].actions[0]: car is on lane L, which has no lane to its left', end_s: 1 });
  });
});

describe('story: the start line', () => {
  /** the gate as a story's end: ended exactly in the step the line opens */
  const gate = (extra: Record<string, unknown> = {}) => ({ end: { start_line: { of: 'sim1', point: { lane: 'R', s_m: 100 }, speed_kmh: 50, ...extra } } });

  it('opens in the step the front bumper crosses the line within speed ± tolerance, not before (a crossing, not a radius)', () => {
    // front bumper at x + 2.25: 90 at t 0, 50 km/h (1.389 m a step): it reaches 100 between t 0.7 and 0.8
    const r = runStory(gate(), twoLanes, [ego(87.75, 50)], () => 0);
    expect(r.result.end_s).toBeCloseTo(0.8, 9);
    expect(r.happenings.filter((h) => h.kind === 'start_line')).toEqual([{ t: expect.closeTo(0.8, 9), kind: 'start_line', id: 'sim1', detail: 'sim1 crossed the start line at 50.0 km/h, within 50 ± 5 km/h' }]);
    // standing on the line, or already past it, never opens it
    for (const x of [97.75, 98, 120]) expect(runStory(gate(), twoLanes, [ego(x, 0)], () => 0, 0.1, 30).result.end_s).toBe(3);
    expect(runStory(gate(), twoLanes, [ego(120, 50)], () => 0, 0.1, 30).happenings.some((h) => h.kind === 'start_line')).toBe(false);
  });

  it('a crossing outside the band says so and the gate stays closed; the band is speed ± tolerance_kmh (default 5)', () => {
    const r = runStory(gate(), twoLanes, [ego(87.75, 38.2)], () => 0, 0.1, 30);
    expect(r.result.end_s).toBe(3);
    expect(r.happenings.filter((h) => h.kind === 'start_line').map((h) => h.detail)).toEqual(['sim1 crossed the start line at 38.2 km/h, outside 50 ± 5 km/h: the gate stays closed']);
    expect(runStory(gate({ tolerance_kmh: 15 }), twoLanes, [ego(87.75, 38.2)], () => 0).result.end_s).toBeLessThan(3);
    // just outside: enough decimals that the figure is outside too
    const edge = runStory(gate(), twoLanes, [ego(87.75, 44.999)], () => 0, 0.1, 30);
    expect(edge.happenings.find((h) => h.kind === 'start_line')!.detail).toBe('sim1 crossed the start line at 44.999 km/h, outside 50 ± 5 km/h: the gate stays closed');
  });

  it('runs across its own lane only: a car crossing level with it in the next lane does not open it', () => {
    expect(runStory(gate(), twoLanes, [ego(87.75, 50, 'sim1', LANE_WIDTH)], () => 0, 0.1, 30).result.end_s).toBe(3);
  });

  it('is refused before the run on an unknown lane or past the lane\'s end', () => {
    const bad = (point: unknown) => problems({ end: { start_line: { of: 'sim1', point, speed_kmh: 50 } } });
    expect(bad({ lane: 'X', s_m: 3 })).toEqual([{ key: 'story.end.start_line.point.lane', message: "unknown lane 'X' (the map's lanes: R, L)" }]);
    expect(bad({ lane: 'R', s_m: 1200 })).toEqual([{ key: 'story.end.start_line.point.s_m', message: 'off the map: lane R is 1000.0 m long, s_m is 1200' }]);
  });
});

describe('story: after the end (after_end)', () => {
  /** a car 30 m ahead at 30 km/h; the attempt ends at 1 s; the test steps on 4 s more, as a live host does */
  function after(mode: string) {
    const doc = { actors: [{ id: 'car', start: { ahead_of: 'sim1', gap_m: 30, speed_kmh: 30 } }], criteria: [{ no_collision: 'sim1' }], end: { after_s: 1 }, after_end: mode };
    const runner = new StoryRunner(parseStory(doc, 'x'), twoLanes);
    const poses = runner.newPoses();
    const e = ego(100, 0);
    runner.place({ t: 0, vehicles: [e] }, poses);
    const world = { t: 0, vehicles: [e, ...poses] };
    const speeds: number[] = [];
    let closed: unknown = null;
    for (let k = 0; k <= 50; k++) {
      world.t = k * 0.1;
      const r = runner.step(world, 0.1, poses);
      if (runner.isEnded && closed === null) closed = JSON.stringify(runner.result());
      // the record is closed: nothing more happens in it
      if (k > 10) expect(r.happenings).toEqual([]);
      speeds.push(poses[0].speed);
    }
    expect(JSON.stringify(runner.result())).toBe(closed);
    return { speeds, x: poses[0].x };
  }

  it('continue: the script goes on as it was; stop: brakes to a standstill at 3 m/s²; leave: takes up the lane\'s speed (none known here: keeps its own)', () => {
    const go = after('continue');
    expect(go.speeds.at(-1)).toBeCloseTo(30 / 3.6, 9);
    expect(go.x).toBeCloseTo(100 + 4.5 / 2 + 30 + 4.5 / 2 + (30 / 3.6) * 5.1, 6);
    const stop = after('stop');
    // from 8.33 m/s at 3 m/s²: standing 2.8 s after the end (1 s), and standing on
    expect(stop.speeds[20]).toBeCloseTo(30 / 3.6 - 3 * 1.1, 6);
    expect(stop.speeds.slice(40)).toEqual(Array(11).fill(0));
    const leave = after('leave');
    expect(leave.speeds.at(-1)).toBeCloseTo(30 / 3.6, 9);
  });
});

describe('story: result before the end', () => {
  it('is running, JSON-serialisable', () => {
    const runner = new StoryRunner(parseStory(ccrb, 'x'), twoLanes);
    const poses = runner.newPoses();
    runner.place({ t: 0, vehicles: [ego(100, 50)] }, poses);
    runner.step({ t: 0, vehicles: [ego(100, 50), ...poses] }, 0.1, poses);
    const res = runner.result();
    expect(res.status).toBe('running');
    expect(JSON.parse(JSON.stringify(res))).toEqual(res);
  });
});
