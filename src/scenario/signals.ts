/**
 * A scenario's `signals:` section: which junctions get signals and how their plans differ from the default.
 *
 *   signals:
 *     all: false              # true: every junction of the map gets signals (default plans)
 *     actuated: false         # true: default plans of junctions that run alone are vehicle-actuated
 *     junctions:
 *       J3: { offset_s: 20, green_s: [30, 10, 30, 10] }      # the default program with these greens (a green wave: offsets)
 *       J1: { phases: [{ duration_s: 25, states: { J1.A: G, J1.B: r } }, …], yellow_s: 3.5, all_red_s: 2 }
 *       J7: { actuated: true }                                  # this one vehicle-actuated (false: fixed time)
 *
 * The shape is checked here (errors name the key); whether the junction and group ids exist and the program is
 * safe is checked when the scene is built from the map (errors name the junction, the groups and the rule).
 */
import { ConfigError } from '../plant/config/errors.js';
import { isRecord } from '../plant/config/yaml-file.js';
import type { SignalPlanOverride } from '../scene/traffic-control.js';
import { expectKeys, numberAt } from './yaml-util.js';

export interface ScenarioSignals {
  all: boolean;
  /** default plans of junctions that run alone are vehicle-actuated */
  actuated: boolean;
  plans: SignalPlanOverride[];
}

const KEYS = ['all', 'actuated', 'junctions'];
const PLAN_KEYS = ['offset_s', 'phases', 'green_s', 'yellow_s', 'all_red_s', 'actuated'];

export function parseSignals(v: unknown, file: string): ScenarioSignals {
  if (v === undefined || v === null) return { all: false, actuated: false, plans: [] };
  if (!isRecord(v)) throw new ConfigError(file, 'signals', `expected a map {all, junctions}, got ${JSON.stringify(v)}`);
  expectKeys(v, KEYS, file, 'signals');
  if (v.all !== undefined && typeof v.all !== 'boolean') throw new ConfigError(file, 'signals.all', `expected true or false, got ${JSON.stringify(v.all)}`);
  if (v.actuated !== undefined && typeof v.actuated !== 'boolean') throw new ConfigError(file, 'signals.actuated', `expected true (vehicle-actuated default plans) or false (fixed time), got ${JSON.stringify(v.actuated)}`);
  const plans: SignalPlanOverride[] = [];
  if (v.junctions !== undefined && v.junctions !== null) {
    if (!isRecord(v.junctions)) throw new ConfigError(file, 'signals.junctions', 'expected a map of junction id → plan');
    for (const [id, p] of Object.entries(v.junctions)) {
      const key = `signals.junctions.${id}`;
      if (!isRecord(p)) throw new ConfigError(file, key, 'expected a map {offset_s, phases | green_s, yellow_s, all_red_s}');
      expectKeys(p, PLAN_KEYS, file, key);
      const o: SignalPlanOverride = { junction: id };
      if (p.offset_s !== undefined) o.offset_s = numberAt(p, 'offset_s', file, `${key}.offset_s`, 0, 0, 600);
      if (p.yellow_s !== undefined) o.yellow_s = numberAt(p, 'yellow_s', file, `${key}.yellow_s`, 3, 0, 60);
      if (p.all_red_s !== undefined) o.all_red_s = numberAt(p, 'all_red_s', file, `${key}.all_red_s`, 1, 0, 60);
      if (p.actuated !== undefined) {
        if (typeof p.actuated !== 'boolean') throw new ConfigError(file, `${key}.actuated`, `expected true (vehicle-actuated greens) or false (fixed time), got ${JSON.stringify(p.actuated)}`);
        o.actuated = p.actuated;
      }
      if (p.phases !== undefined && p.green_s !== undefined) throw new ConfigError(file, key, 'give phases or green_s, not both');
      if (p.green_s !== undefined) {
        if (!Array.isArray(p.green_s) || p.green_s.length === 0) throw new ConfigError(file, `${key}.green_s`, 'expected a list of green times [s], one per green phase');
        o.green_s = p.green_s.map((g, i) => {
          if (typeof g !== 'number' || !Number.isFinite(g) || g <= 0 || g > 600) throw new ConfigError(file, `${key}.green_s[${i}]`, `expected a green time in (0, 600] s, got ${JSON.stringify(g)}`);
          return g;
        });
      }
      if (p.phases !== undefined) {
        if (!Array.isArray(p.phases) || p.phases.length === 0) throw new ConfigError(file, `${key}.phases`, 'expected a list of phases {duration_s, states}');
        o.phases = p.phases.map((ph, i) => {
          const pk = `${key}.phases[${i}]`;
          if (!isRecord(ph)) throw new ConfigError(file, pk, 'expected a map {duration_s, states}');
          expectKeys(ph, ['duration_s', 'states'], file, pk);
          const duration = numberAt(ph, 'duration_s', file, `${pk}.duration_s`, NaN, 0, 600);
          if (Number.isNaN(duration)) throw new ConfigError(file, `${pk}.duration_s`, 'a phase needs its duration');
          const states = ph.states;
          if (typeof states === 'string') return { duration_s: duration, states };
          if (!isRecord(states)) throw new ConfigError(file, `${pk}.states`, 'expected a map group id → G, g, y, r or o (or one character per group)');
          const out: Record<string, string> = {};
          for (const [g, s] of Object.entries(states)) {
            if (typeof s !== 'string' || !['G', 'g', 'y', 'r', 'o'].includes(s)) throw new ConfigError(file, `${pk}.states.${g}`, `expected G, g, y, r or o, got ${JSON.stringify(s)}`);
            out[g] = s;
          }
          return { duration_s: duration, states: out };
        });
      }
      plans.push(o);
    }
  }
  return { all: v.all === true, actuated: v.actuated === true, plans };
}
