/**
 * People as story actors: `kind: pedestrian | cyclist` at their Euro NCAP targets' sizes, a crossing path at
 * right angles to a lane through an impact point given as a share of the ego's width (near or far side), the same
 * impact point for a person along the lane; contact judged at the person's real size; and every mistake in those
 * fields refused with its key path.
 */
import { describe, expect, it } from 'vitest';
import { parseStory } from '../../../src/scenario/story/parse.js';
import { impactOffset } from '../../../src/scenario/story/placement.js';
import { TARGET_SIZES } from '../../../src/scenario/story/targets.js';
import { ego, runStory, straightRoad } from './roads.js';

const crossing = (extra: Record<string, unknown> = {}, start: Record<string, unknown> = {}) => ({
  actors: [{ id: 'ped', kind: 'pedestrian', start: { cross: { lane: 'R', s_m: 100, from: 'near', distance_m: 4 }, impact: { of: 'sim1', percent: 25 }, speed_kmh: 0, ...start }, ...extra }],
  events: [{ id: 'go', trigger: { at_s: 1 }, actions: [{ actor: 'ped', speed: { target_kmh: 5, shape: 'step' } }] }],
  criteria: [{ no_collision: 'sim1' }],
});

describe('story: people', () => {
  it('a pedestrian is an EPTa (0.5 m × 0.5 m), a cyclist an EBTa (1.9 m × 0.6 m), a child an EPTc; a vehicle stays one', () => {
    const s = parseStory({
      actors: [
        { id: 'ped', kind: 'pedestrian', start: { lane: 'R', s_m: 10 } },
        { id: 'kid', kind: 'pedestrian', target: 'EPTc', start: { lane: 'R', s_m: 20 } },
        { id: 'bike', kind: 'cyclist', start: { lane: 'R', s_m: 30 } },
        { id: 'car', start: { lane: 'R', s_m: 40 } },
      ],
    }, 'case.yaml');
    expect(s.actors.map((a) => [a.kind, a.target, a.length, a.width])).toEqual([
      ['pedestrian', 'EPTa', 0.5, 0.5], ['pedestrian', 'EPTc', TARGET_SIZES.EPTc.length, TARGET_SIZES.EPTc.width], ['cyclist', 'EBTa', 1.9, 0.6], ['vehicle', null, 4.5, 2.0],
    ]);
    expect(TARGET_SIZES.EPTa.height).toBe(1.8);
    expect(TARGET_SIZES.EPTc.height).toBe(1.15);
  });

  it('the impact point: a share of the width from the near side (the right) or the far side (the left)', () => {
    expect(impactOffset(0.25, 'near', 1.8)).toBeCloseTo(-0.45, 12);
    expect(impactOffset(0.75, 'near', 1.8)).toBeCloseTo(0.45, 12);
    expect(impactOffset(0.25, 'far', 1.8)).toBeCloseTo(0.45, 12);
    expect(impactOffset(0.5, 'far', 2)).toBeCloseTo(0, 12);
  });

  it('a crossing pedestrian walks at right angles to the lane from the near side, at its speed, through the impact point, and stands at the end of its path', () => {
    const net = straightRoad(2);
    const e = ego(0, 0);
    const run = runStory(crossing(), net, [e], () => 0, 0.1, 100);
    const at = (k: number) => ({ x: run.trace[4 * k], y: run.trace[4 * k + 1], yaw: run.trace[4 * k + 2], v: run.trace[4 * k + 3] });
    // placed 4 m right of the impact point, which is 25 % of the ego's 2 m from its right side: y = −0.5 − 4
    expect(at(0)).toMatchObject({ x: expect.closeTo(100, 9), y: expect.closeTo(-4.5, 9), v: 0 });
    // from t = 1 s it walks left (+y, yaw 90°) at 5 km/h: after 2 s more it has covered 2.78 m
    expect(at(30)).toMatchObject({ x: expect.closeTo(100, 9), y: expect.closeTo(-4.5 + (5 / 3.6) * 2.1, 6), yaw: expect.closeTo(Math.PI / 2, 9), v: expect.closeTo(5 / 3.6, 9) });
    // it stops 8 m (the default beyond_m) past the impact point, and says so
    const end = run.happenings.find((h) => h.kind === 'actor_end_of_road')!;
    expect(end.detail).toBe('ped reached the end of its path across lane R and stands');
    expect(end.t).toBeCloseTo(1 + 12 / (5 / 3.6), 0);
    expect(run.poses[0]).toMatchObject({ y: expect.closeTo(-0.5 + 8, 9), speed: 0, kind: 'pedestrian', lane: 'R', offset: expect.closeTo(7.5, 9) });
  });

  it('from the far side it walks to the right; along the lane its offset is the impact point\'s', () => {
    const net = straightRoad(2);
    const far = runStory(crossing({}, { cross: { lane: 'R', s_m: 100, from: 'far', distance_m: 6 }, impact: { of: 'sim1', percent: 50 } }), net, [ego(0, 0)], () => 0, 0.1, 30);
    expect(far.trace[1]).toBeCloseTo(6, 9);
    expect(far.poses[0].yaw).toBeCloseTo(-Math.PI / 2, 9);
    expect(far.poses[0].y).toBeLessThan(6);
    const along = runStory({ actors: [{ id: 'bike', kind: 'cyclist', start: { lane: 'R', s_m: 50, impact: { of: 'sim1', percent: 25 }, speed_kmh: 15 } }] }, net, [ego(0, 0)], () => 0, 0.1, 10);
    expect(along.poses[0]).toMatchObject({ y: expect.closeTo(-0.5, 9), yaw: expect.closeTo(0, 9), kind: 'cyclist', length: 1.9, width: 0.6 });
  });

  it('contact counts at the person\'s real size: walking past 0.2 m clear of the front is no contact; the same path with a 1.5 m box is one', () => {
    const net = straightRoad(2);
    // the ego stands with its front at x = 97.75; the person crosses at x = 98.2 (0.2 m clear with its 0.5 m box)
    const pass = (size?: Record<string, number>) => runStory({
      actors: [{ id: 'ped', kind: 'pedestrian', ...(size ? { size } : {}), start: { cross: { lane: 'R', s_m: 98.2, from: 'near', distance_m: 4 }, impact: { of: 'sim1', percent: 50 }, speed_kmh: 5 } }],
      criteria: [{ no_collision: 'sim1' }],
      end: { after_s: 8 },
    }, net, [ego(95.5, 0)], () => 0, 0.1, 100);
    expect(pass().result.status).toBe('passed');
    const big = pass({ length: 1.5, width: 1.5 });
    expect(big.result.status).toBe('failed');
    expect(big.result.reason).toMatch(/^no_collision failed: sim1 hit ped/);
  });

  it.each([
    [{ kind: 'horse' }, "story.actors[0].kind': expected one of vehicle, pedestrian, cyclist"],
    [{ target: 'EBTa' }, "story.actors[0].target': EBTa is a cyclist target, not a pedestrian's"],
    [{ target: 'EPTx' }, "story.actors[0].target': expected one of EPTa, EPTc, EBTa"],
    [{ kind: 'vehicle', target: 'EPTa' }, "story.actors[0].target': a target (EPTa, EPTc, EBTa) is a person"],
    [{ kind: 'vehicle' }, "story.actors[0].start.cross': a vehicle does not cross the road on foot"],
    [{ controller: 'policy' }, "story.actors[0].controller': a pedestrian is moved by its script"],
    [{ size: { length: 0.1, width: 0.5 } }, "story.actors[0].size.length': expected a length in metres within [0.2, 3]"],
  ])('refuses a bad person %j with its key', (extra, message) => {
    expect(() => parseStory(crossing(extra), 'case.yaml')).toThrow(message);
    expect(() => parseStory(crossing(extra), 'case.yaml')).toThrow(/^case\.yaml: key 'story\.actors\[0\]\./);
  });

  it.each([
    [{ impact: { of: 'sim1', percent: 125 } }, "story.actors[0].start.impact.percent': expected a share of the vehicle's width in percent within [0, 100], got 125"],
    [{ impact: { of: 'sim1', percent: 50, side: 'near' } }, "story.actors[0].start.impact.side': unknown key"],
    [{ impact: { percent: 50 } }, "story.actors[0].start.impact.of': expected a vehicle id"],
    [{ impact: undefined }, "story.actors[0].start.impact': missing: expected the impact point"],
    [{ cross: { lane: 'R', s_m: 100, from: 'left', distance_m: 4 } }, "story.actors[0].start.cross.from': expected near (from the right, walking left) or far"],
    [{ cross: { lane: 'R', s_m: 100, from: 'near', distance_m: 0 } }, "story.actors[0].start.cross.distance_m': expected the distance from its start to the impact point in metres within (0, 50], got 0"],
    [{ speed_kmh: 40 }, "story.actors[0].start.speed_kmh': a pedestrian at 40.0 km/h: expected at most 20 km/h"],
  ])('refuses a bad crossing %j with its key', (start, message) => {
    expect(() => parseStory(crossing({}, start), 'case.yaml')).toThrow(message);
  });

  it('refuses what a person cannot be scripted to do, with the action\'s key', () => {
    const fast = crossing();
    fast.events[0].actions[0] = { actor: 'ped', speed: { target_kmh: 60, shape: 'step' } };
    expect(() => parseStory(fast, 'case.yaml')).toThrow("story.events[0].actions[0].speed.target_kmh': a pedestrian at 60.0 km/h: expected at most 20 km/h");
    const lane = crossing();
    lane.events[0].actions[0] = { actor: 'ped', lane_change: { to: 'left', duration_s: 2 } } as never;
    expect(() => parseStory(lane, 'case.yaml')).toThrow("story.events[0].actions[0].lane_change': ped crosses the road (start.cross)");
    const policy = crossing();
    policy.events[0].actions[0] = { actor: 'ped', hand_to_policy: true } as never;
    expect(() => parseStory(policy, 'case.yaml')).toThrow("story.events[0].actions[0].hand_to_policy': ped is a pedestrian: the NPC policy drives vehicles only");
    // a cyclist may ride at 30 km/h, a lane actor with an impact point takes no offset_m beside it
    const bike = { actors: [{ id: 'b', kind: 'cyclist', start: { lane: 'R', s_m: 10, speed_kmh: 30 } }] };
    expect(parseStory(bike, 'case.yaml').actors[0].start.speed).toBeCloseTo(30 / 3.6, 12);
    expect(() => parseStory({ actors: [{ id: 'b', kind: 'cyclist', start: { lane: 'R', s_m: 10, offset_m: 1, impact: { of: 'sim1', percent: 50 } } }] }, 'case.yaml')).toThrow("story.actors[0].start.offset_m': give offset_m or impact, not both");
  });

  it('an impact point on a vehicle that is not there is refused before the run', () => {
    const net = straightRoad(2);
    const doc = crossing({}, { impact: { of: 'nobody', percent: 25 } });
    expect(() => runStory(doc, net, [ego(0, 0)], () => 0)).toThrow(/story\.actors\[0\]\.start: unknown vehicle 'nobody' whose front the impact point is on/);
  });
});
