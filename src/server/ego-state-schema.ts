/**
 * The ego_state message's schema and the GNSS fix type derived from it, apart from the other schemas because the
 * wire adapter (wire.ts) reads the type and schemas.ts reaches, through the settings table, code that uses wire.ts.
 */
import { COURSE_MIN_DISPLACEMENT_M, COURSE_MIN_SPEED_MPS } from '../scene/egos.js';
import { num, type WireType } from '../protocol/index.js';

export const egoStateSchema = {
  $id: 'ego_state',
  title: 'ego_state (client → server)',
  description: "The real (or simulated) ego vehicle's GNSS state. Send at any rate; the server uses the latest.",
  type: 'object',
  required: ['type', 'data'],
  additionalProperties: false,
  properties: {
    type: { const: 'ego_state' },
    timestamp: { ...num, description: "when the fix was taken, on the client's clock, seconds since the Unix epoch (echoed back in npc_states.egos). The fix is placed at that moment on the server's clock (its offset measured through clock_probe, taken as synchronised when the latencies are plausible, else estimated from the fixes), the transport latency compensated; a fix stamped in the future beyond 0.05 s, older than ego_timeout_s or not after the last one is not used. Without it the fix counts as taken when it arrives" },
    ego_id: { type: 'string', minLength: 1, maxLength: 64, description: 'extension: which ego this is, when several cars share a session (default "ego")' },
    data: {
      type: 'object',
      required: ['lat', 'lon', 'speed'],
      additionalProperties: false,
      properties: {
        lat: { type: 'number', minimum: -90, maximum: 90, description: 'WGS84 latitude, degrees' },
        lon: { type: 'number', minimum: -180, maximum: 180, description: 'WGS84 longitude, degrees' },
        heading: { type: 'number', minimum: -360, maximum: 720, description: `degrees clockwise from true north. Optional (a single-antenna receiver has none): without it the server takes the course over ground between this ego's fixes once it reports at least ${COURSE_MIN_SPEED_MPS} m/s and has moved ${COURSE_MIN_DISPLACEMENT_M} m, holds the last heading below that, and before any uses the nearest lane's direction (else north); npc_states.egos[].heading_source says which` },
        speed: { type: 'number', minimum: 0, maximum: 100, description: `m/s, ≥ 0 (without a heading, the course over ground is only taken from ${COURSE_MIN_SPEED_MPS} m/s up)` },
        length: { type: 'number', exclusiveMinimum: 0, maximum: 30, description: 'extension: vehicle length, m' },
        width: { type: 'number', exclusiveMinimum: 0, maximum: 10, description: 'extension: vehicle width, m' },
      },
    },
  },
} as const;

/** An ego_state's data: a GNSS fix (the heading is absent from a receiver without one: the scene derives the course). */
export type GnssEgo = WireType<typeof egoStateSchema>['data'];
