/**
 * Loads what `vdsim_realtime --scene=` runs (spec §6.8, §2.1): a materialised world YAML (`vehicles:` with
 * vehicle/tire file paths, `sim:` block) or a catalog scene (`fleet:` of blueprints, resolved through catalog
 * folders given with --catalog; a fleet entry may also name `vehicle:`/`tire:` files directly). Returns the
 * fleet, the road, the timing and the comms routing, with VDSim's precedence: the scene's rate and
 * cmd_timeout win over the command line (they default to 200 Hz and 0.1 s), dt = sim.dt (0.005 when a `sim:`
 * block exists) else 1/rate.
 *
 * Not ported, and refused with the file and key: L4/L5 models, stunt grounds, heightmap terrain, ISO 8608 and
 * rough roads. Suspension kinematics (front_susp/rear_susp) and blueprint `overrides` are ignored with a warning.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../plant/config/errors.js';
import type { ReadContext } from '../plant/config/fields.js';
import { loadSensorParams, parseSensorParams } from '../plant/config/load-sensor.js';
import { loadTireParams, parseTireParams } from '../plant/config/load-tire.js';
import { loadVehicleParams, parseVehicleParams } from '../plant/config/load-vehicle.js';
import { isRecord, readYamlFile } from '../plant/config/yaml-file.js';
import type { SensorParams } from '../plant/params/sensor.js';
import { type TireParams, type TireSetup } from '../plant/params/tire.js';
import type { VehicleParams } from '../plant/params/vehicle.js';
import { LEVELS, type Level } from '../plant/types.js';
import { type CommsSpec, parseComms } from './comms/config.js';
import { loadTemplates } from './comms/templates/registry.js';
import type { Waypoint } from './internal-controller.js';

export interface GroundSpec {
  mu: number;
  /** ≥ 0 selects split-μ (μ right of the boundary). */
  muRight: number;
  muBoundary: number;
  grade: number;
  bank: number;
}

export interface VehicleSpec {
  id: number;
  level: Level;
  vehicle: VehicleParams;
  tires: TireSetup;
  x0: number;
  y0: number;
  z0: number;
  yaw0: number;
  vx0: number;
  control: 'external' | 'internal';
  sensors?: SensorParams;
  path?: Waypoint[];
  pathLookahead: number;
  /** Where the parameters came from, for the start-up banner. */
  label: string;
}

/** What the runner needs of a world: the fleet, the road, the routing. */
export interface FleetWorld {
  label: string;
  vehicles: VehicleSpec[];
  ground: GroundSpec;
  sensorDelayS: number;
  comms?: CommsSpec;
}

export interface WorldSpec extends FleetWorld {
  file: string;
  kind: 'world' | 'scene';
  label: string;
  /** Loop rate from the scene [Hz] (≤ 1: the command line decides). */
  rate: number;
  /** sim.dt when given (0 < dt < 1), else 0 (1/rate). */
  dt: number;
  /** 0 when the scene does not set it. */
  timeScale: number;
  tEnd: number;
  /** 0 or less: the command line decides. */
  cmdTimeout: number;
  ground: GroundSpec;
  sensorDelayS: number;
  vehicles: VehicleSpec[];
  comms?: CommsSpec;
  warnings: string[];
}

export interface WorldLoadOptions {
  /** Overrides every tire's lugre.enabled (--lugre / --no-lugre). */
  lugre?: boolean;
  allowDuplicateKeys?: boolean;
  /** Folders searched for catalog parts/blueprints (by `id`) and comms files (by stem). */
  catalogDirs?: readonly string[];
}

const WORLD_KEYS = new Set(['sim', 'rate', 'time_scale', 'cmd_timeout', 'mu', 'mu_right', 'mu_boundary', 'grade', 'bank', 'rough_amp', 'rough_wl', 'iso_class', 'terrain', 'sensors', 'sensor_delay', 'stunt', 'comms', 'vehicles', 'name', 'label', 'id', 'version', 'fleet', 'description']);
const SIM_KEYS = new Set(['dt', 'rate', 't_end', 'time_scale', 'max_substep_dt', 'max_substeps', 'stunt_physics']);
const VEHICLE_KEYS = new Set(['id', 'vehicle', 'tire', 'tire_rear', 'tire_fr', 'tire_rl', 'tire_rr', 'level', 'front_susp', 'rear_susp', 'x0', 'y0', 'z0', 'yaw0', 'vx0', 'control', 'sensors', 'path', 'path_lookahead', 'blueprint', 'parts', 'overrides', 'label']);
const VEHICLE_SLOTS = ['body', 'chassis', 'aero', 'ride', 'brake', 'steering', 'drivetrain'];

function num(m: Record<string, unknown>, key: string, file: string, dkey: string, def: number): number {
  const v = m[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(file, dkey, `expected a finite number, got ${JSON.stringify(v)}`);
  return v;
}

/** A file named in the scene: as given (relative to the working directory, as VDSim does), else next to the scene. */
function resolveRef(ref: unknown, file: string, key: string): string {
  if (typeof ref !== 'string' || ref === '') throw new ConfigError(file, key, `expected a file path, got ${JSON.stringify(ref)}`);
  if (isAbsolute(ref) || existsSync(ref)) return ref;
  const near = join(dirname(file), ref);
  if (existsSync(near)) return near;
  throw new ConfigError(file, key, `file not found: ${ref} (looked in the working directory and next to the scene)`);
}

interface CatalogEntry {
  path: string;
  data: Record<string, unknown>;
}

class Catalog {
  private index: Map<string, CatalogEntry> | undefined;

  constructor(private readonly dirs: readonly string[]) {}

  get empty(): boolean {
    return this.dirs.length === 0;
  }

  private build(): Map<string, CatalogEntry> {
    const index = new Map<string, CatalogEntry>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ya?ml$/.test(name)) {
          try {
            const data = readYamlFile(p, { allowDuplicateKeys: true }).data;
            if (isRecord(data) && typeof data.id === 'string' && !index.has(data.id)) index.set(data.id, { path: p, data });
          } catch {
            // not a catalog file (or not YAML we can read): skipped
          }
        }
      }
    };
    for (const d of this.dirs) walk(d);
    return index;
  }

  get(id: string): CatalogEntry | undefined {
    this.index ??= this.build();
    return this.index.get(id);
  }

  /** A comms file by stem: <dir>/<stem>.yaml, <dir>/comms/<stem>.yaml or <dir>/comms_<stem>.yaml. */
  commsFile(stem: string): string | undefined {
    for (const d of this.dirs) {
      for (const c of [join(d, `${stem}.yaml`), join(d, 'comms', `${stem}.yaml`), join(d, `comms_${stem}.yaml`)]) if (existsSync(c)) return c;
    }
    return undefined;
  }
}

function parseLevel(v: unknown, file: string, key: string, def: Level): Level {
  if (v === undefined || v === null) return def;
  const s = String(v).toUpperCase();
  if (s === 'L4' || s === 'L5') throw new ConfigError(file, key, `${s} is not ported (L1, L2, L3 are)`);
  if (!LEVELS.includes(s as Level)) throw new ConfigError(file, key, `expected one of ${LEVELS.join(', ')}, got ${JSON.stringify(v)}`);
  return s as Level;
}

function loadPath(ref: unknown, file: string, key: string): Waypoint[] {
  const path = resolveRef(ref, file, key);
  const data = readYamlFile(path).data;
  if (!isRecord(data) || !Array.isArray(data.points)) throw new ConfigError(path, 'points', 'expected a path file {points: [[x, y, vx], ...]} (shape: paths are not supported)');
  const pts = data.points.map((p, i): Waypoint => {
    const k = `points[${i}]`;
    if (Array.isArray(p) && p.length >= 2 && p.every((x) => typeof x === 'number' && Number.isFinite(x))) return { x: p[0], y: p[1], vx: p.length >= 3 ? p[2] : -1 };
    if (isRecord(p) && typeof p.x === 'number' && typeof p.y === 'number') return { x: p.x, y: p.y, vx: typeof p.vx === 'number' ? p.vx : -1 };
    throw new ConfigError(path, k, 'expected [x, y] or [x, y, vx] numbers');
  });
  if (pts.length < 2) throw new ConfigError(path, 'points', 'a path needs at least 2 points');
  return pts;
}

function applyLugre(tires: TireSetup, lugre: boolean | undefined): TireSetup {
  if (lugre === undefined) return tires;
  return tires.map((t) => ({ ...t, lugre: { ...t.lugre, enabled: lugre } })) as unknown as TireSetup;
}

function loadTires(e: Record<string, unknown>, file: string, key: string, opts: WorldLoadOptions, warnings: string[]): TireSetup {
  const load = (k: string): TireParams => {
    const r = loadTireParams(resolveRef(e[k], file, `${key}.${k}`), opts);
    warnings.push(...r.warnings);
    return r.params;
  };
  const front = load('tire');
  const has = (k: string) => e[k] !== undefined && e[k] !== null && e[k] !== '';
  const rear = has('tire_rear') ? load('tire_rear') : front;
  if (has('tire_fr') || has('tire_rl') || has('tire_rr')) {
    return [front, has('tire_fr') ? load('tire_fr') : front, has('tire_rl') ? load('tire_rl') : rear, has('tire_rr') ? load('tire_rr') : rear];
  }
  return [front, front, rear, rear];
}

/** Vehicle + tire of a catalog blueprint: the vehicle slots' bodies merged in slot order, the tire slot's body. */
function resolveBlueprint(e: Record<string, unknown>, catalog: Catalog, file: string, key: string, warnings: string[]): { vehicle: VehicleParams; tire: TireParams; level?: unknown; label: string } {
  const id = e.blueprint;
  if (typeof id !== 'string') throw new ConfigError(file, `${key}.blueprint`, 'expected a blueprint id');
  if (catalog.empty) throw new ConfigError(file, `${key}.blueprint`, `'${id}' needs the VDSim parts catalog: pass --catalog=<configs dir>, or materialise the scene into a world YAML (vehicles: with vehicle/tire files)`);
  const bp = catalog.get(id);
  if (!bp || !isRecord(bp.data.parts)) throw new ConfigError(file, `${key}.blueprint`, `blueprint '${id}' not found in the catalog folders`);
  const slots: Record<string, unknown> = { ...bp.data.parts, ...(isRecord(e.parts) ? e.parts : {}) };
  if (isRecord(bp.data.overrides) && Object.keys(bp.data.overrides).length > 0) warnings.push(`${bp.path}: blueprint overrides are not applied by this port`);
  if (isRecord(e.overrides) && Object.keys(e.overrides).length > 0) warnings.push(`${file}: ${key}.overrides are not applied by this port`);
  const merged: Record<string, unknown> = {};
  let tire: TireParams | undefined;
  for (const [slot, partId] of Object.entries(slots)) {
    if (typeof partId !== 'string') throw new ConfigError(file, `${key}.parts.${slot}`, 'expected a part id');
    const part = catalog.get(partId);
    if (!part || !isRecord(part.data.body)) throw new ConfigError(bp.path, `parts.${slot}`, `part '${partId}' not found in the catalog folders`);
    const ctx: ReadContext = { file: part.path, prefix: 'body', warnings };
    if (slot === 'tire') tire = parseTireParams(part.data.body, ctx);
    else if (VEHICLE_SLOTS.includes(slot)) Object.assign(merged, part.data.body);
    else warnings.push(`${bp.path}: slot '${slot}' (${partId}) is not simulated by this port`);
  }
  if (!tire) throw new ConfigError(bp.path, 'parts.tire', `blueprint '${id}' has no tire part`);
  const vehicle = parseVehicleParams(merged, { file: bp.path, prefix: 'parts', warnings });
  return { vehicle, tire, level: bp.data.level, label: id };
}

function parseVehicle(e: unknown, i: number, listKey: string, file: string, opts: WorldLoadOptions, catalog: Catalog, sceneSensors: SensorParams | undefined, warnings: string[]): VehicleSpec {
  const key = `${listKey}[${i}]`;
  if (!isRecord(e)) throw new ConfigError(file, key, 'expected a map');
  for (const k of Object.keys(e)) if (!VEHICLE_KEYS.has(k)) throw new ConfigError(file, `${key}.${k}`, 'unknown vehicle key');
  const idv = e.id ?? i;
  if (typeof idv !== 'number' || !Number.isInteger(idv) || idv < 0 || idv > 0xffffffff) throw new ConfigError(file, `${key}.id`, `expected a vehicle id 0..2^32−1 (it is the VDS1 vehicle_id), got ${JSON.stringify(idv)}`);
  let vehicle: VehicleParams;
  let tires: TireSetup;
  let level: unknown = e.level;
  let label: string;
  if (e.blueprint !== undefined && e.vehicle === undefined) {
    const bp = resolveBlueprint(e, catalog, file, key, warnings);
    vehicle = bp.vehicle;
    tires = [bp.tire, bp.tire, bp.tire, bp.tire];
    level ??= bp.level;
    label = bp.label;
  } else {
    const vp = loadVehicleParams(resolveRef(e.vehicle, file, `${key}.vehicle`), opts);
    warnings.push(...vp.warnings);
    vehicle = vp.params;
    tires = loadTires(e, file, key, opts, warnings);
    label = `${String(e.vehicle).split('/').pop()} + ${String(e.tire).split('/').pop()}`;
  }
  for (const k of ['front_susp', 'rear_susp']) if (e[k]) warnings.push(`${file}: ${key}.${k}: suspension kinematics are not ported; ignored`);
  const control = e.control ?? 'external';
  if (control !== 'external' && control !== 'internal') throw new ConfigError(file, `${key}.control`, `expected external or internal, got ${JSON.stringify(control)}`);
  let sensors = sceneSensors;
  if (e.sensors !== undefined && e.sensors !== null) {
    if (typeof e.sensors === 'string') sensors = loadSensorParams(resolveRef(e.sensors, file, `${key}.sensors`), opts).params;
    else sensors = parseSensorParams(e.sensors, { file, prefix: `${key}.sensors`, warnings });
  }
  return {
    id: idv,
    level: parseLevel(level, file, `${key}.level`, 'L2'),
    vehicle,
    tires: applyLugre(tires, opts.lugre),
    x0: num(e, 'x0', file, `${key}.x0`, 0),
    y0: num(e, 'y0', file, `${key}.y0`, 0),
    z0: num(e, 'z0', file, `${key}.z0`, 0),
    yaw0: num(e, 'yaw0', file, `${key}.yaw0`, 0),
    vx0: num(e, 'vx0', file, `${key}.vx0`, 0),
    control,
    sensors,
    path: e.path !== undefined && e.path !== null && e.path !== '' ? loadPath(e.path, file, `${key}.path`) : undefined,
    pathLookahead: num(e, 'path_lookahead', file, `${key}.path_lookahead`, 8),
    label,
  };
}

function loadSceneComms(v: unknown, file: string, catalog: Catalog): CommsSpec | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (isRecord(v)) return parseComms(v, file, 'comms');
  if (typeof v !== 'string') throw new ConfigError(file, 'comms', 'expected an inline comms map or a comms file');
  let path: string | undefined;
  if (isAbsolute(v) || existsSync(v)) path = v;
  else {
    for (const c of [join(dirname(file), v), join(dirname(file), `${v}.yaml`), join(dirname(file), `comms_${v}.yaml`), join(dirname(file), 'comms', `${v}.yaml`)]) {
      if (existsSync(c)) {
        path = c;
        break;
      }
    }
    path ??= catalog.commsFile(v);
  }
  if (!path) throw new ConfigError(file, 'comms', `comms '${v}' not found (as a path, next to the scene, or in the catalog folders)`);
  return parseComms(readYamlFile(path).data, path);
}

/** Loads a world or catalog scene YAML. */
export async function loadWorldFile(path: string, opts: WorldLoadOptions = {}): Promise<WorldSpec> {
  await loadTemplates();
  const file = readYamlFile(path, opts);
  const data = file.data;
  const warnings = [...file.warnings];
  if (!isRecord(data)) throw new ConfigError(path, undefined, 'expected a world or scene map');
  const listKey = Array.isArray(data.vehicles) ? 'vehicles' : Array.isArray(data.fleet) ? 'fleet' : undefined;
  if (!listKey) throw new ConfigError(path, 'vehicles', 'a world needs `vehicles:` (or a catalog scene `fleet:`) with at least one vehicle');
  for (const k of Object.keys(data)) if (!WORLD_KEYS.has(k)) warnings.push(`${path}: unknown key '${k}' ignored`);
  const sim = data.sim;
  if (sim !== undefined && sim !== null && !isRecord(sim)) throw new ConfigError(path, 'sim', 'expected a map');
  const simMap = isRecord(sim) ? sim : undefined;
  if (simMap) {
    for (const k of Object.keys(simMap)) if (!SIM_KEYS.has(k)) warnings.push(`${path}: unknown key 'sim.${k}' ignored`);
    if (simMap.stunt_physics) throw new ConfigError(path, 'sim.stunt_physics', 'stunt physics (L5) is not ported');
    for (const k of ['max_substep_dt', 'max_substeps']) if (simMap[k] !== undefined) warnings.push(`${path}: sim.${k} applies to stunt worlds only (as in VDSim); ignored`);
  }
  for (const k of ['stunt', 'terrain']) if (data[k] !== undefined && data[k] !== null && data[k] !== '' && !(isRecord(data[k]) && Object.keys(data[k] as object).length === 0)) throw new ConfigError(path, k, `${k === 'stunt' ? 'stunt grounds (ramp, loop, banked)' : 'heightmap terrain'} are not ported`);
  if (num(data, 'iso_class', path, 'iso_class', -1) >= 0) throw new ConfigError(path, 'iso_class', 'ISO 8608 random roads are not ported');
  if (num(data, 'rough_amp', path, 'rough_amp', 0) > 0) throw new ConfigError(path, 'rough_amp', 'rough roads are not ported');
  const rate = simMap?.rate !== undefined ? num(simMap, 'rate', path, 'sim.rate', 200) : num(data, 'rate', path, 'rate', 200);
  const dt = simMap ? num(simMap, 'dt', path, 'sim.dt', 0.005) : 0;
  const timeScale = simMap?.time_scale !== undefined ? num(simMap, 'time_scale', path, 'sim.time_scale', 0) : num(data, 'time_scale', path, 'time_scale', 0);
  const catalog = new Catalog((opts.catalogDirs ?? []).map((d) => resolve(d)));
  const sceneSensors = data.sensors !== undefined && data.sensors !== null && data.sensors !== '' ? loadSensorParams(resolveRef(data.sensors, path, 'sensors'), opts).params : undefined;
  const vehicles = (data[listKey] as unknown[]).map((e, i) => parseVehicle(e, i, listKey, path, opts, catalog, sceneSensors, warnings));
  if (vehicles.length === 0) throw new ConfigError(path, listKey, 'no vehicles');
  const ids = new Set<number>();
  vehicles.forEach((v, i) => {
    if (ids.has(v.id)) throw new ConfigError(path, `${listKey}[${i}].id`, `duplicate vehicle id ${v.id}`);
    ids.add(v.id);
  });
  const comms = loadSceneComms(data.comms, path, catalog);
  if (comms) warnings.push(...comms.warnings);
  return {
    file: path,
    kind: listKey === 'vehicles' ? 'world' : 'scene',
    label: typeof data.label === 'string' ? data.label : typeof data.name === 'string' ? data.name : typeof data.id === 'string' ? data.id : path,
    rate,
    dt: dt > 0 && dt < 1 ? dt : 0,
    timeScale: timeScale > 0 ? timeScale : 0,
    tEnd: simMap ? num(simMap, 't_end', path, 'sim.t_end', 0) : 0,
    cmdTimeout: num(data, 'cmd_timeout', path, 'cmd_timeout', 0.1),
    ground: {
      mu: num(data, 'mu', path, 'mu', 1),
      muRight: num(data, 'mu_right', path, 'mu_right', -1),
      muBoundary: num(data, 'mu_boundary', path, 'mu_boundary', 0),
      grade: num(data, 'grade', path, 'grade', 0),
      bank: num(data, 'bank', path, 'bank', 0),
    },
    sensorDelayS: num(data, 'sensor_delay', path, 'sensor_delay', 0),
    vehicles,
    comms,
    warnings,
  };
}

/**
 * The world of the seed form `vdsim_realtime <vehicle.yaml> <tire.yaml>` (spec §2.6): one vehicle (id 0) at the
 * origin with speed vx0, flat ground μ = 1, no comms (legacy subscriber routing).
 */
export function seedWorld(vehiclePath: string, tirePath: string, opts: WorldLoadOptions & { level?: Level; vx0?: number } = {}): FleetWorld & { warnings: string[] } {
  const vp = loadVehicleParams(vehiclePath, opts);
  const tp = loadTireParams(tirePath, opts);
  const tires = applyLugre([tp.params, tp.params, tp.params, tp.params], opts.lugre);
  return {
    label: `${vehiclePath.split('/').pop()} + ${tirePath.split('/').pop()}`,
    vehicles: [{
      id: 0, level: opts.level ?? 'L2', vehicle: vp.params, tires, x0: 0, y0: 0, z0: 0, yaw0: 0, vx0: opts.vx0 ?? 0,
      control: 'external', pathLookahead: 8, label: `${vehiclePath.split('/').pop()} + ${tirePath.split('/').pop()}`,
    }],
    ground: { mu: 1, muRight: -1, muBoundary: 0, grade: 0, bank: 0 },
    sensorDelayS: 0,
    warnings: [...vp.warnings, ...tp.warnings],
  };
}
