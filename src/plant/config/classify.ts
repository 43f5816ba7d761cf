/**
 * Recognises what a VDSim YAML file is from its keys, so a loader can accept the right kind (flat parameter
 * file or catalog part) and reject the others with a message that says what the file is.
 */
import { SENSOR_GROUPS } from '../params/sensor.js';
import { BRAKE_ACTUATOR_FIELDS, STEER_SERVO_FIELDS, SOLVER_FIELDS, SOLVER_UNSUPPORTED_KEYS, TIRE_FIELDS, VEHICLE_FIELDS, VEHICLE_METADATA_KEYS } from './schemas.js';
import { isRecord } from './yaml-file.js';

export type ParamsKind = 'vehicle' | 'tire' | 'sensor' | 'solver' | 'actuator';
export type OtherKind = 'blueprint' | 'scene' | 'world' | 'comms' | 'experiment' | 'map' | 'scenario' | 'unsupported-part' | 'empty' | 'unknown';

export interface Classification {
  /** What the parameters describe (a catalog part is classified by the parameters in its body). */
  kind: ParamsKind | OtherKind;
  /** True for a catalog part (`id/type/schema/.../body:` envelope). */
  part: boolean;
  partId?: string;
  partType?: string;
  /** Human description, used in "is ..., not a ... config" messages. */
  description: string;
}

/** Catalog part types whose body holds VehicleParams fields (docs/design/PARTS_CATALOG.md slots). */
export const VEHICLE_PART_TYPES = ['chassis', 'body', 'aero', 'ride', 'brake', 'steering', 'drivetrain'];
export const PART_ENVELOPE_KEYS = ['id', 'type', 'version', 'schema', 'label', 'tags', 'body'];

const VEHICLE_KEYS = new Set([...VEHICLE_FIELDS.map((f) => f.key), ...VEHICLE_METADATA_KEYS, 'powertrain']);
const TIRE_KEYS = new Set([...TIRE_FIELDS.map((f) => f.key), 'lugre', 'belt', 'tir_path']);
const SOLVER_KEYS = new Set([...SOLVER_FIELDS.map((f) => f.key), ...SOLVER_UNSUPPORTED_KEYS]);
const SENSOR_KEYS = new Set<string>(['enabled', 'seed', 'list', ...SENSOR_GROUPS]);
const CHANNEL_KEYS = new Set([...STEER_SERVO_FIELDS.map((f) => f.key), ...BRAKE_ACTUATOR_FIELDS.map((f) => f.key), 'friction']);

const OTHER: Record<Exclude<OtherKind, 'unsupported-part' | 'empty' | 'unknown'>, string> = {
  blueprint: 'a catalog blueprint (an assembly manifest of part ids; resolve it with the VDSim catalog into a flat vehicle file first)',
  scene: 'a vdsim_realtime catalog scene (a fleet of blueprints)',
  world: 'a vdsim_realtime world file (a materialised scene)',
  comms: 'a comms routing config (UDP channels)',
  experiment: 'a vdsim_lab experiment (scenario) file',
  map: 'a map file (road surface and driving line)',
  scenario: 'a legacy scenario file (timed controls)',
};

function countKeys(map: Record<string, unknown>, keys: ReadonlySet<string>): number {
  return Object.keys(map).filter((k) => keys.has(k)).length;
}

function isActuatorMap(v: unknown): boolean {
  return isRecord(v) && Object.keys(v).some((k) => CHANNEL_KEYS.has(k));
}

function classifyFlat(map: Record<string, unknown>): ParamsKind | 'unknown' {
  if (['steer', 'throttle', 'brake'].some((k) => isActuatorMap(map[k]))) return 'actuator';
  const scores: [ParamsKind, number][] = [
    ['vehicle', countKeys(map, VEHICLE_KEYS)],
    ['tire', countKeys(map, TIRE_KEYS)],
    ['solver', countKeys(map, SOLVER_KEYS)],
    ['sensor', countKeys(map, SENSOR_KEYS)],
  ];
  scores.sort((a, b) => b[1] - a[1]);
  return scores[0][1] > 0 ? scores[0][0] : 'unknown';
}

const PARAM_DESCRIPTION: Record<ParamsKind, string> = {
  vehicle: 'a vehicle parameter file',
  tire: 'a tire parameter file',
  sensor: 'a sensor noise file',
  solver: 'a solver parameter file',
  actuator: 'an actuator parameter file',
};

export function describeKind(kind: ParamsKind): string {
  return PARAM_DESCRIPTION[kind];
}

export function classifyConfig(data: unknown): Classification {
  if (data === null || data === undefined) return { kind: 'empty', part: false, description: 'an empty file' };
  if (Array.isArray(data)) {
    return { kind: 'sensor', part: false, description: 'a scene-style sensor list' };
  }
  if (!isRecord(data)) return { kind: 'unknown', part: false, description: `a YAML ${typeof data}, not a map` };
  const m = data;
  if (isRecord(m.body)) {
    const partType = typeof m.type === 'string' ? m.type : undefined;
    const partId = typeof m.id === 'string' ? m.id : undefined;
    const label = `a catalog part${partId ? ` '${partId}'` : ''}${partType ? ` (type ${partType})` : ''}`;
    let kind: ParamsKind | OtherKind;
    if (partType === 'tire' || (!partType && classifyFlat(m.body) === 'tire')) kind = 'tire';
    else if ((partType && VEHICLE_PART_TYPES.includes(partType)) || (!partType && classifyFlat(m.body) === 'vehicle')) kind = 'vehicle';
    else kind = 'unsupported-part';
    return { kind, part: true, partId, partType, description: label };
  }
  if (isRecord(m.parts) && !('mass' in m)) return { kind: 'blueprint', part: false, description: OTHER.blueprint };
  if (Array.isArray(m.fleet)) return { kind: 'scene', part: false, description: OTHER.scene };
  if (Array.isArray(m.vehicles) || isRecord(m.sim)) return { kind: 'world', part: false, description: OTHER.world };
  if (Array.isArray(m.channels)) return { kind: 'comms', part: false, description: OTHER.comms };
  if (isRecord(m.maneuver)) return { kind: 'experiment', part: false, description: OTHER.experiment };
  if (isRecord(m.road) || isRecord(m.driving_line)) return { kind: 'map', part: false, description: OTHER.map };
  if (Array.isArray(m.controls)) return { kind: 'scenario', part: false, description: OTHER.scenario };
  if (Array.isArray(m.list)) return { kind: 'sensor', part: false, description: 'a scene-style sensor list' };
  const flat = classifyFlat(m);
  if (flat === 'unknown') return { kind: 'unknown', part: false, description: 'not a recognised VDSim config (no known keys)' };
  return { kind: flat, part: false, description: PARAM_DESCRIPTION[flat] };
}
