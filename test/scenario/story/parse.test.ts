/**
 * The `story:` block's parser: a full story reads into SI units, and every mistake is refused with the file and
 * the key path of the offending value.
 */
import { describe, expect, it } from 'vitest';
import { parseStory } from '../../../src/scenario/story/parse.js';

const good = {
  actors: [
    { id: 'lead', start: { ahead_of: 'sim1', gap_m: 40, lane: 'same', speed_kmh: 50 }, size: { length: 4.6, width: 1.9 } },
    { id: 'parked', start: { lane: 'R', s_m: 120 } },
  ],
  events: [
    { id: 'brake', trigger: { after_s: 5 }, actions: [{ actor: 'lead', speed: { target_kmh: 0, accel_mps2: -6 } }] },
    { id: 'cut', trigger: { any: [{ ttc: { from: 'sim1', to: 'lead', below_s: 3 } }, { all: [{ at_s: 20 }, { speed: { of: 'sim1', above_kmh: 30 } }] }] }, actions: [{ actor: 'lead', lane_change: { to: 'left', duration_s: 2 } }], priority: 'override' },
    { id: 'after', trigger: { event_done: { event: 'brake', plus_s: 1.5 } }, actions: [{ actor: 'lead', hand_to_policy: true }, { set_signal: { junction: 'J1', states: { 'J1.A': 'G' }, hold_s: 10 } }] },
  ],
  criteria: [
    { no_collision: 'sim1' },
    { min_ttc: { ego: 'sim1', s: 1.5 } },
    { min_ttc: { ego: 'sim1', s: 1, to: 'lead' } },
    { stopped_before: { ego: 'sim1', point: { actor: 'lead' }, margin_m: 0.5 } },
    { reach: { ego: 'sim1', point: { lane: 'R', s_m: 300 }, radius_m: 5, within_s: 30 }, name: 'arrives' },
  ],
  end: { any: [{ after_s: 30 }, { event_done: { event: 'brake', plus_s: 10 } }, { stopped: 'sim1' }] },
  start_timeout_s: 60,
};

/** `good` with one value replaced at a path (a.b.0.c) */
function withValue(path: string, value: unknown): unknown {
  const doc = structuredClone(good) as Record<string, unknown>;
  const parts = path.split('.');
  let cur = doc as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  if (value === undefined) delete cur[parts[parts.length - 1]];
  else cur[parts[parts.length - 1]] = value;
  return doc;
}

describe('story: parse', () => {
  it('reads a full story into SI units', () => {
    const s = parseStory(good, 'case.yaml');
    expect(s.actors[0]).toMatchObject({ id: 'lead', length: 4.6, width: 1.9, controller: 'script', start: { kind: 'relative', of: 'sim1', gap: 40, lane: 'same' } });
    expect(s.actors[0].start.speed).toBeCloseTo(50 / 3.6, 12);
    expect(s.actors[1]).toMatchObject({ length: 4.5, width: 2, start: { kind: 'lane', lane: 'R', s: 120, speed: 0 } });
    expect(s.events[0].actions[0]).toMatchObject({ kind: 'speed', target: 0, rate: 6, duration: null, shape: 'linear' });
    expect(s.events[1]).toMatchObject({ priority: 'override', repeat: 1, trigger: { kind: 'any', of: [{ kind: 'ttc', value: 3 }, { kind: 'all' }] } });
    expect(s.events[1].actions[0]).toMatchObject({ kind: 'lane_change', to: 'left', duration: 2, shape: 'sinusoidal', offset: 0 });
    expect(s.events[2].trigger).toMatchObject({ kind: 'event', event: 'brake', state: 'done', plus: 1.5 });
    expect(s.events[2].actions[1]).toMatchObject({ kind: 'set_signal', junction: 'J1', phase: null, states: { 'J1.A': 'G' }, holdS: 10 });
    expect(s.criteria.map((c) => c.name)).toEqual(['no_collision', 'min_ttc', 'min_ttc_2', 'stopped_before', 'arrives']);
    expect(s.end).toMatchObject({ kind: 'any', of: [{ kind: 'after', t: 30 }, { kind: 'event', plus: 10 }, { kind: 'stopped', of: 'sim1', forS: 0 }] });
    expect(s.startTimeout).toBe(60);
    // after the end the actors carry on (continue) and leave the scene beyond 150 m of the vehicle under test
    expect([s.afterEnd, s.removeBeyond]).toEqual(['continue', 150]);
    expect(parseStory({ ...good, after_end: 'leave', remove_beyond_m: 80 }, 'x')).toMatchObject({ afterEnd: 'leave', removeBeyond: 80 });
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it.each([
    ['events.1.trigger.any.0.ttc.below_s', -1, "key 'story.events[1].trigger.any[0].ttc.below_s': expected a number of seconds > 0, got -1"],
    ['events.1.trigger.any.0.ttc.below_s', 0, "story.events[1].trigger.any[0].ttc.below_s': expected a number of seconds > 0, got 0"],
    ['events.0.actions.0.actor', 'ghost', "key 'story.events[0].actions[0].actor': no actor 'ghost' in this story (actors: lead, parked)"],
    ['events.2.trigger.event_done.event', 'nope', "story.events[2].trigger.event_done.event': no event 'nope' in this story"],
    ['events.0.actions.0.speed.accel_mps2', undefined, "story.events[0].actions[0].speed': expected one of accel_mps2"],
    ['events.0.actions.0.speed.target_kmh', 'fast', "story.events[0].actions[0].speed.target_kmh': expected a speed in km/h"],
    ['events.1.actions.0.lane_change.duration_s', 0, "story.events[1].actions[0].lane_change.duration_s': expected a duration in seconds > 0"],
    ['events.1.actions.0.lane_change.shape', 'wobbly', "story.events[1].actions[0].lane_change.shape': expected one of linear, cubic, sinusoidal, step"],
    ['events.1.priority', 'overwrite', "story.events[1].priority': expected one of parallel, override, skip"],
    ['events.0.trigger', { after_s: 1, at_s: 2 }, "story.events[0].trigger': expected exactly one condition"],
    ['events.0.trigger', { soon: true }, "story.events[0].trigger.soon': unknown condition"],
    ['events.0.id', 'cut', "story.events[1].id': duplicate event id 'cut'"],
    ['actors.1.id', 'lead', "story.actors[1].id': duplicate actor id 'lead'"],
    ['actors.0.start.gap_m', undefined, "story.actors[0].start.gap_m': missing: expected a gap in metres"],
    ['actors.0.start.lane', 3, "story.actors[0].start.lane': expected same, left, right or a lane id"],
    ['actors.0.size.height', 1.5, "story.actors[0].size.height': unknown key (expected one of length, width)"],
    ['criteria.1.min_ttc.s', 'x', "story.criteria[1].min_ttc.s': expected a number of seconds > 0"],
    ['criteria.0', { no_collision: 'sim1', min_ttc: { ego: 'sim1', s: 1 } }, "story.criteria[0]': expected exactly one criterion"],
    ['end.any.2.stopped', { of: 'sim1', for_s: -1 }, "story.end.any[2].stopped.for_s': expected a time in seconds ≥ 0"],
    ['start_timeout_s', 0, "story.start_timeout_s': expected a time in seconds > 0"],
    ['extra', 1, "key 'story.extra': unknown key (expected one of start, actors, events, criteria, end, start_timeout_s, after_end, remove_beyond_m, quality)"],
    ['after_end', 'vanish', "story.after_end': expected one of continue, stop, leave, got \"vanish\""],
    ['remove_beyond_m', 0, "story.remove_beyond_m': expected a distance in metres > 0"],
  ])('refuses %s = %j, naming the key', (path, value, message) => {
    const doc = withValue(path, value);
    expect(() => parseStory(doc, 'case.yaml')).toThrow(message);
    expect(() => parseStory(doc, 'case.yaml')).toThrow(/^case\.yaml: key 'story\./);
  });

  it('reads a start line (the speed band defaults to ± 5 km/h) and refuses one not on a lane', () => {
    const line = (a: Record<string, unknown>) => parseStory({ start: { start_line: { of: 'sim1', point: { lane: 'R6', s_m: 3.5 }, speed_kmh: 50, ...a } } }, 'case.yaml').start;
    expect(line({})).toMatchObject({ kind: 'start_line', of: 'sim1', point: { kind: 'lane', lane: 'R6', s: 3.5 }, speed: expect.closeTo(50 / 3.6, 12), tolerance: expect.closeTo(5 / 3.6, 12) });
    expect(line({ tolerance_kmh: 2 })).toMatchObject({ tolerance: expect.closeTo(2 / 3.6, 12) });
    expect(() => line({ point: { x: 1, y: 2 } })).toThrow("story.start.start_line.point': expected a point on a lane {lane, s_m}");
    expect(() => line({ speed_kmh: undefined })).toThrow("story.start.start_line.speed_mps': missing: expected a speed in m/s");
    expect(() => line({ radius_m: 3 })).toThrow("story.start.start_line.radius_m': unknown key");
  });

  it('refuses a set_signal with an actor, a speed given twice, a criterion with an unknown key', () => {
    const doc = (patch: (d: typeof good) => void) => {
      const d = structuredClone(good);
      patch(d);
      return d;
    };
    expect(() => parseStory(doc((d) => ((d.events[2].actions[1] as Record<string, unknown>).actor = 'lead')), 'f')).toThrow("story.events[2].actions[1].actor': set_signal acts on a junction");
    expect(() => parseStory(doc((d) => ((d.actors[0].start as Record<string, unknown>).speed_mps = 3)), 'f')).toThrow("story.actors[0].start.speed_kmh': give speed_kmh or speed_mps, not both");
    expect(() => parseStory(doc((d) => ((d.criteria[1].min_ttc as Record<string, unknown>).ego_id = 'x')), 'f')).toThrow("story.criteria[1].min_ttc.ego_id': unknown key");
    expect(() => parseStory('story', 'f')).toThrow("f: key 'story': expected a map");
  });
});
