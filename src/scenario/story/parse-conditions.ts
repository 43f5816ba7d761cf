/**
 * The story's trigger conditions as YAML gives them (`reach`, `ttc`, `all`, …), read into Condition. Apart from the
 * rest of the parser because conditions nest (all, any) and are shared by event triggers, the story's start and
 * its end; the runner evaluates them (conditions.ts).
 */
import { isRecord } from '../../plant/config/yaml-file.js';
import type { StoryFields } from './parse-fields.js';
import type { Condition } from './spec.js';

/** a start line's speed band when the file gives none: ± 5 km/h */
const START_LINE_TOLERANCE_MPS = 5 / 3.6;

const CONDITIONS = ['at_s', 'after_s', 'reach', 'start_line', 'traveled', 'route_s', 'distance', 'headway', 'ttc', 'speed', 'stopped', 'collision', 'event_started', 'event_done', 'all', 'any'];

/** `{ <kind>: <args> }`: a vehicle id alone, or a map with `of` (and the kind's own keys). */
function subject(f: StoryFields, v: unknown, key: string, what: string, allowed: readonly string[]): { of: string; m: Record<string, unknown> } {
  if (typeof v === 'string') return { of: f.id(v, key, 'a vehicle id'), m: {} };
  const m = f.map(v, key, what);
  f.keys(m, ['of', ...allowed], key);
  return { of: f.id(m.of, `${key}.of`, 'a vehicle id'), m };
}

function rule(f: StoryFields, m: Record<string, unknown>, key: string, below: string, above: string, what: string, min: number, max: number): { rule: 'below' | 'above'; value: number } {
  if ((m[below] === undefined) === (m[above] === undefined)) f.fail(key, `expected one of ${below} or ${above}`);
  const k = m[below] !== undefined ? below : above;
  return { rule: k === below ? 'below' : 'above', value: f.num(m, k, key, what, min, max, undefined, true) };
}

export function readCondition(f: StoryFields, v: unknown, key: string, events: ReadonlySet<string>): Condition {
  const c = f.map(v, key, `a condition (one of ${CONDITIONS.join(', ')})`);
  const kind = f.kind(c, CONDITIONS, key, 'condition');
  const k = `${key}.${kind}`;
  const a = c[kind];
  switch (kind) {
    case 'at_s':
    case 'after_s':
      if (typeof a !== 'number' || !Number.isFinite(a) || a < 0) f.fail(k, `expected a time in seconds ≥ 0, got ${JSON.stringify(a)}`);
      return { kind: kind === 'at_s' ? 'at' : 'after', t: a, key };
    case 'reach': {
      const { of, m } = subject(f, a, k, 'a map {of, point, radius_m}', ['point', 'radius_m']);
      return { kind: 'reach', of, point: f.point(m.point, `${k}.point`), radius: f.num(m, 'radius_m', k, 'a radius in metres > 0', 0, 1e4, 2, true), key };
    }
    case 'start_line': {
      const m = f.map(a, k, 'a map {of, point: {lane, s_m}, speed_kmh, tolerance_kmh}');
      f.keys(m, ['of', 'point', 'speed_kmh', 'speed_mps', 'tolerance_kmh', 'tolerance_mps'], k);
      const point = f.point(m.point, `${k}.point`);
      if (point.kind !== 'lane') f.fail(`${k}.point`, 'expected a point on a lane {lane, s_m}: the line runs across that lane');
      return { kind: 'start_line', of: f.id(m.of, `${k}.of`, 'a vehicle id'), point, speed: f.speed(m, 'speed', k), tolerance: f.speed(m, 'tolerance', k, START_LINE_TOLERANCE_MPS), key };
    }
    case 'traveled': {
      const { of, m } = subject(f, a, k, 'a map {of, m}', ['m']);
      return { kind: 'traveled', of, m: f.num(m, 'm', k, 'a distance in metres > 0', 0, 1e7, undefined, true), key };
    }
    case 'route_s': {
      const { of, m } = subject(f, a, k, 'a map {of, route: [lane ids], m}', ['route', 'm']);
      const route = f.list(m.route, `${k}.route`, false).map((l, i) => f.id(String(l), `${k}.route[${i}]`, 'a lane id'));
      if (route.length === 0) f.fail(`${k}.route`, 'expected at least one lane id');
      return { kind: 'route_s', of, route, m: f.num(m, 'm', k, 'a distance in metres ≥ 0', 0, 1e7), key };
    }
    case 'distance': {
      const m = f.map(a, k, 'a map {from, to, below_m | above_m, measure}');
      f.keys(m, ['from', 'to', 'below_m', 'above_m', 'measure'], k);
      const measure = m.measure ?? 'gap';
      if (measure !== 'gap' && measure !== 'centres' && measure !== 'lane') f.fail(`${k}.measure`, `expected gap (box to box), centres or lane (bumper gap along from's lane), got ${JSON.stringify(measure)}`);
      return { kind: 'distance', from: f.id(m.from, `${k}.from`, 'a vehicle id'), to: f.id(m.to, `${k}.to`, 'a vehicle id'), ...rule(f, m, k, 'below_m', 'above_m', 'a distance in metres > 0', 0, 1e5), measure, key };
    }
    case 'headway': {
      const m = f.map(a, k, 'a map {from, to, below_s | above_s}');
      f.keys(m, ['from', 'to', 'below_s', 'above_s'], k);
      return { kind: 'headway', from: f.id(m.from, `${k}.from`, 'a vehicle id'), to: f.id(m.to, `${k}.to`, 'a vehicle id'), ...rule(f, m, k, 'below_s', 'above_s', 'a time gap in seconds > 0', 0, 1e3), key };
    }
    case 'ttc': {
      const m = f.map(a, k, 'a map {from, to, below_s}');
      f.keys(m, ['from', 'to', 'below_s'], k);
      return { kind: 'ttc', from: f.id(m.from, `${k}.from`, 'a vehicle id'), to: f.id(m.to, `${k}.to`, 'a vehicle id'), value: f.num(m, 'below_s', k, 'a number of seconds > 0', 0, 1e3, undefined, true), key };
    }
    case 'speed': {
      const m = f.map(a, k, 'a map {of, above_kmh | below_kmh | above_mps | below_mps}');
      f.keys(m, ['of', 'above_kmh', 'below_kmh', 'above_mps', 'below_mps'], k);
      const given = ['above_kmh', 'below_kmh', 'above_mps', 'below_mps'].filter((x) => m[x] !== undefined);
      if (given.length !== 1) f.fail(k, 'expected exactly one of above_kmh, below_kmh, above_mps, below_mps');
      const side = given[0].split('_')[0] as 'below' | 'above';
      return { kind: 'speed', of: f.id(m.of, `${k}.of`, 'a vehicle id'), rule: side, value: f.speed(m, side, k), key };
    }
    case 'stopped': {
      const { of, m } = subject(f, a, k, 'a vehicle id or {of, for_s}', ['for_s']);
      return { kind: 'stopped', of, forS: f.num(m, 'for_s', k, 'a time in seconds ≥ 0', 0, 1e4, 0), key };
    }
    case 'collision': {
      const { of, m } = subject(f, a, k, 'a vehicle id or {of, with}', ['with']);
      return { kind: 'collision', of, with: m.with === undefined || m.with === null ? null : f.id(m.with, `${k}.with`, 'a vehicle id'), key };
    }
    case 'event_started':
    case 'event_done': {
      let id: unknown = a, plus = 0;
      if (isRecord(a)) {
        f.keys(a, ['event', 'plus_s'], k);
        id = a.event;
        plus = f.num(a, 'plus_s', k, 'a delay in seconds ≥ 0', 0, 1e5, 0);
      }
      const event = f.id(id, isRecord(a) ? `${k}.event` : k, 'an event id');
      if (!events.has(event)) f.fail(isRecord(a) ? `${k}.event` : k, `no event '${event}' in this story (events: ${[...events].join(', ') || 'none'})`);
      return { kind: 'event', event, state: kind === 'event_done' ? 'done' : 'started', plus, key };
    }
    default: {
      const list = f.list(a, k, false);
      if (list.length === 0) f.fail(k, 'expected at least one condition');
      return { kind: kind as 'all' | 'any', of: list.map((x, i) => readCondition(f, x, `${k}[${i}]`, events)), key };
    }
  }
}
