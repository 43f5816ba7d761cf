/**
 * Campaign YAML (spec §9.5, VDSim's tools/vdsim_batch.py and configs/campaigns/*.yaml):
 *
 *   name: iso7401_grid
 *   seed: 42                       # root seed: run i gets seed + i (scenario `seed`), Monte-Carlo draws use it
 *   duration: 4.0                  # optional: every run's duration
 *   runs:
 *     - scenario: oval_lap                                   # one run of a scenario (stem or path)
 *     - sweep: {base: iso7401, grid: {maneuver.v: [..], tire.mu_nominal: [..]}}   # the product of the axes
 *     - monte_carlo: {base: step_steer, n: 10, vary: {vehicle.mass: {dist: normal, mean, std},
 *                                                    tire.mu_nominal: {dist: uniform, lo, hi}}}
 *   metrics: [peak_ay, ...]        # default: each scenario's own list
 *   plot: {metric: ay_ss, x: maneuver.v, series: tire.mu_nominal}   # the SVG figure
 *   parallel: 4                    # threads (default: all cores)
 *
 * VDSim's own form (`base:` + `sweep: {grid}` at the top level, as campaigns/mu_sweep.yaml) loads too. Keys
 * are dotted paths into the scenario document; `vehicle.*`, `tire.*` and `mu` apply to the resolved parameter
 * files (config.ts). Expansion is deterministic: the same campaign gives the same runs, ids and draws.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { ConfigError } from '../../plant/config/errors.js';
import { isRecord, readYamlFile } from '../../plant/config/yaml-file.js';
import { projectRoot } from '../../util/project-root.js';
import { SeededRandom } from '../../util/random.js';
import { MAX_DURATION_S } from '../config.js';
import { type RefOptions, resolveRef } from '../refs.js';
import { expectKeys, numberAt } from '../yaml-util.js';
import { runName } from './run-name.js';

export interface RunJob {
  /** 1-based position in the campaign, zero-padded, plus its swept values (`0007_v=20_mu_nominal=0.5`), else the scenario's stem (run-name.ts) */
  runId: string;
  index: number;
  /** the scenario file: relative to the project root when inside it (portable to other machines' checkouts) */
  scenario: string;
  overrides: Record<string, unknown>;
  metrics: string[] | null;
}

export interface Campaign {
  file: string;
  name: string;
  seed: number | null;
  jobs: RunJob[];
  /** the swept keys, in order (summary columns) */
  keys: string[];
  metrics: string[] | null;
  plot: { metric: string; x: string; series: string | null } | null;
  parallel: number | null;
}

const TOP = ['name', 'seed', 'duration', 'runs', 'metrics', 'plot', 'parallel', 'output', 'base', 'sweep', 'monte_carlo', 'description'];

/** A scenario path as jobs carry it. */
export function portablePath(p: string): string {
  const rel = relative(projectRoot(), resolve(p));
  return rel.startsWith('..') || isAbsolute(rel) ? resolve(p) : rel;
}

/** A job's scenario path on this machine. */
export function localPath(p: string): string {
  return isAbsolute(p) ? p : resolve(projectRoot(), p);
}

function normal(rng: SeededRandom): number {
  // Box–Muller with a guard against log(0)
  const u = Math.max(rng.next(), 1e-300);
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Runs a campaign may expand to, all entries together: a grid's product is checked before it is built (a
 * 100×100×100 grid once sat at 726 MB expanding, without starting a run).
 */
export const MAX_CAMPAIGN_RUNS = 10_000;

function gridProduct(grid: Record<string, unknown>, file: string, key: string, room: number): Array<Record<string, unknown>> {
  let size = 1;
  for (const [k, values] of Object.entries(grid)) {
    if (!Array.isArray(values) || values.length === 0) throw new ConfigError(file, `${key}.${k}`, 'expected a non-empty list of values');
    size *= values.length;
  }
  if (size > room) throw new ConfigError(file, key, `the grid has ${size} combinations; a campaign runs at most ${MAX_CAMPAIGN_RUNS} (${room} left after the entries before it)`);
  let combos: Array<Record<string, unknown>> = [{}];
  for (const [k, values] of Object.entries(grid)) combos = combos.flatMap((c) => (values as unknown[]).map((v) => ({ ...c, [k]: v })));
  return combos;
}

function draws(vary: Record<string, unknown>, n: number, rng: SeededRandom, file: string, key: string): Array<Record<string, unknown>> {
  const specs = Object.entries(vary).map(([k, s]) => {
    const sk = `${key}.${k}`;
    if (!isRecord(s)) throw new ConfigError(file, sk, 'expected {dist: normal, mean, std} or {dist: uniform, lo, hi}');
    if (s.dist === 'normal') {
      expectKeys(s, ['dist', 'mean', 'std'], file, sk);
      return { k, draw: () => numberAt(s, 'mean', file, `${sk}.mean`, 0) + numberAt(s, 'std', file, `${sk}.std`, 1, 0) * normal(rng) };
    }
    if (s.dist === 'uniform') {
      expectKeys(s, ['dist', 'lo', 'hi'], file, sk);
      const lo = numberAt(s, 'lo', file, `${sk}.lo`, 0);
      const hi = numberAt(s, 'hi', file, `${sk}.hi`, 1);
      if (!(hi >= lo)) throw new ConfigError(file, `${sk}.hi`, `must be ≥ lo (${lo}), got ${hi}`);
      return { k, draw: () => lo + (hi - lo) * rng.next() };
    }
    throw new ConfigError(file, `${sk}.dist`, `expected normal or uniform, got ${JSON.stringify(s.dist)}`);
  });
  return Array.from({ length: n }, () => Object.fromEntries(specs.map((s) => [s.k, s.draw()])));
}

export function loadCampaign(path: string, opts: RefOptions = {}): Campaign {
  const data = readYamlFile(path).data;
  if (!isRecord(data)) throw new ConfigError(path, undefined, 'expected a campaign map {name, runs: [...]}');
  expectKeys(data, TOP, path, '');
  const name = typeof data.name === 'string' ? data.name : path.split('/').pop()!.replace(/\.ya?ml$/, '');
  const seed = data.seed === undefined || data.seed === null ? null : numberAt(data, 'seed', path, 'seed', 0, 0, 2 ** 32 - 1);
  const rng = new SeededRandom(seed ?? 1);
  const common: Record<string, unknown> = {};
  if (data.duration !== undefined) common.duration = numberAt(data, 'duration', path, 'duration', 10, 1e-3, MAX_DURATION_S);
  let entries: unknown[];
  if (data.runs !== undefined) {
    if (!Array.isArray(data.runs) || data.runs.length === 0) throw new ConfigError(path, 'runs', 'expected a list of {scenario} | {sweep} | {monte_carlo}');
    if (data.base !== undefined || data.sweep !== undefined) throw new ConfigError(path, 'base', 'give either runs: or VDSim\'s base: + sweep:, not both');
    entries = data.runs;
  } else if (data.base !== undefined) {
    entries = [data.sweep !== undefined ? { sweep: { base: data.base, ...(isRecord(data.sweep) ? data.sweep : {}) } } : data.monte_carlo !== undefined ? { monte_carlo: { base: data.base, ...(isRecord(data.monte_carlo) ? data.monte_carlo : {}) } } : { scenario: data.base }];
  } else throw new ConfigError(path, 'runs', 'a campaign needs runs: (or base: with sweep:)');

  const jobs: RunJob[] = [];
  const keys: string[] = [];
  const addKeys = (o: Record<string, unknown>) => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) keys.push(k);
  };
  const push = (scenarioRef: unknown, key: string, overrides: Record<string, unknown>) => {
    if (jobs.length >= MAX_CAMPAIGN_RUNS) throw new ConfigError(path, key, `a campaign runs at most ${MAX_CAMPAIGN_RUNS}`);
    const file = resolveRef(scenarioRef, 'scenario', path, key, opts);
    addKeys(overrides);
    const index = jobs.length;
    const stem = file.split('/').pop()!.replace(/\.ya?ml$/, '');
    const o: Record<string, unknown> = { ...common, ...overrides };
    if (seed !== null && !('seed' in overrides)) o.seed = seed + index;
    jobs.push({ runId: runName(index + 1, stem, overrides), index, scenario: portablePath(file), overrides: o, metrics: null });
  };
  entries.forEach((e, i) => {
    const key = data.runs !== undefined ? `runs[${i}]` : data.sweep !== undefined ? 'sweep' : 'monte_carlo';
    if (!isRecord(e)) throw new ConfigError(path, key, 'expected {scenario} | {sweep} | {monte_carlo}');
    if (e.scenario !== undefined) {
      expectKeys(e, ['scenario', 'overrides'], path, key);
      if (e.overrides !== undefined && !isRecord(e.overrides)) throw new ConfigError(path, `${key}.overrides`, 'expected a map {dotted.key: value}');
      push(e.scenario, `${key}.scenario`, (e.overrides as Record<string, unknown>) ?? {});
    } else if (e.sweep !== undefined) {
      expectKeys(e, ['sweep'], path, key);
      const s = e.sweep;
      if (!isRecord(s) || !isRecord(s.grid)) throw new ConfigError(path, `${key}.sweep.grid`, 'expected a map {dotted.key: [values]}');
      expectKeys(s, ['base', 'grid'], path, `${key}.sweep`);
      for (const combo of gridProduct(s.grid, path, `${key}.sweep.grid`, MAX_CAMPAIGN_RUNS - jobs.length)) push(s.base, `${key}.sweep.base`, combo);
    } else if (e.monte_carlo !== undefined) {
      expectKeys(e, ['monte_carlo'], path, key);
      const m = e.monte_carlo;
      if (!isRecord(m) || !isRecord(m.vary)) throw new ConfigError(path, `${key}.monte_carlo.vary`, 'expected a map {dotted.key: {dist, ...}}');
      expectKeys(m, ['base', 'n', 'vary'], path, `${key}.monte_carlo`);
      const n = numberAt(m, 'n', path, `${key}.monte_carlo.n`, 10, 1, MAX_CAMPAIGN_RUNS - jobs.length);
      for (const d of draws(m.vary, Math.round(n), rng, path, `${key}.monte_carlo.vary`)) push(m.base, `${key}.monte_carlo.base`, d);
    } else throw new ConfigError(path, key, 'expected one of scenario:, sweep:, monte_carlo:');
  });

  let metrics: string[] | null = null;
  if (data.metrics !== undefined) {
    if (!Array.isArray(data.metrics) || !data.metrics.every((m) => typeof m === 'string')) throw new ConfigError(path, 'metrics', 'expected a list of metric names');
    metrics = data.metrics as string[];
    for (const j of jobs) j.metrics = metrics;
  }
  let plot: Campaign['plot'] = null;
  if (data.plot !== undefined) {
    const p = data.plot;
    if (!isRecord(p) || typeof p.metric !== 'string' || typeof p.x !== 'string') throw new ConfigError(path, 'plot', 'expected {metric, x, series?}');
    expectKeys(p, ['metric', 'x', 'series'], path, 'plot');
    if (!keys.includes(p.x)) throw new ConfigError(path, 'plot.x', `'${p.x}' is not a swept key (swept: ${keys.join(', ') || 'none'})`);
    if (p.series !== undefined && (typeof p.series !== 'string' || !keys.includes(p.series))) throw new ConfigError(path, 'plot.series', `expected a swept key (swept: ${keys.join(', ')})`);
    plot = { metric: p.metric, x: p.x, series: (p.series as string | undefined) ?? null };
  }
  const parallel = data.parallel === undefined ? null : numberAt(data, 'parallel', path, 'parallel', 1, 1, 1024);
  return { file: path, name, seed, jobs, keys, metrics, plot, parallel };
}
