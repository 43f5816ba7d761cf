/**
 * Reads a scenario's `story:` block (already parsed YAML) into a StorySpec. Every error is a ConfigError naming
 * the file and the key path (`story.events[2].trigger.ttc.below_s`) and saying what was expected. What needs the
 * map or the scene (lane ids, ego ids, whether a lane change is possible) is checked by StoryRunner.validate.
 * The story's conditions, actions and criteria are read in parse-conditions.ts, parse-actions.ts and
 * parse-criteria.ts, on the shared field readers of parse-fields.ts.
 */
import { isRecord } from '../../plant/config/yaml-file.js';
import { readAction } from './parse-actions.js';
import { readCondition } from './parse-conditions.js';
import { readCriterion } from './parse-criteria.js';
import { StoryFields } from './parse-fields.js';
import { OBJECT_KINDS, type ObjectKind } from '../../vehicle/index.js';
import { AFTER_END, DEFAULT_QUALITY_LIMITS, REMOVE_BEYOND_M, type ActorSpec, type ActorStart, type AfterEnd, type EventSpec, type ImpactSpec, type Priority, type StorySpec } from './spec.js';
import { DEFAULT_TARGET, MAX_PERSON_SPEED_MPS, TARGET_SIZES, VRU_TARGETS, type VruTarget } from './targets.js';

const STORY_KEYS = ['start', 'actors', 'events', 'criteria', 'end', 'start_timeout_s', 'after_end', 'remove_beyond_m', 'quality'];
const QUALITY_KEYS = ['max_fix_gap_s', 'max_frame_gap_s', 'max_actor_error_m'];
const ACTOR_KEYS = ['id', 'kind', 'target', 'start', 'size', 'controller'];
const EVENT_KEYS = ['id', 'trigger', 'actions', 'priority', 'repeat'];
const PRIORITIES: readonly Priority[] = ['parallel', 'override', 'skip'];

/** Reads one story. `doc` is the value of the `story:` key; `where` names the file in messages. */
export function parseStory(doc: unknown, where: string): StorySpec {
  return readStory(new StoryFields(where), doc);
}

function readStory(f: StoryFields, doc: unknown): StorySpec {
  const s = f.map(doc, 'story', 'a map {actors, events, criteria, end, start_timeout_s}');
  f.keys(s, STORY_KEYS, 'story');
  const actors = f.list(s.actors, 'story.actors', true).map((a, i) => readActor(f, a, `story.actors[${i}]`));
  const actorIds = new Set<string>();
  actors.forEach((a, i) => {
    if (actorIds.has(a.id)) f.fail(`story.actors[${i}].id`, `duplicate actor id '${a.id}'`);
    actorIds.add(a.id);
  });
  const eventDocs = f.list(s.events, 'story.events', true);
  const eventIds = new Set<string>();
  eventDocs.forEach((e, i) => {
    const id = f.id(isRecord(e) ? e.id : undefined, `story.events[${i}].id`, 'an event id');
    if (eventIds.has(id)) f.fail(`story.events[${i}].id`, `duplicate event id '${id}'`);
    eventIds.add(id);
  });
  const events = eventDocs.map((e, i) => readEvent(f, e, `story.events[${i}]`, actorIds, eventIds));
  checkPeopleActions(f, actors, events, eventDocs);
  const names = new Map<string, number>();
  const criteria = f.list(s.criteria, 'story.criteria', true).map((c, i) => readCriterion(f, c, `story.criteria[${i}]`, names));
  const end = s.end === undefined || s.end === null ? null : readCondition(f, s.end, 'story.end', eventIds);
  const start = s.start === undefined || s.start === null ? null : readCondition(f, s.start, 'story.start', new Set<string>());
  const startTimeout = s.start_timeout_s === undefined || s.start_timeout_s === null ? null : f.num(s, 'start_timeout_s', 'story', 'a time in seconds > 0 (at most a day)', 0, 86_400, undefined, true);
  const afterEnd = s.after_end ?? 'continue';
  if (!AFTER_END.includes(afterEnd as AfterEnd)) f.fail('story.after_end', `expected one of ${AFTER_END.join(', ')}, got ${JSON.stringify(afterEnd)}`);
  const removeBeyond = f.num(s, 'remove_beyond_m', 'story', 'a distance in metres > 0 (at most 10 km)', 0, 10_000, REMOVE_BEYOND_M, true);
  const q = s.quality === undefined || s.quality === null ? {} : f.map(s.quality, 'story.quality', 'a map {max_fix_gap_s, max_frame_gap_s, max_actor_error_m}');
  f.keys(q, QUALITY_KEYS, 'story.quality');
  const d = DEFAULT_QUALITY_LIMITS;
  const quality = {
    maxFixGapS: f.num(q, 'max_fix_gap_s', 'story.quality', 'a time in seconds > 0 (at most 10)', 0, 10, d.maxFixGapS, true),
    maxFrameGapS: f.num(q, 'max_frame_gap_s', 'story.quality', 'a time in seconds > 0 (at most 10)', 0, 10, d.maxFrameGapS, true),
    maxActorErrorM: f.num(q, 'max_actor_error_m', 'story.quality', 'a distance in metres > 0 (at most 100)', 0, 100, d.maxActorErrorM, true),
  };
  return { start, actors, events, criteria, end, startTimeout, afterEnd: afterEnd as AfterEnd, removeBeyond, quality, where: f.where };
}

function readActor(f: StoryFields, v: unknown, key: string): ActorSpec {
  const a = f.map(v, key, 'an actor {id, kind, target, start, size, controller}');
  f.keys(a, ACTOR_KEYS, key);
  const id = f.id(a.id, `${key}.id`, 'an actor id');
  const kind = a.kind ?? 'vehicle';
  if (!OBJECT_KINDS.includes(kind as ObjectKind)) f.fail(`${key}.kind`, `expected one of ${OBJECT_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  const target = readTarget(f, a.target, kind as ObjectKind, `${key}.target`);
  const size = a.size === undefined || a.size === null ? {} : f.map(a.size, `${key}.size`, 'a map {length, width} in metres');
  f.keys(size, ['length', 'width'], `${key}.size`);
  const controller = a.controller ?? 'script';
  if (controller !== 'script' && controller !== 'policy') f.fail(`${key}.controller`, `expected script or policy, got ${JSON.stringify(controller)}`);
  if (controller === 'policy' && kind !== 'vehicle') f.fail(`${key}.controller`, `a ${kind as string} is moved by its script: the NPC policy drives vehicles only`);
  const start = readStart(f, a.start, `${key}.start`);
  if (kind === 'vehicle' && start.kind === 'cross') f.fail(`${key}.start.cross`, 'a vehicle does not cross the road on foot: give kind: pedestrian or cyclist');
  const person = kind === 'vehicle' ? null : (kind as 'pedestrian' | 'cyclist');
  if (person) personSpeed(f, start.speed, person, `${key}.start`, a.start as Record<string, unknown>);
  const body = target ? TARGET_SIZES[target] : null;
  // people: from 0.2 m (a child's body) to the target sizes and a little more; vehicles as before
  const minLen = person ? 0.2 : 0.5, minWid = person ? 0.2 : 0.3;
  return {
    id,
    kind: kind as ObjectKind,
    target,
    start,
    length: f.num(size, 'length', `${key}.size`, `a length in metres within [${minLen}, ${person ? 3 : 30}]`, minLen, person ? 3 : 30, body?.length ?? 4.5),
    width: f.num(size, 'width', `${key}.size`, `a width in metres within [${minWid}, ${person ? 1.5 : 5}]`, minWid, person ? 1.5 : 5, body?.width ?? 2.0),
    controller,
    key,
  };
}

/** The Euro NCAP target of a person (its default for the kind when absent); none for a vehicle. */
function readTarget(f: StoryFields, v: unknown, kind: ObjectKind, key: string): VruTarget | null {
  if (kind === 'vehicle') {
    if (v !== undefined && v !== null) f.fail(key, `a target (${VRU_TARGETS.join(', ')}) is a person: give kind: pedestrian or cyclist`);
    return null;
  }
  const t = v ?? DEFAULT_TARGET[kind];
  if (!VRU_TARGETS.includes(t as VruTarget)) f.fail(key, `expected one of ${VRU_TARGETS.join(', ')}, got ${JSON.stringify(t)}`);
  if (TARGET_SIZES[t as VruTarget].kind !== kind) f.fail(key, `${t as string} is a ${TARGET_SIZES[t as VruTarget].kind} target, not a ${kind}'s`);
  return t as VruTarget;
}

/** A person's scripted speed [m/s] no faster than a person of its kind moves (MAX_PERSON_SPEED_MPS). */
function personSpeed(f: StoryFields, speed: number, kind: 'pedestrian' | 'cyclist', key: string, m: Record<string, unknown>, base = 'speed'): void {
  const max = MAX_PERSON_SPEED_MPS[kind];
  if (speed <= max + 1e-9) return;
  const field = m[`${base}_kmh`] !== undefined ? `${base}_kmh` : `${base}_mps`;
  f.fail(`${key}.${field}`, `a ${kind} at ${(speed * 3.6).toFixed(1)} km/h: expected at most ${(max * 3.6).toFixed(0)} km/h`);
}

/** The impact point of a start: `impact: {of, percent, side}` (side near or far; a crossing's comes from its `from`). */
function readImpact(f: StoryFields, v: unknown, key: string, side: 'near' | 'far' | null): ImpactSpec {
  const m = f.map(v, key, 'an impact point {of, percent, side} (percent of the vehicle\'s width from its near or far side)');
  f.keys(m, side ? ['of', 'percent'] : ['of', 'percent', 'side'], key);
  const s = side ?? m.side ?? 'near';
  if (s !== 'near' && s !== 'far') f.fail(`${key}.side`, `expected near (from the right) or far (from the left), got ${JSON.stringify(s)}`);
  return { of: f.id(m.of, `${key}.of`, 'a vehicle id (the vehicle under test)'), share: f.num(m, 'percent', key, 'a share of the vehicle\'s width in percent within [0, 100]', 0, 100) / 100, side: s };
}

function readStart(f: StoryFields, v: unknown, key: string): ActorStart {
  const m = f.map(v, key, 'a start {lane, s_m}, {ahead_of, gap_m, lane}, {x, y} or {cross, impact}');
  const offset = f.num(m, 'offset_m', key, 'a lateral offset in metres (left positive) within [-5, 5]', -5, 5, 0);
  if (m.cross !== undefined) {
    f.keys(m, ['cross', 'impact', 'speed_kmh', 'speed_mps'], key);
    const c = f.map(m.cross, `${key}.cross`, 'a crossing {lane, s_m, from, distance_m, beyond_m}');
    f.keys(c, ['lane', 's_m', 'from', 'distance_m', 'beyond_m'], `${key}.cross`);
    const from = c.from;
    if (from !== 'near' && from !== 'far') f.fail(`${key}.cross.from`, `expected near (from the right, walking left) or far (from the left, walking right), got ${JSON.stringify(from)}`);
    if (m.impact === undefined) f.fail(`${key}.impact`, "missing: expected the impact point {of, percent} where the crossing meets the vehicle's front");
    return {
      kind: 'cross',
      lane: f.id(String(c.lane), `${key}.cross.lane`, 'a lane id'),
      s: f.num(c, 's_m', `${key}.cross`, 'a distance along the lane in metres ≥ 0', 0, 1e6),
      distance: f.num(c, 'distance_m', `${key}.cross`, 'the distance from its start to the impact point in metres within (0, 50]', 0, 50, undefined, true),
      beyond: f.num(c, 'beyond_m', `${key}.cross`, 'how far it walks on past the impact point in metres within [0, 50]', 0, 50, 8),
      impact: readImpact(f, m.impact, `${key}.impact`, from),
      speed: f.speed(m, 'speed', key, 0),
    };
  }
  if (m.ahead_of !== undefined) {
    f.keys(m, ['ahead_of', 'gap_m', 'lane', 'offset_m', 'speed_kmh', 'speed_mps'], key);
    const lane = m.lane ?? 'same';
    if (typeof lane !== 'string') f.fail(`${key}.lane`, `expected same, left, right or a lane id, got ${JSON.stringify(lane)}`);
    return {
      kind: 'relative',
      of: f.id(m.ahead_of, `${key}.ahead_of`, 'a vehicle id'),
      gap: f.num(m, 'gap_m', key, 'a gap in metres within [-1000, 1000] (bumper to bumper; negative: behind)', -1000, 1000),
      lane: lane === 'same' || lane === 'left' || lane === 'right' ? lane : { id: f.id(lane, `${key}.lane`, 'same, left, right or a lane id') },
      offset,
      speed: f.speed(m, 'speed', key, 0),
    };
  }
  if (m.lane !== undefined) {
    f.keys(m, ['lane', 's_m', 'offset_m', 'impact', 'speed_kmh', 'speed_mps'], key);
    if (m.impact !== undefined && m.offset_m !== undefined) f.fail(`${key}.offset_m`, 'give offset_m or impact, not both (the impact point sets the offset)');
    const lane = { kind: 'lane' as const, lane: f.id(String(m.lane), `${key}.lane`, 'a lane id'), s: f.num(m, 's_m', key, 'a distance along the lane in metres ≥ 0', 0, 1e6, 0), offset, speed: f.speed(m, 'speed', key, 0) };
    return m.impact === undefined ? lane : { ...lane, impact: readImpact(f, m.impact, `${key}.impact`, null) };
  }
  if (m.x !== undefined || m.y !== undefined) {
    f.keys(m, ['x', 'y', 'yaw_deg', 'offset_m', 'speed_kmh', 'speed_mps'], key);
    const yaw = m.yaw_deg === undefined || m.yaw_deg === null ? null : (f.num(m, 'yaw_deg', key, 'a yaw in degrees within [-360, 360] (ENU: 0 = east, 90 = north)', -360, 360) * Math.PI) / 180;
    return { kind: 'xy', x: f.num(m, 'x', key, 'x in metres (map frame)', -1e7, 1e7), y: f.num(m, 'y', key, 'y in metres (map frame)', -1e7, 1e7), yaw, offset, speed: f.speed(m, 'speed', key, 0) };
  }
  f.fail(key, 'expected {lane, s_m, speed_kmh}, {ahead_of, gap_m, lane, speed_kmh}, {x, y, yaw_deg, speed_kmh} or {cross: {lane, s_m, from, distance_m}, impact: {of, percent}, speed_kmh}');
}

/**
 * What a person cannot be scripted to do: a speed beyond a person's, a lane change or a time gap while crossing
 * the road (its path is across the lanes), a hand-over to the NPC policy (which drives vehicles).
 */
function checkPeopleActions(f: StoryFields, actors: readonly ActorSpec[], events: readonly EventSpec[], docs: readonly unknown[]): void {
  const byId = new Map(actors.map((a) => [a.id, a]));
  events.forEach((e, i) => e.actions.forEach((a, j) => {
    if (a.kind === 'set_signal') return;
    const actor = byId.get(a.actor);
    if (!actor || actor.kind === 'vehicle') return;
    const person = actor.kind;
    if (a.kind === 'speed') {
      const doc = (docs[i] as { actions: Array<{ speed: Record<string, unknown> }> }).actions[j].speed;
      personSpeed(f, a.target, person, `${a.key}.speed`, doc, 'target');
    }
    if (a.kind === 'hand_to_policy') f.fail(`${a.key}.hand_to_policy`, `${actor.id} is a ${person}: the NPC policy drives vehicles only`);
    if (actor.start.kind === 'cross' && (a.kind === 'lane_change' || a.kind === 'keep_time_gap')) f.fail(`${a.key}.${a.kind}`, `${actor.id} crosses the road (start.cross): its path runs across the lanes, so it has no ${a.kind === 'lane_change' ? 'lane to change' : 'lane to keep a time gap along'}`);
  }));
}

function readEvent(f: StoryFields, v: unknown, key: string, actors: ReadonlySet<string>, events: ReadonlySet<string>): EventSpec {
  const e = f.map(v, key, 'an event {id, trigger, actions, priority, repeat}');
  f.keys(e, EVENT_KEYS, key);
  const priority = e.priority ?? 'parallel';
  if (!PRIORITIES.includes(priority as Priority)) f.fail(`${key}.priority`, `expected one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(priority)}`);
  const repeat = f.num(e, 'repeat', key, 'a whole number of executions ≥ 1', 1, 1e6, 1);
  if (!Number.isInteger(repeat)) f.fail(`${key}.repeat`, `expected a whole number of executions ≥ 1, got ${repeat}`);
  const actions = f.list(e.actions, `${key}.actions`, false);
  if (actions.length === 0) f.fail(`${key}.actions`, 'expected at least one action');
  return {
    id: e.id as string,
    trigger: e.trigger === undefined || e.trigger === null ? null : readCondition(f, e.trigger, `${key}.trigger`, events),
    actions: actions.map((a, i) => readAction(f, a, `${key}.actions[${i}]`, actors)),
    priority: priority as Priority,
    repeat,
    key,
  };
}
