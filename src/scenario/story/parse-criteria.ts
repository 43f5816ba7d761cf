/**
 * The story's pass/fail criteria as YAML gives them (no_collision, min_ttc, min_distance, stopped_before,
 * peak_decel, reach), read into CriterionSpec, each named (by its kind, numbered when it repeats) for the verdicts.
 */
import type { StoryFields } from './parse-fields.js';
import type { CriterionSpec, StopPoint } from './spec.js';

const CRITERIA = ['no_collision', 'min_ttc', 'min_distance', 'stopped_before', 'peak_decel', 'reach'];

export function readCriterion(f: StoryFields, v: unknown, key: string, names: Map<string, number>): CriterionSpec {
  const c = f.map(v, key, `a criterion (one of ${CRITERIA.join(', ')})`);
  const kind = f.kind(c, CRITERIA, key, 'criterion', ['name']);
  const k = `${key}.${kind}`;
  const a = c[kind];
  let name: string;
  if (c.name !== undefined) name = f.id(c.name, `${key}.name`, 'a criterion name');
  else {
    const n = (names.get(kind) ?? 0) + 1;
    names.set(kind, n);
    name = n === 1 ? kind : `${kind}_${n}`;
  }
  const ego = (m: Record<string, unknown>) => f.id(m.ego, `${k}.ego`, 'the id of the vehicle under test');
  const other = (m: Record<string, unknown>, field: string) => (m[field] === undefined || m[field] === null ? null : f.id(m[field], `${k}.${field}`, 'a vehicle id'));
  switch (kind) {
    case 'no_collision': {
      if (typeof a === 'string') return { kind, ego: f.id(a, k, 'the id of the vehicle under test'), with: null, name, key };
      const m = f.map(a, k, 'a vehicle id or {ego, with}');
      f.keys(m, ['ego', 'with'], k);
      return { kind, ego: ego(m), with: other(m, 'with'), name, key };
    }
    case 'min_ttc': {
      const m = f.map(a, k, 'a map {ego, s, to}');
      f.keys(m, ['ego', 's', 'to'], k);
      return { kind, ego: ego(m), to: other(m, 'to'), limit: f.num(m, 's', k, 'a number of seconds > 0', 0, 1e3, undefined, true), name, key };
    }
    case 'min_distance': {
      const m = f.map(a, k, 'a map {ego, m, to}');
      f.keys(m, ['ego', 'm', 'to'], k);
      return { kind, ego: ego(m), to: other(m, 'to'), limit: f.num(m, 'm', k, 'a distance in metres ≥ 0', 0, 1e4), name, key };
    }
    case 'stopped_before': {
      const m = f.map(a, k, 'a map {ego, point: {x, y} | {lane, s_m} | {actor}, margin_m}');
      f.keys(m, ['ego', 'point', 'margin_m'], k);
      const p = f.map(m.point, `${k}.point`, 'a point {x, y}, {lane, s_m} or {actor: <vehicle id>}');
      let point: StopPoint;
      if (p.actor !== undefined) {
        f.keys(p, ['actor'], `${k}.point`);
        point = { kind: 'vehicle', id: f.id(p.actor, `${k}.point.actor`, 'a vehicle id') };
      } else point = f.point(p, `${k}.point`);
      return { kind, ego: ego(m), point, margin: f.num(m, 'margin_m', k, 'a margin in metres ≥ 0', 0, 1e3, 0), name, key };
    }
    case 'peak_decel': {
      const m = f.map(a, k, 'a map {ego, max_mps2}');
      f.keys(m, ['ego', 'max_mps2'], k);
      return { kind, ego: ego(m), limit: f.num(m, 'max_mps2', k, 'a deceleration in m/s² > 0 (a magnitude)', 0, 100, undefined, true), name, key };
    }
    default: {
      const m = f.map(a, k, 'a map {ego, point, radius_m, within_s}');
      f.keys(m, ['ego', 'point', 'radius_m', 'within_s'], k);
      return { kind: 'reach', ego: ego(m), point: f.point(m.point, `${k}.point`), radius: f.num(m, 'radius_m', k, 'a radius in metres > 0', 0, 1e4, 5, true), within: f.num(m, 'within_s', k, 'a time in seconds > 0 (story time)', 0, 1e5, undefined, true), name, key };
    }
  }
}
