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
 * key and says what was expected.
 */
import { ConfigError } from '../plant/config/errors.js';
import type { ReadContext } from '../plant/config/fields.js';
import { openParamsDocument } from '../plant/config/document.js';
import { loadSensorParams } from '../plant/config/load-sensor.js';
import { parseTireParams } from '../plant/config/load-tire.js';
import { parseVehicleParams } from '../plant/config/load-vehicle.js';
import { isRecord, readYamlFile } from '../plant/config/yaml-file.js';
import { type SensorParams, sensorParams } from '../plant/params/sensor.js';
import type { TireParams, TireSetup } from '../plant/params/tire.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { LEVELS, type Level } from '../plant/types.js';
import { SCENE_SETTINGS, type SceneConfig } from '../scene/config.js';
import { checkSettings } from '../scene/settings.js';
import { MAX_NPCS } from '../traffic/engine.js';
import { type CommsSpec, parseComms } from '../cosim/comms/config.js';
import { parseSignals, type ScenarioSignals } from './signals.js';
import { parseStory, type StorySpec } from './story/index.js';
import { type TimeSettings, TimeSettingsError, parseTimeSettings, planSession } from '../time/settings.js';
import { STEP_US, egoAssetName } from './assets.js';
import { loadTemplates } from '../cosim/comms/templates/registry.js';
import { type DrivingLine, pointAt } from './line.js';
import { type ScenarioMap, loadScenarioMap } from './map.js';
import { type RefOptions, resolveRef } from './refs.js';
import { boolAt, clonePlain, expectKeys, mapAt, numberAt, setDotted, stringAt } from './yaml-util.js';

export type ManeuverType = 'constant_speed' | 'path' | 'step_steer' | 'accel' | 'brake' | 'iso7401';
export const MANEUVERS: readonly ManeuverType[] = ['constant_speed', 'path', 'step_steer', 'accel', 'brake', 'iso7401'];

export interface ManeuverSpec {
  type: ManeuverType;
  /** target (and start) speed [m/s] */
  v: number;
  /** step-steer road-wheel angle [rad] */
  steer: number;
  /** when the step / the braking starts [s] */
  t0: number;
  throttle: number;
  brake: number;
}

export interface AutopilotSpec {
  /** fixed target speed [m/s]; null: the line's speeds × speedFactor */
  speed: number | null;
  speedFactor: number;
  lookaheadM: number;
  /** lookahead grows by this × speed [s] */
  lookaheadGainS: number;
  /** keep a time gap to the vehicle ahead on the line (NPCs and other egos) */
  follow: boolean;
  timeGapS: number;
  minGapM: number;
  /** comfortable deceleration for curves and gaps [m/s²] */
  decel: number;
}

export type DriverSpec =
  | { kind: 'autopilot'; autopilot: AutopilotSpec }
  | { kind: 'maneuver'; maneuver: ManeuverSpec }
  /** commands from outside: VDS1 / the JSON data port (rt_comms), setControl (api); ZOH with a fail-safe */
  | { kind: 'external' };

export interface EgoSpec {
  /** the ego's id in the scene (npc_states.egos[].ego_id) */
  id: string;
  /** VDS1 vehicle_id */
  vehicleId: number;
  level: Level;
  vehicle: VehicleParams;
  tires: TireSetup;
  sensors: SensorParams;
  length: number;
  width: number;
  /** plant step [s] */
  dt: number;
  start: { x: number; y: number; yaw: number; speed: number };
  /** initial wheel spin radius (VDSim's procedures: 0.33); null: free-rolling */
  spinRadius: number | null;
  driver: DriverSpec;
  label: string;
  files: { vehicle: string; tire: string; sensors: string | null };
}

export interface InfraSensor {
  id: string;
  host: string;
  type: string;
  x: number;
  y: number;
  z: number;
  yaw: number;
  rateHz: number | null;
  params: Record<string, number>;
}

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

export interface ScenarioLoadOptions extends RefOptions {
  /** dotted key → value, applied on top of the file's own `_overrides` */
  overrides?: Readonly<Record<string, unknown>>;
  allowDuplicateKeys?: boolean;
}

const TOP_KEYS = ['name', 'label', 'description', 'map', 'npcs', 'seed', 'duration', 'at_end', 'dt', 'scene', 'signals', 'story', 'sensors', 'metrics', 'egos', 'run', 'time', '_overrides',
  'vehicle', 'tire', 'tire_rear', 'level', 'maneuver', 'kinematics', 'start', 'driver', 'autopilot'];
const EGO_KEYS = ['id', 'vehicle_id', 'vehicle', 'tire', 'tire_rear', 'level', 'sensors', 'dt', 'size', 'start', 'driver', 'autopilot', 'maneuver', 'label'];
const AUTOPILOT_KEYS = ['speed', 'speed_factor', 'lookahead_m', 'lookahead_gain_s', 'follow', 'time_gap_s', 'min_gap_m', 'decel'];
const MANEUVER_KEYS = ['type', 'v', 'steer', 'steer_deg', 't0', 'throttle', 'brake'];
const START_KEYS = ['x', 'y', 'yaw', 'speed', 'route_s', 'offset'];
const DEFAULT_METRICS = ['cte_rms', 'cte_max', 'heading_error_rms', 'heading_error_max', 'lap_time', 'peak_ay', 'vmax', 'dist', 'rms_slip', 'rms_slip_moving'];

/** Reads a parameter file of `kind`, patched with `patch` (dotted keys into its flat body) before parsing. */
function loadPatched<T>(path: string, kind: 'vehicle' | 'tire', patch: Record<string, unknown>, opts: ScenarioLoadOptions, warnings: string[], parse: (m: Record<string, unknown>, ctx: ReadContext) => T): T {
  const doc = openParamsDocument(path, kind, { allowDuplicateKeys: opts.allowDuplicateKeys });
  warnings.push(...doc.warnings);
  const body = clonePlain(doc.body) as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) setDotted(body, k, v);
  const label = Object.keys(patch).length ? `${path} (with ${Object.entries(patch).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')} from the overrides)` : path;
  return parse(body, { file: label, prefix: doc.source.part ? 'body' : '', warnings });
}

function parseLevel(v: unknown, file: string, key: string): Level {
  if (v === undefined || v === null) return 'L2';
  const s = String(v).toUpperCase();
  if (s === 'L4' || s === 'L5') throw new ConfigError(file, key, `${s} is not ported (L1, L2, L3 are)`);
  if (!LEVELS.includes(s as Level)) throw new ConfigError(file, key, `expected one of ${LEVELS.join(', ')}, got ${JSON.stringify(v)}`);
  return s as Level;
}

function parseManeuver(m: unknown, file: string, key: string): ManeuverSpec {
  if (!isRecord(m)) throw new ConfigError(file, key, 'expected a map {type, v, steer}');
  expectKeys(m, MANEUVER_KEYS, file, key);
  const type = m.type;
  if (typeof type !== 'string' || !MANEUVERS.includes(type as ManeuverType)) throw new ConfigError(file, `${key}.type`, `expected one of ${MANEUVERS.join(', ')}, got ${JSON.stringify(type)}`);
  const steer = m.steer_deg !== undefined ? (numberAt(m, 'steer_deg', file, `${key}.steer_deg`, 6, -45, 45) * Math.PI) / 180 : numberAt(m, 'steer', file, `${key}.steer`, type === 'iso7401' ? (6 * Math.PI) / 180 : 0, -0.8, 0.8);
  return {
    type: type as ManeuverType,
    v: numberAt(m, 'v', file, `${key}.v`, type === 'iso7401' ? 80 / 3.6 : 10, 0, 100),
    steer,
    t0: numberAt(m, 't0', file, `${key}.t0`, type === 'iso7401' ? 0.5 : 2.0, 0),
    throttle: numberAt(m, 'throttle', file, `${key}.throttle`, 1, 0, 1),
    brake: numberAt(m, 'brake', file, `${key}.brake`, 1, 0, 1),
  };
}

function parseAutopilot(a: Record<string, unknown> | undefined, file: string, key: string): AutopilotSpec {
  const m = a ?? {};
  expectKeys(m, AUTOPILOT_KEYS, file, key);
  const speed = m.speed === undefined || m.speed === null ? null : numberAt(m, 'speed', file, `${key}.speed`, 10, 0, 100);
  return {
    speed,
    speedFactor: numberAt(m, 'speed_factor', file, `${key}.speed_factor`, 1, 0, 3),
    lookaheadM: numberAt(m, 'lookahead_m', file, `${key}.lookahead_m`, 8, 1, 100),
    lookaheadGainS: numberAt(m, 'lookahead_gain_s', file, `${key}.lookahead_gain_s`, 0, 0, 5),
    follow: boolAt(m, 'follow', file, `${key}.follow`, true),
    timeGapS: numberAt(m, 'time_gap_s', file, `${key}.time_gap_s`, 1.5, 0, 10),
    minGapM: numberAt(m, 'min_gap_m', file, `${key}.min_gap_m`, 5, 0, 50),
    decel: numberAt(m, 'decel', file, `${key}.decel`, 2.5, 0.5, 10),
  };
}

function parseStart(s: Record<string, unknown> | undefined, line: DrivingLine | null, file: string, key: string, defSpeed: number): EgoSpec['start'] {
  const m = s ?? {};
  expectKeys(m, START_KEYS, file, key);
  const speed = numberAt(m, 'speed', file, `${key}.speed`, defSpeed, 0, 100);
  if (m.x !== undefined || m.y !== undefined) {
    if (m.route_s !== undefined) throw new ConfigError(file, `${key}.route_s`, 'give either x, y (and yaw) or route_s, not both');
    return { x: numberAt(m, 'x', file, `${key}.x`, 0), y: numberAt(m, 'y', file, `${key}.y`, 0), yaw: numberAt(m, 'yaw', file, `${key}.yaw`, 0), speed };
  }
  if (!line) {
    if (m.route_s !== undefined) throw new ConfigError(file, `${key}.route_s`, 'the map has no driving line to measure route_s along');
    return { x: 0, y: 0, yaw: numberAt(m, 'yaw', file, `${key}.yaw`, 0), speed };
  }
  const p = pointAt(line, numberAt(m, 'route_s', file, `${key}.route_s`, 0, 0));
  const off = numberAt(m, 'offset', file, `${key}.offset`, 0, -10, 10);
  return { x: p.x - off * Math.sin(p.heading), y: p.y + off * Math.cos(p.heading), yaw: m.yaw !== undefined ? numberAt(m, 'yaw', file, `${key}.yaw`, 0) : p.heading, speed };
}

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
function splitOverrides(all: Record<string, unknown>): { params: Array<{ ego: number; kind: 'vehicle' | 'tire'; key: string; value: unknown }>; mu?: number; doc: Array<[string, unknown]> } {
  const params: Array<{ ego: number; kind: 'vehicle' | 'tire'; key: string; value: unknown }> = [];
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

  // egos: the experiment form is one ego built from the top-level keys
  let egoDocs: Array<Record<string, unknown>>;
  let egoKey: (i: number) => string;
  if (doc.egos !== undefined) {
    if (!Array.isArray(doc.egos) || doc.egos.length === 0) throw new ConfigError(path, 'egos', 'expected a list of at least one simulated ego');
    for (const k of ['vehicle', 'tire', 'maneuver', 'level']) if (doc[k] !== undefined) throw new ConfigError(path, k, 'with egos: give it per ego (egos[i].' + k + ')');
    egoDocs = doc.egos.map((e, i) => {
      if (!isRecord(e)) throw new ConfigError(path, `egos[${i}]`, 'expected a map {id, vehicle, tire, ...}');
      return e;
    });
    egoKey = (i) => `egos[${i}]`;
  } else {
    if (doc.vehicle === undefined) throw new ConfigError(path, 'vehicle', 'a scenario needs a vehicle (or an egos: list)');
    egoDocs = [{ id: 'ego', vehicle: doc.vehicle, tire: doc.tire, tire_rear: doc.tire_rear, level: doc.level, maneuver: doc.maneuver, start: doc.start, driver: doc.driver, autopilot: doc.autopilot }];
    egoKey = () => '';
  }
  const at = (i: number, k: string) => (egoKey(i) ? `${egoKey(i)}.${k}` : k);
  const ids = new Set<string>();
  const vids = new Set<number>();
  const egos: EgoSpec[] = egoDocs.map((e, i): EgoSpec => {
    for (const [k, v] of Object.entries(e)) if (v === undefined) delete e[k];
    if (egoKey(i)) expectKeys(e, EGO_KEYS, path, egoKey(i));
    const id = e.id === undefined ? (i === 0 ? 'ego' : `ego${i}`) : String(e.id);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new ConfigError(path, at(i, 'id'), `expected 1–64 letters, digits, _ . -, got ${JSON.stringify(e.id)}`);
    if (ids.has(id)) throw new ConfigError(path, at(i, 'id'), `duplicate ego id '${id}'`);
    ids.add(id);
    const vehicleId = numberAt(e, 'vehicle_id', path, at(i, 'vehicle_id'), i, 0, 0xffffffff);
    if (vids.has(vehicleId)) throw new ConfigError(path, at(i, 'vehicle_id'), `duplicate VDS1 vehicle_id ${vehicleId}`);
    vids.add(vehicleId);
    const patches = (kind: 'vehicle' | 'tire') => Object.fromEntries(split.params.filter((p) => p.kind === kind && (p.ego === -1 || p.ego === i)).map((p) => [p.key, p.value]));
    if (e.vehicle === undefined) throw new ConfigError(path, at(i, 'vehicle'), 'expected a vehicle file (stem or path)');
    const vehiclePath = resolveRef(e.vehicle, 'vehicle', path, at(i, 'vehicle'), opts);
    const meta: Record<string, unknown> = {};
    const vehicle = loadPatched(vehiclePath, 'vehicle', patches('vehicle'), opts, warnings, (m, ctx) => parseVehicleParams(m, ctx, meta));
    if (e.tire === undefined && typeof meta.tire_yaml !== 'string') throw new ConfigError(path, at(i, 'tire'), 'expected a tire file (stem or path); the vehicle names none (tire_yaml)');
    const tirePath = e.tire !== undefined ? resolveRef(e.tire, 'tire', path, at(i, 'tire'), opts) : resolveRef(meta.tire_yaml, 'tire', vehiclePath, 'tire_yaml', opts);
    const tire: TireParams = loadPatched(tirePath, 'tire', patches('tire'), opts, warnings, parseTireParams);
    let rear = tire;
    if (e.tire_rear !== undefined && e.tire_rear !== null) rear = loadPatched(resolveRef(e.tire_rear, 'tire', path, at(i, 'tire_rear'), opts), 'tire', patches('tire'), opts, warnings, parseTireParams);
    const level = parseLevel(e.level, path, at(i, 'level'));
    let sensors = suite ?? sensorParams();
    let sensorsPath = suitePath;
    if (e.sensors !== undefined && e.sensors !== null) {
      sensorsPath = resolveRef(e.sensors, 'sensors', path, at(i, 'sensors'), opts);
      const r = loadSensorParams(sensorsPath, { allowDuplicateKeys: opts.allowDuplicateKeys });
      warnings.push(...r.warnings);
      sensors = r.params;
    }
    const size = mapAt(e, 'size', path, at(i, 'size'));
    const lwh = Array.isArray(meta.body_lwh_m) && meta.body_lwh_m.length === 3 ? (meta.body_lwh_m as number[]) : null;
    // driver
    let driver: DriverSpec;
    const maneuver = e.maneuver !== undefined && e.maneuver !== null ? parseManeuver(e.maneuver, path, at(i, 'maneuver')) : null;
    const kind = stringAt(e, 'driver', path, at(i, 'driver'), maneuver ? 'maneuver' : map.line ? 'autopilot' : 'external');
    if (kind === 'maneuver') {
      if (!maneuver) throw new ConfigError(path, at(i, 'maneuver'), 'driver: maneuver needs a maneuver: {type, v, ...}');
      if (maneuver.type === 'path' && !map.line) throw new ConfigError(path, at(i, 'maneuver.type'), `a path manoeuvre needs a driving line; map ${mapPath} has none`);
      driver = { kind: 'maneuver', maneuver };
    } else if (kind === 'autopilot') {
      if (!map.line) throw new ConfigError(path, at(i, 'driver'), `the autopilot follows the map's driving line; map ${mapPath} has none`);
      driver = { kind: 'autopilot', autopilot: parseAutopilot(mapAt(e, 'autopilot', path, at(i, 'autopilot')), path, at(i, 'autopilot')) };
    } else if (kind === 'external') driver = { kind: 'external' };
    else throw new ConfigError(path, at(i, 'driver'), `expected autopilot, external or maneuver, got ${JSON.stringify(kind)}`);
    const defSpeed = maneuver && maneuver.type !== 'accel' ? maneuver.v : 0;
    const dt = numberAt(e, 'dt', path, at(i, 'dt'), defaultDt, 1e-4, 0.1);
    if (map.roadMapPath && Math.abs(Math.round(0.1 / dt) * dt - 0.1) > 1e-9) throw new ConfigError(path, at(i, 'dt'), `must divide the NPC step of 0.1 s (e.g. 0.001, 0.002, 0.005, 0.01), got ${dt}`);
    resolvedFiles[`egos.${i}.vehicle`] = vehiclePath;
    resolvedFiles[`egos.${i}.tire`] = tirePath;
    return {
      id, vehicleId, level, vehicle, tires: [tire, tire, rear, rear], sensors,
      length: size ? numberAt(size, 'length', path, at(i, 'size.length'), 4.5, 0.5, 30) : lwh ? lwh[0] : 4.5,
      width: size ? numberAt(size, 'width', path, at(i, 'size.width'), 2.0, 0.3, 5) : lwh ? lwh[1] : 2.0,
      dt,
      start: parseStart(mapAt(e, 'start', path, at(i, 'start')), map.line, path, at(i, 'start'), defSpeed),
      spinRadius: maneuver?.type === 'iso7401' ? 0.33 : null,
      driver,
      label: typeof e.label === 'string' ? e.label : `${vehiclePath.split('/').pop()} + ${tirePath.split('/').pop()}, ${level}`,
      files: { vehicle: vehiclePath, tire: tirePath, sensors: sensorsPath },
    };
  });

  // sensor hosts
  const infra: InfraSensor[] = [];
  for (const [i, e] of egos.entries()) {
    const own = e.sensors.declarations.filter((d) => {
      if (d.host === undefined) return true;
      if (d.host.startsWith('infra:')) return false;
      if (d.host === 'ego') return i === 0;
      if (!egos.some((x) => x.id === d.host || String(x.vehicleId) === d.host)) throw new ConfigError(e.files.sensors ?? path, `host`, `sensor '${d.id}': host '${d.host}' is not an ego of ${path} (egos: ${egos.map((x) => x.id).join(', ')}; or use ego, infra:<name>)`);
      return d.host === e.id || d.host === String(e.vehicleId);
    });
    for (const d of e.sensors.declarations) {
      if (d.host?.startsWith('infra:') && !infra.some((s) => s.id === d.id)) infra.push({ id: d.id, host: d.host, type: d.type, x: d.mountPos[0], y: d.mountPos[1], z: d.mountPos[2], yaw: d.mountRpy[2], rateHz: d.rateHz, params: d.params });
    }
    e.sensors = { ...e.sensors, declarations: own };
  }

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
