/**
 * The egos of a scenario: what a simulated ego is (vehicle, tires, sensors, size, start, driver) and how its YAML is
 * read — the `egos:` list, or the one ego of VDSim's experiment form — with every parameter file it names loaded
 * and patched by the overrides. Apart from the scenario's other keys because an ego is a document of its own,
 * with its own keys, defaults and errors.
 */
import { ConfigError } from '../plant/config/errors.js';
import type { ReadContext } from '../plant/config/fields.js';
import { openParamsDocument } from '../plant/config/document.js';
import { loadSensorParams } from '../plant/config/load-sensor.js';
import { parseTireParams } from '../plant/config/load-tire.js';
import { parseVehicleParams } from '../plant/config/load-vehicle.js';
import { isRecord } from '../plant/config/yaml-file.js';
import { type SensorParams, sensorParams } from '../plant/params/sensor.js';
import type { TireParams, TireSetup } from '../plant/params/tire.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { LEVELS, type Level } from '../plant/types.js';
import { type DrivingLine, pointAt } from './line.js';
import type { ScenarioMap } from './map.js';
import { type ScenarioLoadOptions, resolveRef } from './refs.js';
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

/** A patch of the overrides to an ego's parameter file: `vehicle.<key>` / `tire.<key>` (ego −1: every ego). */
export interface ParamPatch {
  ego: number;
  kind: 'vehicle' | 'tire';
  key: string;
  value: unknown;
}

/** What reading the egos needs of the rest of the scenario. */
export interface EgoContext {
  readonly opts: ScenarioLoadOptions;
  readonly warnings: string[];
  readonly params: readonly ParamPatch[];
  /** the scenario's sensor suite and its file (null: none) */
  readonly suite: SensorParams | null;
  readonly suitePath: string | null;
  readonly map: ScenarioMap;
  readonly mapPath: string;
  /** the plant step of an ego that gives none [s] */
  readonly defaultDt: number;
  /** the files the egos resolved to, by key (egos.<i>.vehicle, egos.<i>.tire), written here */
  readonly resolvedFiles: Record<string, string>;
}

const EGO_KEYS = ['id', 'vehicle_id', 'vehicle', 'tire', 'tire_rear', 'level', 'sensors', 'dt', 'size', 'start', 'driver', 'autopilot', 'maneuver', 'label'];
const AUTOPILOT_KEYS = ['speed', 'speed_factor', 'lookahead_m', 'lookahead_gain_s', 'follow', 'time_gap_s', 'min_gap_m', 'decel'];
const MANEUVER_KEYS = ['type', 'v', 'steer', 'steer_deg', 't0', 'throttle', 'brake'];
const START_KEYS = ['x', 'y', 'yaw', 'speed', 'route_s', 'offset'];
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

/** The scenario's egos, each checked and with its parameter files loaded (patched by the overrides). */
export function parseEgos(doc: Record<string, unknown>, path: string, ctx: EgoContext): EgoSpec[] {
  const { opts, warnings, params, suite, suitePath, map, mapPath, defaultDt, resolvedFiles } = ctx;
  // the experiment form is one ego built from the top-level keys
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
    const patches = (kind: 'vehicle' | 'tire') => Object.fromEntries(params.filter((p) => p.kind === kind && (p.ego === -1 || p.ego === i)).map((p) => [p.key, p.value]));
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
  return egos;
}

/**
 * Each ego keeps the sensors hosted on it (no host: every ego; `ego`: the first); those hosted on `infra:<name>`
 * become the roadside sensors returned.
 */
export function sensorHosts(egos: EgoSpec[], path: string): InfraSensor[] {
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
  return infra;
}
