/**
 * Loads SensorParams from either VDSim format:
 *  - the SensorParams noise file: `enabled, seed, imu_accel, imu_gyro, wheel_speed, steer, gnss_pos, gnss_vel`,
 *    each `{noise_std, bias, bias_rw}`;
 *  - a scene-style sensor list (a list, or `{enabled, seed, list: [...]}`) of
 *    `{id, type, mount: {pos, rpy}, rate, noise_std, bias, bias_rw, params}`; noise goes to the type's groups
 *    (gnss → pos + vel, imu → accel + gyro); camera/lidar are declarations only. As in VDSim, unknown keys or
 *    types, bad arrays and duplicate ids are errors here, and mount/rate are stored but not simulated.
 */
import { SENSOR_GROUPS, SENSOR_GROUP_FIELD, type SensorDeclaration, type SensorGroup, type SensorParams, sensorParams } from '../params/sensor.js';
import { ConfigError } from './errors.js';
import { BOOL, type ReadContext, VEC3, childContext, readFields, readValue, subMap } from './fields.js';
import { type LoadOptions, type LoadResult, openParamsDocument } from './document.js';
import { NOISE_FIELDS } from './schemas.js';
import { isRecord } from './yaml-file.js';

const TYPE_GROUPS: Record<string, readonly SensorGroup[]> = {
  gnss: ['gnss_pos', 'gnss_vel'],
  gnss_pos: ['gnss_pos'],
  gnss_vel: ['gnss_vel'],
  imu: ['imu_accel', 'imu_gyro'],
  imu_accel: ['imu_accel'],
  imu_gyro: ['imu_gyro'],
  wheel_speed: ['wheel_speed'],
  steer: ['steer'],
  camera: [],
  lidar: [],
};
const ENTRY_KEYS = new Set(['id', 'type', 'host', 'mount', 'rate', 'noise_std', 'bias', 'bias_rw', 'params']);
/** `host:` (seed 001 §3): a vehicle id, `ego` (the first vehicle), or `infra:<name>` (a fixed roadside sensor). */
const HOST = /^(infra:[A-Za-z0-9_.-]+|[A-Za-z0-9_.-]+)$/;
const NOISE_KEYS = ['noise_std', 'bias', 'bias_rw'];
const SEED = { type: 'int', min: 0 } as const;

function parseNoiseFile(map: Record<string, unknown>, ctx: ReadContext): SensorParams {
  const p = sensorParams();
  readFields(map, p, [{ key: 'enabled', field: 'enabled', kind: BOOL }, { key: 'seed', field: 'seed', kind: SEED }], ctx, new Set(SENSOR_GROUPS));
  for (const g of SENSOR_GROUPS) {
    const sub = subMap(map, g, ctx);
    if (sub) readFields(sub, p[SENSOR_GROUP_FIELD[g]], NOISE_FIELDS, childContext(ctx, g));
  }
  return p;
}

function parseEntry(entry: unknown, index: number, ctx: ReadContext, p: SensorParams, ids: Set<string>): SensorDeclaration {
  const ectx = childContext(ctx, `list[${index}]`);
  if (!isRecord(entry)) throw new ConfigError(ctx.file, ectx.prefix, 'expected a map {id, type, mount, rate, ...}');
  for (const k of Object.keys(entry)) if (!ENTRY_KEYS.has(k)) throw new ConfigError(ctx.file, `${ectx.prefix}.${k}`, 'unknown sensor key');
  const type = readValue(entry.type, { type: 'enum', values: Object.keys(TYPE_GROUPS) }, ectx, 'type') as string;
  const id = entry.id === undefined || entry.id === null ? type : String(entry.id);
  if (ids.has(id)) throw new ConfigError(ctx.file, `${ectx.prefix}.id`, `duplicate sensor id '${id}'`);
  ids.add(id);
  const groups = TYPE_GROUPS[type];
  const hasNoise = NOISE_KEYS.some((k) => entry[k] !== undefined && entry[k] !== null);
  if (hasNoise && groups.length === 0) throw new ConfigError(ctx.file, ectx.prefix, `a ${type} is a declaration only; noise keys are not allowed on it`);
  for (const g of groups) readFields(entry, p[SENSOR_GROUP_FIELD[g]], NOISE_FIELDS, ectx, new Set(['id', 'type', 'host', 'mount', 'rate', 'params']));
  const decl: SensorDeclaration = { id, type, mountPos: [0, 0, 0], mountRpy: [0, 0, 0], rateHz: null, params: {} };
  if (entry.host !== undefined && entry.host !== null) {
    const host = typeof entry.host === 'number' && Number.isInteger(entry.host) ? String(entry.host) : entry.host;
    if (typeof host !== 'string' || !HOST.test(host)) throw new ConfigError(ctx.file, `${ectx.prefix}.host`, `expected a vehicle id, 'ego' or 'infra:<name>', got ${JSON.stringify(entry.host)}`);
    if (host.startsWith('infra:') && groups.length > 0) throw new ConfigError(ctx.file, `${ectx.prefix}.host`, `an infrastructure sensor has no vehicle to measure: a ${type} needs a vehicle host (infra sensors: camera, lidar)`);
    decl.host = host;
  }
  const mount = subMap(entry, 'mount', ectx);
  if (mount) {
    const mctx = childContext(ectx, 'mount');
    for (const k of Object.keys(mount)) if (k !== 'pos' && k !== 'rpy') throw new ConfigError(ctx.file, `${mctx.prefix}.${k}`, 'unknown mount key (expected pos, rpy)');
    if (mount.pos !== undefined) decl.mountPos = readValue(mount.pos, VEC3, mctx, 'pos') as [number, number, number];
    if (mount.rpy !== undefined) decl.mountRpy = readValue(mount.rpy, VEC3, mctx, 'rpy') as [number, number, number];
  }
  if (entry.rate !== undefined && entry.rate !== null) decl.rateHz = readValue(entry.rate, { type: 'number', exclusiveMin: 0 }, ectx, 'rate') as number;
  const params = subMap(entry, 'params', ectx);
  if (params) for (const [k, v] of Object.entries(params)) decl.params[k] = readValue(v, { type: 'number' }, childContext(ectx, 'params'), k) as number;
  return decl;
}

function parseSensorList(list: unknown[], head: Record<string, unknown>, ctx: ReadContext): SensorParams {
  const p = sensorParams({ enabled: true });
  for (const k of Object.keys(head)) if (!['enabled', 'seed', 'list'].includes(k)) throw new ConfigError(ctx.file, k, 'unknown key in a sensor list file (expected enabled, seed, list)');
  if (head.enabled !== undefined && head.enabled !== null) p.enabled = readValue(head.enabled, BOOL, ctx, 'enabled') as boolean;
  if (head.seed !== undefined && head.seed !== null) p.seed = readValue(head.seed, SEED, ctx, 'seed') as number;
  const ids = new Set<string>();
  p.declarations = list.map((e, i) => parseEntry(e, i, ctx, p, ids));
  return p;
}

export function parseSensorParams(data: unknown, ctx: ReadContext): SensorParams {
  if (Array.isArray(data)) return parseSensorList(data, {}, ctx);
  if (!isRecord(data)) throw new ConfigError(ctx.file, undefined, 'expected a map or a list of sensors');
  if (data.list !== undefined) {
    if (!Array.isArray(data.list)) throw new ConfigError(ctx.file, 'list', 'expected a list of sensors');
    return parseSensorList(data.list, data, ctx);
  }
  return parseNoiseFile(data, ctx);
}

export function loadSensorParams(path: string, opts: LoadOptions = {}): LoadResult<SensorParams> {
  const doc = openParamsDocument(path, 'sensor', opts);
  const ctx: ReadContext = { file: path, prefix: '', warnings: doc.warnings };
  return { params: parseSensorParams(doc.body, ctx), warnings: doc.warnings, source: doc.source, metadata: {} };
}
