/**
 * Reads a scenario's `story:` block (already parsed YAML) into a StorySpec. Every error is a ConfigError naming
 * the file and the key path (`story.events[2].trigger.ttc.below_s`) and saying what was expected. What needs the
 * map or the scene (lane ids, ego ids, whether a lane change is possible) is checked by StoryRunner.validate.
 */
import { ConfigError } from '../../plant/config/errors.js';
import { isRecord } from '../../plant/config/yaml-file.js';
import type { ActionSpec, ActorSpec, ActorStart, Condition, CriterionSpec, EventSpec, PointSpec, Priority, Shape, StopPoint, StorySpec } from './spec.js';
import { SHAPES } from './spec.js';

const KMH = 1 / 3.6;
const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const STORY_KEYS = ['start', 'actors', 'events', 'criteria', 'end', 'start_timeout_s'];
const ACTOR_KEYS = ['id', 'start', 'size', 'controller'];
const EVENT_KEYS = ['id', 'trigger', 'actions', 'priority', 'repeat'];
const PRIORITIES: readonly Priority[] = ['parallel', 'override', 'skip'];
const CONDITIONS = ['at_s', 'after_s', 'reach', 'traveled', 'route_s', 'distance', 'headway', 'ttc', 'speed', 'stopped', 'collision', 'event_started', 'event_done', 'all', 'any'];
const ACTIONS = ['speed', 'lane_change', 'follow_route', 'keep_time_gap', 'stop', 'hand_to_policy', 'take_from_policy', 'set_signal'];
const CRITERIA = ['no_collision', 'min_ttc', 'min_distance', 'stopped_before', 'peak_decel', 'reach'];

/** Reads one story. `doc` is the value of the `story:` key; `where` names the file in messages. */
export function parseStory(doc: unknown, where: string): StorySpec {
  return new Reader(where).story(doc);
}

class Reader {
  constructor(private readonly where: string) {}

  private fail(key: string, detail: string): never {
    throw new ConfigError(this.where, key, detail);
  }

  private map(v: unknown, key: string, what: string): Record<string, unknown> {
    if (!isRecord(v)) this.fail(key, `expected ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  private keys(m: Record<string, unknown>, allowed: readonly string[], key: string): void {
    for (const k of Object.keys(m)) if (!allowed.includes(k)) this.fail(`${key}.${k}`, `unknown key (expected one of ${allowed.join(', ')})`);
  }

  /** A finite number within [min, max] (or (min, max] with `open`); `def` when absent (required when def is undefined). */
  private num(m: Record<string, unknown>, k: string, key: string, what: string, min: number, max: number, def?: number, open = false): number {
    const v = m[k];
    if (v === undefined || v === null) {
      if (def === undefined) this.fail(`${key}.${k}`, `missing: expected ${what}`);
      return def;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (open && v === min)) this.fail(`${key}.${k}`, `expected ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  private id(v: unknown, key: string, what: string): string {
    if (typeof v !== 'string' || !ID.test(v)) this.fail(key, `expected ${what} (1–64 letters, digits, _ . -), got ${JSON.stringify(v)}`);
    return v;
  }

  /** The one key of a single-key map among `kinds` (plus the allowed extra keys). */
  private kind(m: Record<string, unknown>, kinds: readonly string[], key: string, what: string, extra: readonly string[] = []): string {
    const found = Object.keys(m).filter((k) => !extra.includes(k));
    for (const k of found) if (!kinds.includes(k)) this.fail(`${key}.${k}`, `unknown ${what} (expected one of ${kinds.join(', ')})`);
    if (found.length !== 1) this.fail(key, `expected exactly one ${what} (one of ${kinds.join(', ')}), got ${found.length ? found.join(' and ') : 'none'}`);
    return found[0];
  }

  /** A speed given as `<base>_kmh` or `<base>_mps` (exactly one), in m/s. */
  private speed(m: Record<string, unknown>, base: string, key: string, def?: number): number {
    const kmh = m[`${base}_kmh`], mps = m[`${base}_mps`];
    if (kmh !== undefined && mps !== undefined) this.fail(`${key}.${base}_kmh`, `give ${base}_kmh or ${base}_mps, not both`);
    if (kmh !== undefined) return this.num(m, `${base}_kmh`, key, 'a speed in km/h within [0, 400]', 0, 400) * KMH;
    if (mps !== undefined || def === undefined) return this.num(m, `${base}_mps`, key, `a speed in m/s within [0, 120] (or ${base}_kmh)`, 0, 120);
    return def;
  }

  story(doc: unknown): StorySpec {
    const s = this.map(doc, 'story', 'a map {actors, events, criteria, end, start_timeout_s}');
    this.keys(s, STORY_KEYS, 'story');
    const actors = this.list(s.actors, 'story.actors', true).map((a, i) => this.actor(a, `story.actors[${i}]`));
    const actorIds = new Set<string>();
    actors.forEach((a, i) => {
      if (actorIds.has(a.id)) this.fail(`story.actors[${i}].id`, `duplicate actor id '${a.id}'`);
      actorIds.add(a.id);
    });
    const eventDocs = this.list(s.events, 'story.events', true);
    const eventIds = new Set<string>();
    eventDocs.forEach((e, i) => {
      const id = this.id(isRecord(e) ? e.id : undefined, `story.events[${i}].id`, 'an event id');
      if (eventIds.has(id)) this.fail(`story.events[${i}].id`, `duplicate event id '${id}'`);
      eventIds.add(id);
    });
    const events = eventDocs.map((e, i) => this.event(e, `story.events[${i}]`, actorIds, eventIds));
    const names = new Map<string, number>();
    const criteria = this.list(s.criteria, 'story.criteria', true).map((c, i) => this.criterion(c, `story.criteria[${i}]`, names));
    const end = s.end === undefined || s.end === null ? null : this.condition(s.end, 'story.end', eventIds);
    const start = s.start === undefined || s.start === null ? null : this.condition(s.start, 'story.start', new Set<string>());
    const startTimeout = s.start_timeout_s === undefined || s.start_timeout_s === null ? null : this.num(s, 'start_timeout_s', 'story', 'a time in seconds > 0 (at most a day)', 0, 86_400, undefined, true);
    return { start, actors, events, criteria, end, startTimeout, where: this.where };
  }

  private list(v: unknown, key: string, optional: boolean): unknown[] {
    if ((v === undefined || v === null) && optional) return [];
    if (!Array.isArray(v)) this.fail(key, `expected a list, got ${JSON.stringify(v)}`);
    return v;
  }

  private actor(v: unknown, key: string): ActorSpec {
    const a = this.map(v, key, 'an actor {id, start, size, controller}');
    this.keys(a, ACTOR_KEYS, key);
    const id = this.id(a.id, `${key}.id`, 'an actor id');
    const size = a.size === undefined || a.size === null ? {} : this.map(a.size, `${key}.size`, 'a map {length, width} in metres');
    this.keys(size, ['length', 'width'], `${key}.size`);
    const controller = a.controller ?? 'script';
    if (controller !== 'script' && controller !== 'policy') this.fail(`${key}.controller`, `expected script or policy, got ${JSON.stringify(controller)}`);
    return {
      id,
      start: this.start(a.start, `${key}.start`),
      length: this.num(size, 'length', `${key}.size`, 'a length in metres within [0.5, 30]', 0.5, 30, 4.5),
      width: this.num(size, 'width', `${key}.size`, 'a width in metres within [0.3, 5]', 0.3, 5, 2.0),
      controller,
      key,
    };
  }

  private start(v: unknown, key: string): ActorStart {
    const m = this.map(v, key, 'a start {lane, s_m} or {ahead_of, gap_m, lane} or {x, y}');
    const offset = this.num(m, 'offset_m', key, 'a lateral offset in metres (left positive) within [-5, 5]', -5, 5, 0);
    if (m.ahead_of !== undefined) {
      this.keys(m, ['ahead_of', 'gap_m', 'lane', 'offset_m', 'speed_kmh', 'speed_mps'], key);
      const lane = m.lane ?? 'same';
      if (typeof lane !== 'string') this.fail(`${key}.lane`, `expected same, left, right or a lane id, got ${JSON.stringify(lane)}`);
      return {
        kind: 'relative',
        of: this.id(m.ahead_of, `${key}.ahead_of`, 'a vehicle id'),
        gap: this.num(m, 'gap_m', key, 'a gap in metres within [-1000, 1000] (bumper to bumper; negative: behind)', -1000, 1000),
        lane: lane === 'same' || lane === 'left' || lane === 'right' ? lane : { id: this.id(lane, `${key}.lane`, 'same, left, right or a lane id') },
        offset,
        speed: this.speed(m, 'speed', key, 0),
      };
    }
    if (m.lane !== undefined) {
      this.keys(m, ['lane', 's_m', 'offset_m', 'speed_kmh', 'speed_mps'], key);
      return { kind: 'lane', lane: this.id(String(m.lane), `${key}.lane`, 'a lane id'), s: this.num(m, 's_m', key, 'a distance along the lane in metres ≥ 0', 0, 1e6, 0), offset, speed: this.speed(m, 'speed', key, 0) };
    }
    if (m.x !== undefined || m.y !== undefined) {
      this.keys(m, ['x', 'y', 'yaw_deg', 'offset_m', 'speed_kmh', 'speed_mps'], key);
      const yaw = m.yaw_deg === undefined || m.yaw_deg === null ? null : (this.num(m, 'yaw_deg', key, 'a yaw in degrees within [-360, 360] (ENU: 0 = east, 90 = north)', -360, 360) * Math.PI) / 180;
      return { kind: 'xy', x: this.num(m, 'x', key, 'x in metres (map frame)', -1e7, 1e7), y: this.num(m, 'y', key, 'y in metres (map frame)', -1e7, 1e7), yaw, offset, speed: this.speed(m, 'speed', key, 0) };
    }
    this.fail(key, 'expected {lane, s_m, speed_kmh}, {ahead_of, gap_m, lane, speed_kmh} or {x, y, yaw_deg, speed_kmh}');
  }

  private point(v: unknown, key: string): PointSpec {
    const m = this.map(v, key, 'a point {x, y} or {lane, s_m}');
    if (m.lane !== undefined) {
      this.keys(m, ['lane', 's_m'], key);
      return { kind: 'lane', lane: this.id(String(m.lane), `${key}.lane`, 'a lane id'), s: this.num(m, 's_m', key, 'a distance along the lane in metres ≥ 0', 0, 1e6, 0) };
    }
    this.keys(m, ['x', 'y'], key);
    return { kind: 'xy', x: this.num(m, 'x', key, 'x in metres (map frame)', -1e7, 1e7), y: this.num(m, 'y', key, 'y in metres (map frame)', -1e7, 1e7) };
  }

  private event(v: unknown, key: string, actors: ReadonlySet<string>, events: ReadonlySet<string>): EventSpec {
    const e = this.map(v, key, 'an event {id, trigger, actions, priority, repeat}');
    this.keys(e, EVENT_KEYS, key);
    const priority = e.priority ?? 'parallel';
    if (!PRIORITIES.includes(priority as Priority)) this.fail(`${key}.priority`, `expected one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(priority)}`);
    const repeat = this.num(e, 'repeat', key, 'a whole number of executions ≥ 1', 1, 1e6, 1);
    if (!Number.isInteger(repeat)) this.fail(`${key}.repeat`, `expected a whole number of executions ≥ 1, got ${repeat}`);
    const actions = this.list(e.actions, `${key}.actions`, false);
    if (actions.length === 0) this.fail(`${key}.actions`, 'expected at least one action');
    return {
      id: e.id as string,
      trigger: e.trigger === undefined || e.trigger === null ? null : this.condition(e.trigger, `${key}.trigger`, events),
      actions: actions.map((a, i) => this.action(a, `${key}.actions[${i}]`, actors)),
      priority: priority as Priority,
      repeat,
      key,
    };
  }

  /** `{ <kind>: <args> }`: a vehicle id alone, or a map with `of` (and the kind's own keys). */
  private subject(v: unknown, key: string, what: string, allowed: readonly string[]): { of: string; m: Record<string, unknown> } {
    if (typeof v === 'string') return { of: this.id(v, key, 'a vehicle id'), m: {} };
    const m = this.map(v, key, what);
    this.keys(m, ['of', ...allowed], key);
    return { of: this.id(m.of, `${key}.of`, 'a vehicle id'), m };
  }

  private rule(m: Record<string, unknown>, key: string, below: string, above: string, what: string, min: number, max: number): { rule: 'below' | 'above'; value: number } {
    if ((m[below] === undefined) === (m[above] === undefined)) this.fail(key, `expected one of ${below} or ${above}`);
    const k = m[below] !== undefined ? below : above;
    return { rule: k === below ? 'below' : 'above', value: this.num(m, k, key, what, min, max, undefined, true) };
  }

  condition(v: unknown, key: string, events: ReadonlySet<string>): Condition {
    const c = this.map(v, key, `a condition (one of ${CONDITIONS.join(', ')})`);
    const kind = this.kind(c, CONDITIONS, key, 'condition');
    const k = `${key}.${kind}`;
    const a = c[kind];
    switch (kind) {
      case 'at_s':
      case 'after_s':
        if (typeof a !== 'number' || !Number.isFinite(a) || a < 0) this.fail(k, `expected a time in seconds ≥ 0, got ${JSON.stringify(a)}`);
        return { kind: kind === 'at_s' ? 'at' : 'after', t: a, key };
      case 'reach': {
        const { of, m } = this.subject(a, k, 'a map {of, point, radius_m}', ['point', 'radius_m']);
        return { kind: 'reach', of, point: this.point(m.point, `${k}.point`), radius: this.num(m, 'radius_m', k, 'a radius in metres > 0', 0, 1e4, 2, true), key };
      }
      case 'traveled': {
        const { of, m } = this.subject(a, k, 'a map {of, m}', ['m']);
        return { kind: 'traveled', of, m: this.num(m, 'm', k, 'a distance in metres > 0', 0, 1e7, undefined, true), key };
      }
      case 'route_s': {
        const { of, m } = this.subject(a, k, 'a map {of, route: [lane ids], m}', ['route', 'm']);
        const route = this.list(m.route, `${k}.route`, false).map((l, i) => this.id(String(l), `${k}.route[${i}]`, 'a lane id'));
        if (route.length === 0) this.fail(`${k}.route`, 'expected at least one lane id');
        return { kind: 'route_s', of, route, m: this.num(m, 'm', k, 'a distance in metres ≥ 0', 0, 1e7), key };
      }
      case 'distance': {
        const m = this.map(a, k, 'a map {from, to, below_m | above_m, measure}');
        this.keys(m, ['from', 'to', 'below_m', 'above_m', 'measure'], k);
        const measure = m.measure ?? 'gap';
        if (measure !== 'gap' && measure !== 'centres' && measure !== 'lane') this.fail(`${k}.measure`, `expected gap (box to box), centres or lane (bumper gap along from's lane), got ${JSON.stringify(measure)}`);
        return { kind: 'distance', from: this.id(m.from, `${k}.from`, 'a vehicle id'), to: this.id(m.to, `${k}.to`, 'a vehicle id'), ...this.rule(m, k, 'below_m', 'above_m', 'a distance in metres > 0', 0, 1e5), measure, key };
      }
      case 'headway': {
        const m = this.map(a, k, 'a map {from, to, below_s | above_s}');
        this.keys(m, ['from', 'to', 'below_s', 'above_s'], k);
        return { kind: 'headway', from: this.id(m.from, `${k}.from`, 'a vehicle id'), to: this.id(m.to, `${k}.to`, 'a vehicle id'), ...this.rule(m, k, 'below_s', 'above_s', 'a time gap in seconds > 0', 0, 1e3), key };
      }
      case 'ttc': {
        const m = this.map(a, k, 'a map {from, to, below_s}');
        this.keys(m, ['from', 'to', 'below_s'], k);
        return { kind: 'ttc', from: this.id(m.from, `${k}.from`, 'a vehicle id'), to: this.id(m.to, `${k}.to`, 'a vehicle id'), value: this.num(m, 'below_s', k, 'a number of seconds > 0', 0, 1e3, undefined, true), key };
      }
      case 'speed': {
        const m = this.map(a, k, 'a map {of, above_kmh | below_kmh | above_mps | below_mps}');
        this.keys(m, ['of', 'above_kmh', 'below_kmh', 'above_mps', 'below_mps'], k);
        const given = ['above_kmh', 'below_kmh', 'above_mps', 'below_mps'].filter((x) => m[x] !== undefined);
        if (given.length !== 1) this.fail(k, 'expected exactly one of above_kmh, below_kmh, above_mps, below_mps');
        const side = given[0].split('_')[0] as 'below' | 'above';
        return { kind: 'speed', of: this.id(m.of, `${k}.of`, 'a vehicle id'), rule: side, value: this.speed(m, side, k), key };
      }
      case 'stopped': {
        const { of, m } = this.subject(a, k, 'a vehicle id or {of, for_s}', ['for_s']);
        return { kind: 'stopped', of, forS: this.num(m, 'for_s', k, 'a time in seconds ≥ 0', 0, 1e4, 0), key };
      }
      case 'collision': {
        const { of, m } = this.subject(a, k, 'a vehicle id or {of, with}', ['with']);
        return { kind: 'collision', of, with: m.with === undefined || m.with === null ? null : this.id(m.with, `${k}.with`, 'a vehicle id'), key };
      }
      case 'event_started':
      case 'event_done': {
        let id: unknown = a, plus = 0;
        if (isRecord(a)) {
          this.keys(a, ['event', 'plus_s'], k);
          id = a.event;
          plus = this.num(a, 'plus_s', k, 'a delay in seconds ≥ 0', 0, 1e5, 0);
        }
        const event = this.id(id, isRecord(a) ? `${k}.event` : k, 'an event id');
        if (!events.has(event)) this.fail(isRecord(a) ? `${k}.event` : k, `no event '${event}' in this story (events: ${[...events].join(', ') || 'none'})`);
        return { kind: 'event', event, state: kind === 'event_done' ? 'done' : 'started', plus, key };
      }
      default: {
        const list = this.list(a, k, false);
        if (list.length === 0) this.fail(k, 'expected at least one condition');
        return { kind: kind as 'all' | 'any', of: list.map((x, i) => this.condition(x, `${k}[${i}]`, events)), key };
      }
    }
  }

  private action(v: unknown, key: string, actors: ReadonlySet<string>): ActionSpec {
    const m = this.map(v, key, `an action {actor, <one of ${ACTIONS.join(', ')}>}`);
    const kind = this.kind(m, ACTIONS, key, 'action', ['actor']);
    const k = `${key}.${kind}`;
    const a = m[kind];
    if (kind === 'set_signal') {
      if (m.actor !== undefined) this.fail(`${key}.actor`, 'set_signal acts on a junction, not an actor');
      const s = this.map(a, k, 'a map {junction, phase | states, hold_s}');
      this.keys(s, ['junction', 'phase', 'states', 'hold_s'], k);
      if ((s.phase === undefined) === (s.states === undefined)) this.fail(k, 'expected one of phase (an index into the junction\'s plan) or states (group id → G, g, y, r, o)');
      let states: Record<string, string> | null = null;
      if (s.states !== undefined) {
        const st = this.map(s.states, `${k}.states`, 'a map group id → G, g, y, r or o');
        states = {};
        for (const [g, x] of Object.entries(st)) {
          if (typeof x !== 'string' || !['G', 'g', 'y', 'r', 'o'].includes(x)) this.fail(`${k}.states.${g}`, `expected G, g, y, r or o, got ${JSON.stringify(x)}`);
          states[g] = x;
        }
      }
      const phase = s.phase === undefined ? null : this.num(s, 'phase', k, 'a phase index ≥ 0', 0, 1000);
      if (phase !== null && !Number.isInteger(phase)) this.fail(`${k}.phase`, `expected a whole phase index, got ${phase}`);
      return { kind: 'set_signal', junction: this.id(String(s.junction), `${k}.junction`, 'a junction id'), phase, states, holdS: s.hold_s === undefined || s.hold_s === null ? null : this.num(s, 'hold_s', k, 'a time in seconds > 0', 0, 1e5, undefined, true), key };
    }
    const actor = this.id(m.actor, `${key}.actor`, 'the id of one of the story\'s actors');
    if (!actors.has(actor)) this.fail(`${key}.actor`, `no actor '${actor}' in this story (actors: ${[...actors].join(', ') || 'none'})`);
    switch (kind) {
      case 'speed': {
        const s = this.map(a, k, 'a map {target_kmh, accel_mps2 | duration_s, shape}');
        this.keys(s, ['target_kmh', 'target_mps', 'accel_mps2', 'duration_s', 'shape'], k);
        const shape = this.shape(s, k, 'linear');
        const target = this.speed(s, 'target', k);
        if (shape === 'step') {
          if (s.accel_mps2 !== undefined || s.duration_s !== undefined) this.fail(`${k}.shape`, 'a step changes the speed at once: give no accel_mps2 or duration_s');
          return { kind: 'speed', actor, target, rate: 0, duration: 0, shape, key };
        }
        if ((s.accel_mps2 === undefined) === (s.duration_s === undefined)) this.fail(k, 'expected one of accel_mps2 (the rate, a magnitude) or duration_s (or shape: step)');
        const rate = s.accel_mps2 === undefined ? null : Math.abs(this.num(s, 'accel_mps2', k, 'an acceleration in m/s² (its magnitude is the rate, > 0 and ≤ 30)', -30, 30));
        if (rate === 0) this.fail(`${k}.accel_mps2`, 'expected an acceleration in m/s² (its magnitude is the rate, > 0 and ≤ 30), got 0');
        const duration = s.duration_s === undefined ? null : this.num(s, 'duration_s', k, 'a duration in seconds > 0', 0, 1e4, undefined, true);
        return { kind: 'speed', actor, target, rate, duration, shape, key };
      }
      case 'lane_change': {
        const s = this.map(a, k, 'a map {to: left | right | <lane id>, duration_s, shape, offset_m}');
        this.keys(s, ['to', 'duration_s', 'shape', 'offset_m'], k);
        const to = s.to;
        if (typeof to !== 'string') this.fail(`${k}.to`, `expected left, right or a lane id, got ${JSON.stringify(to)}`);
        return {
          kind: 'lane_change', actor,
          to: to === 'left' || to === 'right' ? to : { id: this.id(to, `${k}.to`, 'left, right or a lane id') },
          duration: this.num(s, 'duration_s', k, 'a duration in seconds > 0', 0, 1e3, undefined, true),
          shape: this.shape(s, k, 'sinusoidal'),
          offset: this.num(s, 'offset_m', k, 'a lateral offset in metres (left positive) within [-5, 5]', -5, 5, 0),
          key,
        };
      }
      case 'follow_route': {
        const lanes = this.list(isRecord(a) ? a.lanes : a, isRecord(a) ? `${k}.lanes` : k, false).map((l, i) => this.id(String(l), `${k}[${i}]`, 'a lane id'));
        if (isRecord(a)) this.keys(a, ['lanes'], k);
        if (lanes.length === 0) this.fail(k, 'expected a list of at least one lane id');
        return { kind: 'follow_route', actor, lanes, key };
      }
      case 'keep_time_gap': {
        const s = this.map(a, k, 'a map {to, gap_s, position, max_accel_mps2, max_decel_mps2}');
        this.keys(s, ['to', 'gap_s', 'position', 'max_accel_mps2', 'max_decel_mps2'], k);
        const position = s.position ?? 'ahead';
        if (position !== 'ahead' && position !== 'behind') this.fail(`${k}.position`, `expected ahead or behind (the actor relative to 'to'), got ${JSON.stringify(position)}`);
        return {
          kind: 'keep_time_gap', actor,
          to: this.id(s.to, `${k}.to`, 'a vehicle id'),
          gap: this.num(s, 'gap_s', k, 'a time gap in seconds > 0', 0, 100, undefined, true),
          position,
          maxAccel: this.num(s, 'max_accel_mps2', k, 'an acceleration in m/s² > 0', 0, 30, 3, true),
          maxDecel: this.num(s, 'max_decel_mps2', k, 'a deceleration in m/s² > 0 (a magnitude)', 0, 30, 6, true),
          key,
        };
      }
      case 'stop': {
        const s = this.map(a ?? {}, k, 'a map {decel_mps2}');
        this.keys(s, ['decel_mps2'], k);
        const decel = Math.abs(this.num(s, 'decel_mps2', k, 'a deceleration in m/s² (its magnitude, > 0 and ≤ 30)', -30, 30, 4));
        if (decel === 0) this.fail(`${k}.decel_mps2`, 'expected a deceleration in m/s² (its magnitude, > 0 and ≤ 30), got 0');
        return { kind: 'stop', actor, decel, key };
      }
      default: {
        if (a !== true && !(isRecord(a) && Object.keys(a).length === 0)) this.fail(k, `expected true (${kind}: true), got ${JSON.stringify(a)}`);
        return { kind: kind as 'hand_to_policy' | 'take_from_policy', actor, key };
      }
    }
  }

  private shape(m: Record<string, unknown>, key: string, def: Shape): Shape {
    const s = m.shape ?? def;
    if (!SHAPES.includes(s as Shape)) this.fail(`${key}.shape`, `expected one of ${SHAPES.join(', ')}, got ${JSON.stringify(s)}`);
    return s as Shape;
  }

  private criterion(v: unknown, key: string, names: Map<string, number>): CriterionSpec {
    const c = this.map(v, key, `a criterion (one of ${CRITERIA.join(', ')})`);
    const kind = this.kind(c, CRITERIA, key, 'criterion', ['name']);
    const k = `${key}.${kind}`;
    const a = c[kind];
    let name: string;
    if (c.name !== undefined) name = this.id(c.name, `${key}.name`, 'a criterion name');
    else {
      const n = (names.get(kind) ?? 0) + 1;
      names.set(kind, n);
      name = n === 1 ? kind : `${kind}_${n}`;
    }
    const ego = (m: Record<string, unknown>) => this.id(m.ego, `${k}.ego`, 'the id of the vehicle under test');
    const other = (m: Record<string, unknown>, f: string) => (m[f] === undefined || m[f] === null ? null : this.id(m[f], `${k}.${f}`, 'a vehicle id'));
    switch (kind) {
      case 'no_collision': {
        if (typeof a === 'string') return { kind, ego: this.id(a, k, 'the id of the vehicle under test'), with: null, name, key };
        const m = this.map(a, k, 'a vehicle id or {ego, with}');
        this.keys(m, ['ego', 'with'], k);
        return { kind, ego: ego(m), with: other(m, 'with'), name, key };
      }
      case 'min_ttc': {
        const m = this.map(a, k, 'a map {ego, s, to}');
        this.keys(m, ['ego', 's', 'to'], k);
        return { kind, ego: ego(m), to: other(m, 'to'), limit: this.num(m, 's', k, 'a number of seconds > 0', 0, 1e3, undefined, true), name, key };
      }
      case 'min_distance': {
        const m = this.map(a, k, 'a map {ego, m, to}');
        this.keys(m, ['ego', 'm', 'to'], k);
        return { kind, ego: ego(m), to: other(m, 'to'), limit: this.num(m, 'm', k, 'a distance in metres ≥ 0', 0, 1e4), name, key };
      }
      case 'stopped_before': {
        const m = this.map(a, k, 'a map {ego, point: {x, y} | {lane, s_m} | {actor}, margin_m}');
        this.keys(m, ['ego', 'point', 'margin_m'], k);
        const p = this.map(m.point, `${k}.point`, 'a point {x, y}, {lane, s_m} or {actor: <vehicle id>}');
        let point: StopPoint;
        if (p.actor !== undefined) {
          this.keys(p, ['actor'], `${k}.point`);
          point = { kind: 'vehicle', id: this.id(p.actor, `${k}.point.actor`, 'a vehicle id') };
        } else point = this.point(p, `${k}.point`);
        return { kind, ego: ego(m), point, margin: this.num(m, 'margin_m', k, 'a margin in metres ≥ 0', 0, 1e3, 0), name, key };
      }
      case 'peak_decel': {
        const m = this.map(a, k, 'a map {ego, max_mps2}');
        this.keys(m, ['ego', 'max_mps2'], k);
        return { kind, ego: ego(m), limit: this.num(m, 'max_mps2', k, 'a deceleration in m/s² > 0 (a magnitude)', 0, 100, undefined, true), name, key };
      }
      default: {
        const m = this.map(a, k, 'a map {ego, point, radius_m, within_s}');
        this.keys(m, ['ego', 'point', 'radius_m', 'within_s'], k);
        return { kind: 'reach', ego: ego(m), point: this.point(m.point, `${k}.point`), radius: this.num(m, 'radius_m', k, 'a radius in metres > 0', 0, 1e4, 5, true), within: this.num(m, 'within_s', k, 'a time in seconds > 0 (story time)', 0, 1e5, undefined, true), name, key };
      }
    }
  }
}
