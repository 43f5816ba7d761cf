/**
 * Scenario YAML (seed 001 §2–5, spec §6.7): one file composes vehicle, tire, sensors, map (with its driving line),
 * comms and run mode, naming the others by stem or path (refs.ts). Two forms load:
 *
 * VDSim's experiment, unchanged — one vehicle driven by a manoeuvre:
 *   vehicle: sedan, tire: default_pacejka, level: L2, map: oval_track, sensors: standard, duration: 30,
 *   maneuver: {type: constant_speed | path | step_steer | accel | brake | iso7401, v, steer, ...}, run: {mode: api}
 *
 * VILS's scenario — simulated egos among NPCs on a road map:
 *   name, map, npcs, seed, duration, at_end, dt, scene: {<scene settings>}, signals, story (docs/test-cases.md), sensors: <suite>, metrics: [...],
 *   egos: [{id, vehicle, tire, tire_rear, level, sensors, dt, vehicle_id, size: {length, width},
 *           start: {x, y, yaw, speed} | {route_s, offset, speed}, driver: autopilot | external | maneuver,
 *           autopilot: {speed, speed_factor, lookahead_m, lookahead_gain_s, follow, time_gap_s, min_gap_m, decel},
 *           maneuver: {...}}],
 *   run: {mode: api | rt_comms, comms: <comms file>}
 *   time: {mode: afap | lockstep | realtime, dmax_ms, step_ms, asset_port, expect_assets, ...}   (src/time/settings.ts)
 *
 * `duration` is simulated seconds (0: until stopped). `at_end` says what a served scenario (`vils serve
 * --scenario`) does when its simulation time reaches the duration: `pause` (default: the scene stands at the
 * duration, paused; start it again to go on past it), `loop` (the scene is reset to time 0 and runs again) or
 * `exit` (the server stops). `vils run` and batches always end at the duration.
 *
 * Batch overrides (`_overrides: {dotted.key: value}`, spec §9.5) are applied before parsing: `vehicle.<key>` and
 * `tire.<key>` patch the parameter files of every ego (`egos.<i>.vehicle.<key>` of one), `mu` the road
 * friction, anything else is set at that path in the scenario document. Every error names the file and the
 * key and says what was expected. The egos (and the experiment form's one ego) are read in ego-config.ts.
 */
import { ConfigError } from '../plant/config/errors.js';
import { isRecord, readYamlFile } from '../plant/config/yaml-file.js';
import { loadSensorParams } from '../plant/config/load-sensor.js';
import type { SensorParams } from '../plant/params/sensor.js';
import { SCENE_SETTINGS, type SceneConfig } from '../scene/config.js';
import { checkSettings } from '../scene/settings.js';
import { MAX_NPCS } from '../traffic/engine.js';
import { type CommsSpec, parseComms } from '../cosim/comms/config.js';
import { parseSignals, type ScenarioSignals } from './signals.js';
import { parseStory, type StorySpec } from './story/index.js';
import { type TimeSettings, TimeSettingsError, parseTimeSettings, planSession } from '../time/settings.js';
import { STEP_US, egoAssetName } from './assets.js';
import { loadTemplates } from '../cosim/comms/templates/registry.js';
import { parseEgos, sensorHosts, type EgoSpec, type InfraSensor, type ParamPatch } from './ego-config.js';
import { type ScenarioMap, loadScenarioMap } from './map.js';
import { type ScenarioLoadOptions, resolveRef } from './refs.js';
import { clonePlain, expectKeys, mapAt, numberAt, setDotted, stringAt } from './yaml-util.js';

export {
  MANEUVERS, type AutopilotSpec, type DriverSpec, type EgoSpec, type InfraSensor, type ManeuverSpec, type ManeuverType,
} from './ego-config.js';

export type { ScenarioLoadOptions } from './refs.js';

export type RunMode = 'api' | 'rt_comms';

/**
 * The longest `duration` a scenario may ask for: a day of simulated time [s]. A run's memory is bounded (its
 * metrics run row by row, its CSV streams to a file), but 1e15 s would run for ever and fill the disk; refused up
 * front, with the key.
 */
export const MAX_DURATION_S = 86_400;

/** What a served scenario does when its simulation time reaches `duration` (`at_end`). */
export type AtEnd = 'pause' | 'loop' | 'exit';
export const AT_END: readonly AtEnd[] = ['pause', 'loop', 'exit'];

export interface Scenario {
  file: string;
  name: string;
  /** simulated seconds; 0 = until stopped (rt_comms) */
  duration: number;
  /** `at_end`: what `vils serve --scenario` does at the duration (default pause; ignored with duration 0) */
  atEnd: AtEnd;
  seed: number;
  map: ScenarioMap;
  /** NPCs kept on the road map (0: no NPC world) */
  npcs: number;
  scene: Partial<SceneConfig>;
  /** signals on every junction, and plan changes by junction (`signals:`) */
  signals: ScenarioSignals;
  /** a scripted test case (`story:`: actors, events, criteria; src/scenario/story), or null */
  story: StorySpec | null;
  egos: EgoSpec[];
  infra: InfraSensor[];
  run: { mode: RunMode; comms: CommsSpec | null };
  /** the time conductor: `time:` (default: afap for api, realtime for rt_comms; see src/time/settings.ts) */
  time: TimeSettings;
  metrics: string[];
  /** the document after overrides, with every reference as an absolute path (loadable as it is) */
  resolved: Record<string, unknown>;
  warnings: string[];
}

const TOP_KEYS = ['name', 'label', 'description', 'map', 'npcs', 'seed', 'duration', 'at_end', 'dt', 'scene', 'signals', 'story', 'sensors', 'metrics', 'egos', 'run', 'time', '_overrides',
  'vehicle', 'tire', 'tire_rear', 'level', 'maneuver', 'kinematics', 'start', 'driver', 'autopilot'];
const DEFAULT_METRICS = ['cte_rms', 'cte_max', 'heading_error_rms', 'heading_error_max', 'lap_time', 'peak_ay', 'vmax', 'dist', 'rms_slip', 'rms_slip_moving'];

function parseSceneSettings(v: Record<string, unknown> | undefined, file: string): Partial<SceneConfig> {
  if (!v) return {};
  // the settings table's checks (src/scene/config.ts), the same as REST and vils serve --config enforce
  for (const [k, x] of Object.entries(v)) {
    try {
      checkSettings({ [k]: x }, SCENE_SETTINGS, 'scene setting');
    } catch (err) {
      throw new ConfigError(file, `scene.${k}`, (err as Error).message);
    }
  }
  return v as Partial<SceneConfig>;
}

/** Splits overrides into parameter-file patches (per ego index, -1 = all), a friction override and document edits. */
function splitOverrides(all: Record<string, unknown>): { params: ParamPatch[]; mu?: number; doc: Array<[string, unknown]> } {
  const params: ParamPatch[] = [];
  const doc: Array<[string, unknown]> = [];
  let mu: number | undefined;
  for (const [k, value] of Object.entries(all)) {
    const top = /^(vehicle|tire)\.(.+)$/.exec(k);
    const per = /^egos\.(\d+)\.(vehicle|tire)\.(.+)$/.exec(k);
    if (top) params.push({ ego: -1, kind: top[1] as 'vehicle' | 'tire', key: top[2], value });
    else if (per) params.push({ ego: Number(per[1]), kind: per[2] as 'vehicle' | 'tire', key: per[3], value });
    else if (k === 'mu' || k === 'map.mu' || k === 'road.mu') mu = value as number;
    else doc.push([k, value]);
  }
  return { params, mu, doc };
}

/** Loads a scenario (or a VDSim experiment) and everything it names. */
export async function loadScenario(path: string, opts: ScenarioLoadOptions = {}): Promise<Scenario> {
  const file = readYamlFile(path, { allowDuplicateKeys: opts.allowDuplicateKeys });
  if (!isRecord(file.data)) throw new ConfigError(path, undefined, 'expected a scenario map (vehicle/tire/map/maneuver, or map/egos)');
  return scenarioFromDocument(file.data, path, opts, [...file.warnings]);
}

/** Builds a scenario from its document (`path` names it in messages and anchors relative references). */
export async function scenarioFromDocument(data: Record<string, unknown>, path: string, opts: ScenarioLoadOptions = {}, warnings: string[] = []): Promise<Scenario> {
  const raw = clonePlain(data);
  if (raw._overrides !== undefined && !isRecord(raw._overrides)) throw new ConfigError(path, '_overrides', 'expected a map {dotted.key: value}');
  const overrides: Record<string, unknown> = { ...((raw._overrides as Record<string, unknown> | undefined) ?? {}), ...(opts.overrides ?? {}) };
  const split = splitOverrides(overrides);
  const doc = clonePlain(raw);
  delete doc._overrides;
  for (const [k, v] of split.doc) setDotted(doc, k, v);
  expectKeys(doc, TOP_KEYS, path, '');
  if (doc.kinematics !== undefined) throw new ConfigError(path, 'kinematics', 'suspension kinematics are for L4, which is not ported');
  const resolvedFiles: Record<string, string> = {};

  // map
  if (doc.map === undefined || doc.map === null) throw new ConfigError(path, 'map', 'a scenario needs a map (a map YAML stem or path, or a VILS road JSON)');
  const mapPath = resolveRef(doc.map, 'map', path, 'map', opts);
  if (split.mu !== undefined && !(typeof split.mu === 'number' && split.mu >= 0)) throw new ConfigError(path, '_overrides.mu', `expected a friction ≥ 0, got ${JSON.stringify(split.mu)}`);
  const map = loadScenarioMap(mapPath, opts, split.mu);
  resolvedFiles.map = mapPath;

  const duration = numberAt(doc, 'duration', path, 'duration', 10, 0, MAX_DURATION_S);
  const atEnd = stringAt(doc, 'at_end', path, 'at_end', 'pause');
  if (!AT_END.includes(atEnd as AtEnd)) throw new ConfigError(path, 'at_end', `expected one of ${AT_END.join(', ')} (what vils serve does when the simulation time reaches duration), got ${JSON.stringify(doc.at_end)}`);
  const seed = numberAt(doc, 'seed', path, 'seed', 1, 0, 2 ** 32 - 1);
  const defaultDt = numberAt(doc, 'dt', path, 'dt', 0.005, 1e-4, 0.1);
  const npcs = numberAt(doc, 'npcs', path, 'npcs', 0, 0, MAX_NPCS);
  if (!Number.isInteger(npcs)) throw new ConfigError(path, 'npcs', `expected a whole number of NPCs, got ${npcs}`);
  if (npcs > 0 && !map.roadMapPath) throw new ConfigError(path, 'npcs', `NPCs need a road map with lanes; ${mapPath} has no road_map`);
  const scene = { ...parseSceneSettings(mapAt(doc, 'scene', path, 'scene'), path), npc_target: npcs, seed };
  const signals = parseSignals(doc.signals, path);
  const story = doc.story === undefined || doc.story === null ? null : parseStory(doc.story, path);
  if (story && !map.roadMapPath) throw new ConfigError(path, 'story', `a story places its actors on lanes; ${mapPath} has no road_map`);

  // scenario-level sensor suite
  let suite: SensorParams | null = null;
  let suitePath: string | null = null;
  if (doc.sensors !== undefined && doc.sensors !== null) {
    suitePath = resolveRef(doc.sensors, 'sensors', path, 'sensors', opts);
    const r = loadSensorParams(suitePath, { allowDuplicateKeys: opts.allowDuplicateKeys });
    warnings.push(...r.warnings);
    suite = r.params;
    resolvedFiles.sensors = suitePath;
  }

  const egos = parseEgos(doc, path, { opts, warnings, params: split.params, suite, suitePath, map, mapPath, defaultDt, resolvedFiles });
  const infra = sensorHosts(egos, path);

  // run mode and comms
  const run = mapAt(doc, 'run', path, 'run') ?? {};
  expectKeys(run, ['mode', 'comms'], path, 'run');
  const mode = stringAt(run, 'mode', path, 'run.mode', 'api');
  if (mode !== 'api' && mode !== 'rt_comms') throw new ConfigError(path, 'run.mode', `expected api or rt_comms, got ${JSON.stringify(mode)}`);
  let comms: CommsSpec | null = null;
  if (run.comms !== undefined && run.comms !== null) {
    await loadTemplates();
    if (isRecord(run.comms)) comms = parseComms(run.comms, path, 'run.comms');
    else {
      const commsPath = resolveRef(run.comms, 'comms', path, 'run.comms', opts);
      comms = parseComms(readYamlFile(commsPath).data, commsPath);
      resolvedFiles.comms = commsPath;
    }
    warnings.push(...comms.warnings);
  }

  // the time conductor: its settings, and whether the world and these plants can run under them
  let time: TimeSettings;
  try {
    time = parseTimeSettings(doc.time, mode === 'rt_comms' ? 'realtime' : 'afap');
    planSession(time, [{ name: 'world', stepUs: STEP_US, coarse: true }, ...egos.map((e) => ({ name: egoAssetName(e.id), stepUs: Math.round(e.dt * 1e6) }))]);
  } catch (err) {
    if (err instanceof TimeSettingsError) throw new ConfigError(path, err.key ? `time.${err.key}` : 'time', err.message.replace(/^time\.[a-z_]*: /, ''));
    throw err;
  }

  const metrics = doc.metrics === undefined ? DEFAULT_METRICS : doc.metrics;
  if (!Array.isArray(metrics) || !metrics.every((m) => typeof m === 'string')) throw new ConfigError(path, 'metrics', 'expected a list of metric names');

  // the resolved document: references as absolute paths, overrides kept, so it loads again as it is
  const resolved: Record<string, unknown> = clonePlain(doc);
  resolved.map = mapPath;
  if (suitePath) resolved.sensors = suitePath;
  if (doc.egos !== undefined) {
    (resolved.egos as Array<Record<string, unknown>>).forEach((e, i) => {
      e.vehicle = egos[i].files.vehicle;
      e.tire = egos[i].files.tire;
      if (e.sensors !== undefined) e.sensors = egos[i].files.sensors;
      if (e.tire_rear !== undefined) e.tire_rear = resolveRef(e.tire_rear, 'tire', path, `egos[${i}].tire_rear`, opts);
    });
  } else {
    resolved.vehicle = egos[0].files.vehicle;
    resolved.tire = egos[0].files.tire;
    if (doc.tire_rear !== undefined) resolved.tire_rear = resolveRef(doc.tire_rear, 'tire', path, 'tire_rear', opts);
  }
  if (isRecord(resolved.run) && typeof resolved.run.comms === 'string' && resolvedFiles.comms) resolved.run.comms = resolvedFiles.comms;
  const paramOverrides = Object.fromEntries(Object.entries(overrides).filter(([k]) => !split.doc.some(([d]) => d === k)));
  if (Object.keys(paramOverrides).length) resolved._overrides = paramOverrides;

  return {
    file: path,
    name: typeof doc.name === 'string' ? doc.name : path.split('/').pop()!.replace(/\.ya?ml$/, ''),
    duration, atEnd: atEnd as AtEnd, seed, map, npcs, scene, signals, story, egos, infra,
    run: { mode, comms },
    time,
    metrics: metrics as string[],
    resolved,
    warnings,
  };
}
