/**
 * JSON schemas of the WebSocket protocol and the REST API: the single source for validation (ajv for
 * WebSocket messages, fastify for HTTP) and for the published protocol files (docs/protocol/*.schema.json).
 */
import { settingsJsonSchema } from '../scene/settings.js';
import { SESSION_SETTINGS } from './settings.js';
import { LIVE_TIMEOUT_MAX_S } from '../scene/signals/signal-params.js';
import { egoTimingFields, headingSourceSchema, mapReplySchema, npcStatesSchema, npcViewSchema, num, signalEntrySchema, str, strList } from '../protocol/index.js';
import { egoStateSchema } from './ego-state-schema.js';

// the frame's schemas live with the protocol's types (the page reads them too), ego_state's beside the wire
// adapter that reads it; validation and docs take them all from here
export { egoStateSchema, mapReplySchema, npcStatesSchema, npcViewSchema, signalEntrySchema };

export const pingSchema = {
  $id: 'ping',
  title: 'ping (client → server)',
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: { type: { const: 'ping' }, timestamp: num },
} as const;


const liveStates = {
  type: 'object',
  maxProperties: 256,
  propertyNames: { maxLength: 64 },
  additionalProperties: { type: 'string', maxLength: 16 },
  description: 'state by signal group id: G (or green), g (green_yield), y (yellow), r (red), o (off); groups left out are red',
} as const;

const liveInputFields = {
  states: liveStates,
  phase: { type: 'integer', minimum: 0, maximum: 255, description: "or a phase of the junction's plan (0-based): its states" },
  timeout_s: { type: 'number', exclusiveMinimum: 0, maximum: LIVE_TIMEOUT_MAX_S, description: 'back to the plan after this long without a new input (default 10 s)' },
} as const;

export const signalInputSchema = {
  $id: 'signal_input',
  title: 'signal_input (client → server, operator role)',
  description: "Sets a signalised junction's groups live, as a roadside unit's SPaT or an operator does: states by group id, or a phase of its plan. Each message renews the input (send it at 10 Hz, or set timeout_s); after timeout_s without one the junction goes back to its plan. Changes go through the clearances (a green that must end turns yellow, then red; a green starts only after the all-red time). Refused whole with the reason (an error): unknown junction or group, conflicting greens, a phase that does not exist. Answered with signal_ack.",
  type: 'object',
  required: ['type', 'data'],
  additionalProperties: false,
  properties: {
    type: { const: 'signal_input' },
    data: {
      type: 'object',
      required: ['junction'],
      additionalProperties: false,
      properties: { junction: { type: 'string', minLength: 1, maxLength: 64, description: 'junction id, e.g. J1' }, ...liveInputFields },
    },
  },
} as const;

export const signalReleaseSchema = {
  $id: 'signal_release',
  title: 'signal_release (client → server, operator role)',
  description: 'Ends a junction\'s live input now: it goes back to its plan (through the clearances). Answered with signal_ack.',
  type: 'object',
  required: ['type', 'data'],
  additionalProperties: false,
  properties: {
    type: { const: 'signal_release' },
    data: { type: 'object', required: ['junction'], additionalProperties: false, properties: { junction: { type: 'string', minLength: 1, maxLength: 64 } } },
  },
} as const;

const liveResult = {
  type: 'object',
  properties: {
    junction: str,
    states: { type: 'object', additionalProperties: { enum: ['G', 'g', 'y', 'r', 'o'] }, description: 'what will be shown once the clearances have run, by group id' },
    until_s: { ...num, description: 'simulation time the input ends at, unless renewed' },
    clearance: { type: 'boolean', description: 'the junction goes through a clearance (yellow, all-red) to get there' },
  },
} as const;

export const signalAckSchema = {
  $id: 'signal_ack',
  title: 'signal_ack (server → client)',
  description: 'A signal_input or signal_release was applied (between two policy steps).',
  type: 'object',
  required: ['type', 'input', 'data'],
  properties: {
    type: { const: 'signal_ack' },
    input: { enum: ['signal_input', 'signal_release'] },
    data: {
      description: 'signal_input: {junction, states, until_s, clearance}; signal_release: {junction, released} (released: false when no live input was active)',
      type: 'object',
      properties: { ...liveResult.properties, released: { type: 'boolean' } },
    },
  },
} as const;

export const signalStatesSchema = {
  $id: 'signal_states',
  title: 'signal_states (server → binary clients)',
  description: 'For clients of ?format=binary, whose npc_states frames carry NPCs and egos only: every signal group\'s state, as a JSON text message, sent right after the frame in which a group\'s state or source changed, and at least once a second. JSON clients get the same list in every frame (npc_states.signals) and no signal_states.',
  type: 'object',
  required: ['type', 'timestamp', 'sim_time_s', 'signals'],
  properties: {
    type: { const: 'signal_states' },
    timestamp: { ...num, description: 'wall-clock time of the frame it goes with, seconds since the Unix epoch' },
    sim_time_s: { ...num, description: 'simulation time of that frame' },
    signals: { type: 'array', items: signalEntrySchema },
  },
} as const;

export const errorSchema = {
  $id: 'error',
  title: 'error (server → client)',
  type: 'object',
  required: ['type', 'error'],
  properties: {
    type: { const: 'error' },
    error: str,
    more_errors: { type: 'integer', description: 'extension: in a burst, this reply stands for this many errors not sent one by one ("N more errors (the last: …)")' },
  },
} as const;

export const pongSchema = {
  $id: 'pong',
  title: 'pong (server → client)',
  type: 'object',
  required: ['type', 'timestamp'],
  properties: { type: { const: 'pong' }, timestamp: num },
} as const;

export const clockProbeSchema = {
  $id: 'clock_probe',
  title: 'clock_probe (server → client)',
  description: "Sent about once a second to a connection that drives an ego. A client that answers it (clock_reply) has its clock's offset to the server's measured, so its fixes are placed at the moment they were taken even when its clock is off; a client that does not know it ignores it (clients ignore message types they do not know).",
  type: 'object',
  required: ['type', 'server_time'],
  properties: { type: { const: 'clock_probe' }, server_time: { ...num, description: "the server's clock when it sent the probe, s since the Unix epoch: echo it" } },
} as const;

export const clockReplySchema = {
  $id: 'clock_reply',
  title: 'clock_reply (client → server)',
  description: "The answer to a clock_probe, as soon as it is received: the probe's server_time, and the client's own clock (the one that stamps its ego_state timestamps) when it received the probe and when it sent the answer. The server measures the client's clock offset from both legs as NTP does; the answer to a probe it did not send is refused.",
  type: 'object',
  required: ['type', 'server_time', 'received'],
  additionalProperties: false,
  properties: {
    type: { const: 'clock_reply' },
    server_time: { ...num, description: 'the probe\'s server_time, unchanged' },
    received: { ...num, description: "the client's clock when the probe arrived, s since the Unix epoch" },
    sent: { ...num, description: "the client's clock when it sent this answer (default: received)" },
  },
} as const;

export const PROTOCOL_SCHEMAS = {
  ego_state: egoStateSchema, ping: pingSchema, npc_states: npcStatesSchema, error: errorSchema, pong: pongSchema,
  signal_input: signalInputSchema, signal_release: signalReleaseSchema, signal_ack: signalAckSchema, signal_states: signalStatesSchema,
  clock_probe: clockProbeSchema, clock_reply: clockReplySchema,
};

// ---- REST ----

/** GET/PUT /api/config: made from the settings table (src/scene/config.ts, src/server/settings.ts). */
export const configSchema = settingsJsonSchema(SESSION_SETTINGS);

/** a position in map metres: any map VILS loads is far smaller than this (the scene checks the map's own bounds) */
const mapMetres = { type: 'number', minimum: -1e7, maximum: 1e7 } as const;

export const npcSpawnSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    x: mapMetres, y: mapMetres,
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    heading: { type: 'number', minimum: -360, maximum: 720, description: 'degrees clockwise from true north (default: along the nearest lane)' },
    yaw: { type: 'number', minimum: -10, maximum: 10, description: 'rad, alternative to heading' },
    speed: { type: 'number', minimum: 0, maximum: 60, default: 0 },
    length: { type: 'number', exclusiveMinimum: 0, maximum: 30 },
    width: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
    goal: {
      type: 'object',
      additionalProperties: false,
      description: 'default: a route along the lanes, with goals chained along it',
      properties: { x: mapMetres, y: mapMetres, lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } },
    },
    keep_driving: { type: 'boolean', default: true, description: 'at the goal (or the end of its route) drive on along the lanes; false: leave the map there' },
  },
} as const;

export const egoViewSchema = {
  type: 'object',
  properties: {
    ego_id: str, x: num, y: num, yaw: num, speed: num, length: num, width: num, stale: { type: 'boolean' }, collided: { type: 'boolean' },
    timestamp: { type: ['number', 'null'] },
    heading_source: headingSourceSchema,
    ...egoTimingFields,
  },
} as const;

export const errorReplySchema = {
  type: 'object',
  properties: { statusCode: { type: 'integer' }, error: str, message: str },
} as const;

// ---- signals (GET/PUT/DELETE /api/signals) ----

export const signalLiveBodySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'states by group id, or a phase of the plan; timeout_s (default 10 s, at most 3600 s): back to the plan after this long without a new input',
  properties: liveInputFields,
} as const;

export const signalLiveReplySchema = liveResult;

const phaseStates = {
  anyOf: [
    { type: 'string', maxLength: 256, description: "one character per group, in the junction's group order" },
    { type: 'object', maxProperties: 256, propertyNames: { maxLength: 64 }, additionalProperties: { type: 'string', maxLength: 16 }, description: 'by group id (groups left out are red)' },
  ],
} as const;

export const signalPlanBodySchema = {
  type: 'object',
  additionalProperties: false,
  description: "a change to the junction's current plan: the whole program (phases) or its green times (green_s, one per green phase), and/or offset_s, yellow_s, all_red_s; validated whole (every green ends in a yellow of 3–6 s, conflicting groups are never green together, an all-red before a conflicting green)",
  properties: {
    offset_s: { type: 'number', minimum: 0, maximum: 3600, description: 'the cycle starts at this simulation time' },
    phases: {
      type: 'array', minItems: 1, maxItems: 64,
      items: { type: 'object', required: ['duration_s', 'states'], additionalProperties: false, properties: { duration_s: { type: 'number', minimum: 0, maximum: 3600 }, states: phaseStates } },
    },
    green_s: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'number', minimum: 0, maximum: 3600 } },
    yellow_s: { type: 'number', minimum: 0, maximum: 60 },
    all_red_s: { type: 'number', minimum: 0, maximum: 60 },
    actuated: { type: 'boolean', description: 'vehicle-actuated greens (true: each green from 5 s up to its duration, ending when nobody arrives within 3 s; false: fixed time); default: as the plan was, fixed where phases or green_s are given' },
  },
} as const;

export const signalPlanSchema = {
  type: ['object', 'null'],
  properties: {
    cycle_s: num, offset_s: num, yellow_s: num, all_red_s: num,
    source: { enum: ['default', 'scenario', 'api'] },
    walks_never: { type: 'array', items: str, description: 'walk groups this plan never lets walk (no phase leaves their conflicting protected greens red for the shortest walk and its clearance); a derived plan has none' },
    actuated: {
      type: ['object', 'null'],
      description: 'vehicle-actuated timing (null: fixed time): per phase the shortest and longest green (null for yellows and all-reds), and the gap that ends a green early',
      properties: { gap_s: num, phases: { type: 'array', items: { type: ['object', 'null'], properties: { min_s: num, max_s: num } } } },
    },
    phases: {
      type: 'array',
      items: { type: 'object', properties: { duration_s: num, states: { ...str, description: 'one character per group, in the order of the junction\'s groups' }, by_group: { type: 'object', additionalProperties: str } } },
    },
  },
} as const;

export const junctionViewSchema = {
  type: 'object',
  properties: {
    id: str,
    control: { enum: ['signal', 'all_way_stop', 'stop', 'yield', 'priority'] },
    x: { ...num, description: 'centre, map metres' },
    y: num,
    approaches: {
      type: 'array',
      items: { type: 'object', properties: { letter: str, sign: { type: ['string', 'null'], enum: ['stop', 'yield', null] }, heads: { ...strList, description: 'signal heads (map ids)' }, signs: strList } },
    },
    groups: { ...strList, description: 'its signal group ids, in the order of a plan\'s state characters' },
    plan: signalPlanSchema,
    live: {
      type: ['object', 'null'],
      description: 'the latest live input (null: none since the last reset or release)',
      properties: {
        active: { type: 'boolean', description: 'still in force (false once it ran out: the junction is back on its plan)' },
        states: { type: 'object', additionalProperties: str },
        until_s: num, remaining_s: num, set_at_s: num, set_by: str,
      },
    },
    signals: { type: 'array', items: signalEntrySchema },
  },
} as const;

export const signalsReplySchema = {
  type: 'object',
  properties: {
    sim_time_s: num,
    signals: { type: 'array', items: signalEntrySchema },
    junctions: { type: 'array', items: junctionViewSchema },
    unbound: {
      type: 'object',
      description: 'map records bound to no junction (a stop line at a mid-block crosswalk, a head whose lanes meet nothing): ids',
      properties: { heads: strList, stop_lines: strList, signs: strList },
    },
  },
} as const;

// ---- map (GET /api/map): mapReplySchema, in src/protocol/map.ts ----

/** POST /api/story/arm: the attempt number the client sees (GET /api/story `attempt`); the new one is that + 1. */
export const storyArmSchema = {
  type: 'object',
  required: ['attempt'],
  additionalProperties: false,
  properties: {
    attempt: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'the current attempt number, as GET /api/story gives it (0 before the first): arming replaces that attempt with the next; another number is refused (409) and nothing changes' },
  },
} as const;

/** GET /api/story and its commands' replies: a served test case (src/session/story-desk.ts). */
export const storyViewSchema = {
  type: 'object',
  properties: {
    case: str,
    ego: { ...str, description: "the vehicle under test: the scene's ego id (the real car's, or the simulated ego's)" },
    story_ego: { ...str, description: "the case's id for it" },
    actors: { type: 'array', items: str },
    attempt: { type: 'integer', description: 'the attempt number (0 before the first)' },
    state: { enum: ['idle', 'armed', 'running', 'ended'], description: 'idle (none or reset), armed (actors placed, no event yet), running (an event has started), ended (a verdict)' },
    armed_at_s: { type: ['number', 'null'] },
    auto_arm: { type: 'boolean', description: 'attempts are armed at every reset (a simulated ego), else by the operator' },
    result: {
      type: ['object', 'null'], additionalProperties: true,
      description: 'status (passed, failed, not_started, aborted, invalid: judged on data that did not hold, running), reason (a failure: the criterion that failed first, its figure and when; else why it ended), ended_by (why it ended; null while running), start_s, end_s, events [{id, started_s, done_s, executions}], criteria [{name, kind, verdict, value, limit, unit, at_s, detail}], quality (with a real car: every data-quality gate [{gate, ok, value, limit, unit, from_s, to_s, detail}]: fix_gap, stale, forgotten, disconnected, clock_jump, server_stall, behind_plan, actor_off_plan), criteria_said (of an invalid attempt: what the criteria alone said, not a verdict)',
    },
    happenings: { type: 'array', items: { type: 'object', properties: { t: num, kind: str, id: str, detail: str } } },
    attempts: { type: 'array', items: { type: 'object', properties: { attempt: { type: 'integer' }, status: str, reason: str, armed_at_s: num, end_s: { type: ['number', 'null'] } } } },
  },
} as const;
