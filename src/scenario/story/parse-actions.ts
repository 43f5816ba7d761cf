/**
 * The story's actions as YAML gives them (speed, lane_change, follow_route, keep_time_gap, stop, hand_to_policy,
 * take_from_policy, set_signal), read into ActionSpec: each with its own keys, units and bounds.
 */
import { isRecord } from '../../plant/config/yaml-file.js';
import type { StoryFields } from './parse-fields.js';
import type { ActionSpec } from './spec.js';

const ACTIONS = ['speed', 'lane_change', 'follow_route', 'keep_time_gap', 'stop', 'hand_to_policy', 'take_from_policy', 'set_signal'];

export function readAction(f: StoryFields, v: unknown, key: string, actors: ReadonlySet<string>): ActionSpec {
  const m = f.map(v, key, `an action {actor, <one of ${ACTIONS.join(', ')}>}`);
  const kind = f.kind(m, ACTIONS, key, 'action', ['actor']);
  const k = `${key}.${kind}`;
  const a = m[kind];
  if (kind === 'set_signal') {
    if (m.actor !== undefined) f.fail(`${key}.actor`, 'set_signal acts on a junction, not an actor');
    const s = f.map(a, k, 'a map {junction, phase | states, hold_s}');
    f.keys(s, ['junction', 'phase', 'states', 'hold_s'], k);
    if ((s.phase === undefined) === (s.states === undefined)) f.fail(k, 'expected one of phase (an index into the junction\'s plan) or states (group id → G, g, y, r, o)');
    let states: Record<string, string> | null = null;
    if (s.states !== undefined) {
      const st = f.map(s.states, `${k}.states`, 'a map group id → G, g, y, r or o');
      states = {};
      for (const [g, x] of Object.entries(st)) {
        if (typeof x !== 'string' || !['G', 'g', 'y', 'r', 'o'].includes(x)) f.fail(`${k}.states.${g}`, `expected G, g, y, r or o, got ${JSON.stringify(x)}`);
        states[g] = x;
      }
    }
    const phase = s.phase === undefined ? null : f.num(s, 'phase', k, 'a phase index ≥ 0', 0, 1000);
    if (phase !== null && !Number.isInteger(phase)) f.fail(`${k}.phase`, `expected a whole phase index, got ${phase}`);
    return { kind: 'set_signal', junction: f.id(String(s.junction), `${k}.junction`, 'a junction id'), phase, states, holdS: s.hold_s === undefined || s.hold_s === null ? null : f.num(s, 'hold_s', k, 'a time in seconds > 0', 0, 1e5, undefined, true), key };
  }
  const actor = f.id(m.actor, `${key}.actor`, 'the id of one of the story\'s actors');
  if (!actors.has(actor)) f.fail(`${key}.actor`, `no actor '${actor}' in this story (actors: ${[...actors].join(', ') || 'none'})`);
  switch (kind) {
    case 'speed': {
      const s = f.map(a, k, 'a map {target_kmh, accel_mps2 | duration_s, shape}');
      f.keys(s, ['target_kmh', 'target_mps', 'accel_mps2', 'duration_s', 'shape'], k);
      const shape = f.shape(s, k, 'linear');
      const target = f.speed(s, 'target', k);
      if (shape === 'step') {
        if (s.accel_mps2 !== undefined || s.duration_s !== undefined) f.fail(`${k}.shape`, 'a step changes the speed at once: give no accel_mps2 or duration_s');
        return { kind: 'speed', actor, target, rate: 0, duration: 0, shape, key };
      }
      if ((s.accel_mps2 === undefined) === (s.duration_s === undefined)) f.fail(k, 'expected one of accel_mps2 (the rate, a magnitude) or duration_s (or shape: step)');
      const rate = s.accel_mps2 === undefined ? null : Math.abs(f.num(s, 'accel_mps2', k, 'an acceleration in m/s² (its magnitude is the rate, > 0 and ≤ 30)', -30, 30));
      if (rate === 0) f.fail(`${k}.accel_mps2`, 'expected an acceleration in m/s² (its magnitude is the rate, > 0 and ≤ 30), got 0');
      const duration = s.duration_s === undefined ? null : f.num(s, 'duration_s', k, 'a duration in seconds > 0', 0, 1e4, undefined, true);
      return { kind: 'speed', actor, target, rate, duration, shape, key };
    }
    case 'lane_change': {
      const s = f.map(a, k, 'a map {to: left | right | <lane id>, duration_s, shape, offset_m}');
      f.keys(s, ['to', 'duration_s', 'shape', 'offset_m'], k);
      const to = s.to;
      if (typeof to !== 'string') f.fail(`${k}.to`, `expected left, right or a lane id, got ${JSON.stringify(to)}`);
      return {
        kind: 'lane_change', actor,
        to: to === 'left' || to === 'right' ? to : { id: f.id(to, `${k}.to`, 'left, right or a lane id') },
        duration: f.num(s, 'duration_s', k, 'a duration in seconds > 0', 0, 1e3, undefined, true),
        shape: f.shape(s, k, 'sinusoidal'),
        offset: f.num(s, 'offset_m', k, 'a lateral offset in metres (left positive) within [-5, 5]', -5, 5, 0),
        key,
      };
    }
    case 'follow_route': {
      const lanes = f.list(isRecord(a) ? a.lanes : a, isRecord(a) ? `${k}.lanes` : k, false).map((l, i) => f.id(String(l), `${k}[${i}]`, 'a lane id'));
      if (isRecord(a)) f.keys(a, ['lanes'], k);
      if (lanes.length === 0) f.fail(k, 'expected a list of at least one lane id');
      return { kind: 'follow_route', actor, lanes, key };
    }
    case 'keep_time_gap': {
      const s = f.map(a, k, 'a map {to, gap_s, position, max_accel_mps2, max_decel_mps2}');
      f.keys(s, ['to', 'gap_s', 'position', 'max_accel_mps2', 'max_decel_mps2'], k);
      const position = s.position ?? 'ahead';
      if (position !== 'ahead' && position !== 'behind') f.fail(`${k}.position`, `expected ahead or behind (the actor relative to 'to'), got ${JSON.stringify(position)}`);
      return {
        kind: 'keep_time_gap', actor,
        to: f.id(s.to, `${k}.to`, 'a vehicle id'),
        gap: f.num(s, 'gap_s', k, 'a time gap in seconds > 0', 0, 100, undefined, true),
        position,
        maxAccel: f.num(s, 'max_accel_mps2', k, 'an acceleration in m/s² > 0', 0, 30, 3, true),
        maxDecel: f.num(s, 'max_decel_mps2', k, 'a deceleration in m/s² > 0 (a magnitude)', 0, 30, 6, true),
        key,
      };
    }
    case 'stop': {
      const s = f.map(a ?? {}, k, 'a map {decel_mps2}');
      f.keys(s, ['decel_mps2'], k);
      const decel = Math.abs(f.num(s, 'decel_mps2', k, 'a deceleration in m/s² (its magnitude, > 0 and ≤ 30)', -30, 30, 4));
      if (decel === 0) f.fail(`${k}.decel_mps2`, 'expected a deceleration in m/s² (its magnitude, > 0 and ≤ 30), got 0');
      return { kind: 'stop', actor, decel, key };
    }
    default: {
      if (a !== true && !(isRecord(a) && Object.keys(a).length === 0)) f.fail(k, `expected true (${kind}: true), got ${JSON.stringify(a)}`);
      return { kind: kind as 'hand_to_policy' | 'take_from_policy', actor, key };
    }
  }
}
