/**
 * The JSON data port (VDSim's GUI data port, spec §4) as a fastify plugin, over any VehiclePorts (src/cosim) — in
 * this thread, or answered by the simulated egos' own thread (src/session/sim-ego-thread.ts):
 *
 *   POST /api/io            {vehicle?, throttle?, brake?, steer?} → that vehicle's command; replies with the state
 *   GET  /api/io            the state snapshot (VDSim: GET /api/io and /api/state)
 *   GET  /api/io/targets    each vehicle's UDP JSON telemetry configuration
 *   PUT  /api/io/targets    {vehicle?, enabled?, rate?, send_state?, send_cmd?, targets?: [{ip, port}]}
 *                           (POST is accepted too: VDSim's GUI uses POST)
 *
 * Bodies follow the server's body policy (src/server/body-policy.ts; the app must have it installed, so this
 * plugin refuses to register without it): size, nesting, and each route's schema — built from the fleet, so a
 * `vehicle` that is not one of its ids is a 400 naming the ids (VDSim answered 200 with the error inside), a key
 * outside the schema is a 400 naming it (VDSim ignored it), a pedal outside [0, 1], a steering angle beyond ±2π
 * rad or a telemetry rate outside [1, 200] Hz (VDSim clamped it) a 400 naming the field. Unlike VDSim, which drops
 * bad targets silently and streams 200 Hz UDP wherever it is told, a target must be an IPv4 address on loopback or
 * in the server's allow-list (`allowTargets`; `vils realtime --allow`) with a port in 1..65535: anything else is a
 * 400 naming the field and changes nothing (no open relay, no garbage driving). The targets reply carries
 * `"ok": true`. Register it on any fastify instance with the body policy: `app.register(ioPlugin, { ports })`;
 * its routes carry JSON schemas, so @fastify/swagger (registered first) documents them.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { type IoCommand, type TargetsPatch, type VehiclePorts, isUnknownVehicle } from '../cosim/ports.js';
import { SourceFilter, parseIpv4 } from '../cosim/sources.js';
import { MAX_CMD_STEER_RAD } from '../cosim/vds1.js';

export interface IoPluginOptions {
  ports: VehiclePorts;
  /** telemetry destinations allowed beyond loopback (default: none) */
  allowTargets?: SourceFilter;
}

/** A request the data port refuses whole (400, the field named). */
class TargetError extends Error {
  readonly statusCode = 400;
}

const number = { type: 'number' } as const;
const nullableNumber = { type: ['number', 'null'] } as const;
const quad = { type: 'array', items: nullableNumber, minItems: 4, maxItems: 4 } as const;

/** The telemetry rate a vehicle may be given [Hz] (VDSim clamps to it; here it is the schema's range). */
export const TELEMETRY_RATE_HZ = { min: 1, max: 200 } as const;

/** `vehicle`: one of the fleet's ids (its schema is built when the plugin is registered; the fleet is fixed by then). */
const vehicleField = (ids: readonly number[]) => ({ type: 'integer', enum: [...ids], description: `fleet vehicle id: ${ids.join(', ')} (default: the live vehicle, the first of the fleet)` }) as const;

export function ioCommandSchema(ids: readonly number[]) {
  return {
    type: 'object',
    additionalProperties: false,
    description: 'Keys given replace those of the vehicle command; missing keys keep their value. The command is held (VDSim GUI behaviour) until a VDS1 CMD for the vehicle arrives, or for --io-timeout seconds.',
    properties: {
      vehicle: vehicleField(ids),
      throttle: { ...number, minimum: 0, maximum: 1, description: 'accelerator pedal [0, 1]' },
      brake: { ...number, minimum: 0, maximum: 1, description: 'brake pedal [0, 1]' },
      steer: { ...number, minimum: -MAX_CMD_STEER_RAD, maximum: MAX_CMD_STEER_RAD, description: 'road-wheel angle [rad], + = left' },
    },
  } as const;
}

const vehicleRow = {
  vehicle: { type: 'integer' },
  t: { ...nullableNumber, description: 'server monotonic time of the last tick [s] (the STATE timestamp)' },
  sim_time: nullableNumber,
  level: { type: 'string' },
  x: nullableNumber, y: nullableNumber, z: nullableNumber, yaw: nullableNumber, roll: nullableNumber, pitch: nullableNumber,
  vx: nullableNumber, vy: nullableNumber, r: nullableNumber, wx: nullableNumber, wy: nullableNumber, ax: nullableNumber, ay: nullableNumber,
  steer: nullableNumber, throttle_applied: nullableNumber, brake_applied: nullableNumber,
  Fz: quad, wheel_spin: quad, susp: quad, kappa: quad, alpha: quad,
  driver: { type: 'boolean', description: 'false while the JSON port drives the vehicle' },
  failsafe: { type: 'boolean' },
} as const;

export const ioSnapshotSchema = {
  type: 'object',
  additionalProperties: true,
  description: "State snapshot (VDSim keys): the live vehicle's fields, every vehicle under `fleet`; or, for an unknown vehicle, {error, vehicles}.",
  properties: {
    ...vehicleRow,
    running: { type: 'boolean' },
    live_vid: { type: 'integer' },
    vehicles: { type: 'array', items: { type: 'integer' } },
    fleet: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true, properties: vehicleRow } },
    error: { type: 'string' },
  },
} as const;

const txSchema = {
  type: 'object',
  properties: { enabled: { type: 'boolean' }, rate: number, send_state: { type: 'boolean' }, send_cmd: { type: 'boolean' } },
} as const;
const targetSchema = { type: 'object', properties: { ip: { type: 'string' }, port: { type: 'integer' } } } as const;

export const targetsViewSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ok: { type: 'boolean' },
    error: { type: 'string' },
    vehicles: { type: 'array', items: { type: 'integer' } },
    live: { type: 'integer' },
    configs: { type: 'object', additionalProperties: { type: 'object', properties: { tx: txSchema, targets: { type: 'array', items: targetSchema } } } },
  },
} as const;

export function targetsPatchSchema(ids: readonly number[]) {
  return {
    type: 'object',
    additionalProperties: false,
    description: `Each target is an IPv4 address on loopback or in the server's allow-list and a port in 1..65535; a request with any other target, or a rate outside [${TELEMETRY_RATE_HZ.min}, ${TELEMETRY_RATE_HZ.max}] Hz, is refused whole (400).`,
    properties: {
      vehicle: vehicleField(ids),
      enabled: { type: 'boolean' },
      rate: { ...number, minimum: TELEMETRY_RATE_HZ.min, maximum: TELEMETRY_RATE_HZ.max, description: 'datagrams per second [Hz]' },
      send_state: { type: 'boolean' },
      send_cmd: { type: 'boolean' },
      targets: {
        type: 'array',
        maxItems: 64,
        items: { type: 'object', required: ['ip', 'port'], additionalProperties: false, properties: { ip: { type: 'string', maxLength: 15 }, port: { type: 'integer', minimum: 1, maximum: 65535 } } },
      },
    },
  } as const;
}

export const ioPlugin: FastifyPluginAsync<IoPluginOptions> = async (app, opts) => {
  const { ports } = opts;
  if (!app.vilsRoutes) throw new Error('ioPlugin: install the body policy on the app first (installBodyPolicy, src/server/plugins/body-policy.ts)');
  const allow = opts.allowTargets ?? new SourceFilter([]);
  const ids = ports.vehicleIds();
  const tags = ['io'];
  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, req, reply) => {
    const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    // a failure of the server's own (a 5xx) is an error in the log, never only a reply
    if (code >= 500) req.log.error({ err }, `${req.method} ${req.url.split('?')[0]} failed`);
    return reply.code(code).send({ statusCode: code, error: STATUS_CODES[code] ?? 'Error', message: err.message });
  });

  // (the body's own keys only: the schema refused any other, and nothing else of the request goes to the ports)
  app.post<{ Body: IoCommand | null }>('/api/io', { schema: { tags, summary: 'command a vehicle, get the state', body: ioCommandSchema(ids), response: { 200: ioSnapshotSchema } } }, async (req) => {
    const { vehicle, throttle, brake, steer } = req.body ?? {};
    return ports.command({ vehicle, throttle, brake, steer });
  });

  app.get('/api/io', { schema: { tags, summary: 'state snapshot', response: { 200: ioSnapshotSchema } } }, async () => ports.snapshot());

  app.get('/api/io/targets', { schema: { tags, summary: 'UDP JSON telemetry targets per vehicle', response: { 200: targetsViewSchema } } }, async () => ports.targets());

  const setTargets = async (req: { body: TargetsPatch }) => {
    for (const [i, t] of (req.body?.targets ?? []).entries()) {
      const ip = String(t.ip);
      if (parseIpv4(ip) === null) throw new TargetError(`body/targets/${i}/ip must be an IPv4 address, got ${JSON.stringify(t.ip).slice(0, 60)}`);
      if (!allow.allows(ip)) {
        throw new TargetError(`body/targets/${i}/ip ${ip} is outside loopback and not in this server's allow-list${allow.entries.length ? ` (${allow.entries.join(', ')})` : ''}: telemetry goes only where the operator allowed (vils realtime --allow)`);
      }
    }
    const r = await ports.setTargets(req.body ?? {});
    return isUnknownVehicle(r) ? r : { ok: true, ...r };
  };
  const targetsRoute = { schema: { tags, summary: "set one vehicle's UDP JSON telemetry", body: targetsPatchSchema(ids), response: { 200: targetsViewSchema } } };
  app.put<{ Body: TargetsPatch }>('/api/io/targets', targetsRoute, setTargets);
  app.post<{ Body: TargetsPatch }>('/api/io/targets', targetsRoute, setTargets);
};
