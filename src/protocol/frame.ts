/**
 * The npc_states frame as JSON schemas, and the types derived from them: one definition for the server's
 * validation and published docs (src/server/schemas.ts, docs/protocol/), the frame builder (src/server/wire.ts)
 * and the page (src/web). The descriptions are the field documentation.
 */
import type { WireType } from './derive.js';
import { OBJECT_KINDS } from '../vehicle/index.js';

export const num = { type: 'number' } as const;
export const str = { type: 'string' } as const;
export const strList = { type: 'array', items: str } as const;
/** what the server knows of a stamped car's fixes and clock (src/time/fix-clock.ts), in frames and REST alike */
export const egoTimingFields = {
  accel: { ...num, description: 'longitudinal acceleration from the fixes at their own times, m/s² (negative when braking)' },
  yaw_rate: { ...num, description: 'yaw rate from the fixes at their own times, rad/s counter-clockwise' },
  fix_time_s: { ...num, description: 'simulation time at which the latest fix was measured (its arrival less its latency), s' },
  latency_s: { ...num, description: 'a stamped fix: the latest one was measured this long before it arrived (transport latency on the server clock), s' },
  clock_offset_s: { ...num, description: "a stamped fix: the car's clock minus the server's, as estimated, s" },
  clock_source: { enum: ['probe', 'synced', 'fixes', 'none'], description: "how the car's clock offset is known: from its answers to clock_probe (probe), taken as synchronised because its fixes' latencies are plausible (synced, the offset is clock_offset_s), from the lower envelope of its fixes alone (fixes: the least latency is not observable and counts as 0), or no stamps (none: placed at arrival)" },
  out_of_order: { type: 'integer', description: 'fixes dropped because they came after a later one' },
  clock_jumps: { type: 'integer', description: "times the car's clock offset moved by more than 0.1 s" },
} as const;

export const headingSourceSchema = { enum: ['reported', 'course', 'held', 'lane', 'none'], description: 'where the yaw comes from: the ego_state heading (reported), the course over ground between fixes (course), the last of those kept while the ego stands or creeps (held), the nearest lane before it had one (lane), or nothing yet: north, not extrapolated (none)' } as const;

/** One NPC (or scripted actor, or person) in a frame (npc_states.npcs). */
export const npcEntrySchema = {
  type: 'object',
  required: ['id', 'x', 'y', 'lat', 'lon', 'yaw', 'speed', 'length', 'width'],
  properties: {
    id: { type: 'integer' },
    x: { ...num, description: 'local east, m, about the map origin' },
    y: { ...num, description: 'local north (UTM grid), m' },
    lat: num,
    lon: num,
    yaw: { ...num, description: 'rad, counter-clockwise from local east' },
    speed: { ...num, description: 'm/s: the speed of the motion shown (displacement over the current policy step)' },
    vx: { ...num, description: 'extension: velocity east (map frame), m/s, of the motion shown' },
    vy: { ...num, description: 'extension: velocity north (map frame), m/s, of the motion shown' },
    length: num,
    width: num,
    heading: { ...num, description: 'extension: degrees clockwise from true north' },
    collided: { type: 'boolean', description: 'extension: touched a vehicle in this step' },
    offroad: { type: 'boolean', description: 'extension: touched a road edge in this step' },
    kind: { enum: OBJECT_KINDS, description: 'extension: what it is (every entry from the server says it; a client reading frames made before it takes an entry without it as a vehicle). Pedestrians and cyclists are people: length and width are their footprint (a pedestrian about 0.5 m across, a cyclist about 1.8 × 0.6 m)' },
    actor: { type: 'string', description: "extension: a test case's scripted actor (its story id; its id is 1000000 + its number); absent for the policy's NPCs" },
    hold: { enum: ['red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue', 'crosswalk'], description: 'extension: why it is held back: a traffic rule at a junction (red, yellow, stop_sign, give_way, box: no room past the junction, crosswalk: a person on or about to step onto a crosswalk in its path) or a vehicle ahead that waits (queue); absent when nothing holds it' },
  },
} as const;

/** One ego in a frame (npc_states.egos). */
export const egoEntrySchema = {
  type: 'object',
  required: ['ego_id', 'x', 'y', 'yaw', 'speed', 'stale', 'collided'],
  properties: {
    ego_id: str, x: num, y: num, yaw: num, speed: num, length: num, width: num,
    stale: { type: 'boolean', description: 'no update for ego_timeout: NPCs no longer see it' },
    collided: { type: 'boolean', description: 'an NPC touched this ego in this step' },
    timestamp: { type: ['number', 'null'], description: 'the client timestamp of the latest ego_state used' },
    heading_source: headingSourceSchema,
    ...egoTimingFields,
  },
} as const;

/** One signal group's state (npc_states.signals, signal_states, GET /api/signals). */
export const signalEntrySchema = {
  type: 'object',
  required: ['id', 'numeric_id', 'junction', 'state', 'code', 'time_to_change_s', 'source', 'left', 'lanes'],
  properties: {
    id: { ...str, description: 'signal group: <junction>.<approach letter> (A, B, … clockwise from north), <…>.left for an arrow-controlled left turn' },
    numeric_id: { type: 'integer', description: '1, 2, … over the map (for consumers that need integer ids)' },
    junction: str,
    state: { enum: ['green', 'green_yield', 'yellow', 'red', 'off'], description: 'green_yield: green that gives way (a permissive left turn)' },
    code: { enum: ['G', 'g', 'y', 'r', 'o'], description: 'the state as one character (SUMO style)' },
    time_to_change_s: { type: ['number', 'null'], description: 'seconds until the plan changes it (0.1 s steps; at a vehicle-actuated junction the earliest it can: greens at their shortest, or as long as arriving vehicles extend them), or the yellow left while a live input clears; null while set live' },
    source: { enum: ['plan', 'live', 'transition'], description: 'what drives it: the fixed-time plan, a live input, or the clearance (yellow, all-red) between the two' },
    left: { type: 'boolean', description: 'a protected left-turn group' },
    lanes: { ...strList, description: 'ids of the lanes its movements start on (none for a walk group)' },
    walk: { enum: ['walk', 'flashing', 'dont_walk'], description: 'extension: a walk group (<junction>.walk.<n>, a crosswalk at a signalised junction) and what it shows people; its code is G (walk), y (flashing: do not start crossing) or r. Absent for vehicle groups' },
    crosswalks: { ...strList, description: 'extension: a walk group\'s crosswalk ids (the map\'s traffic_control.crosswalks)' },
  },
} as const;

export const npcStatesSchema = {
  $id: 'npc_states',
  title: 'npc_states (server → client)',
  description: 'Sent to every client publish_hz times a second (10 by default) while running, once a second while paused. NPCs step every 0.1 s of simulation time; frames between steps show them along the motion the last step committed them to.',
  type: 'object',
  required: ['type', 'timestamp', 'step', 'npcs', 'metrics'],
  properties: {
    type: { const: 'npc_states' },
    timestamp: { ...num, description: 'wall-clock time of the frame, seconds since the Unix epoch' },
    sim_time_s: { ...num, description: 'extension: simulation time of the frame, s since the last reset' },
    step: { type: 'integer', description: 'policy steps (0.1 s each) since the last reset' },
    state: { enum: ['running', 'paused', 'stopped'], description: 'extension: the run state' },
    npcs: { type: 'array', items: npcEntrySchema },
    metrics: {
      type: 'object',
      required: ['sim_time_ms', 'policy_time_ms', 'total_time_ms', 'num_active_npcs'],
      properties: { sim_time_ms: num, policy_time_ms: num, total_time_ms: num, num_active_npcs: { type: 'integer' } },
    },
    egos: {
      description: 'extension: the egos at the frame time (moved along their heading from the latest report)',
      type: 'array',
      items: egoEntrySchema,
    },
    signals: {
      description: 'extension: every signal group\'s state at the frame time (empty when the map has no signals). Not in binary frames: binary clients get signal_states messages',
      type: 'array',
      items: signalEntrySchema,
    },
  },
} as const;

/** An NPC entry as the protocol has it: the extensions (heading, vx, vy, collided, offroad, kind, actor, hold) may be absent. */
export type NpcFrameEntry = WireType<typeof npcEntrySchema>;
/** An ego entry as the protocol has it (length, width, timestamp and the extensions may be absent). */
export type EgoFrameEntry = WireType<typeof egoEntrySchema>;
/** One signal group's state as the protocol has it. */
export type SignalFrameEntry = WireType<typeof signalEntrySchema>;
/** An npc_states frame as a client may receive it (older servers and binary frames leave the extensions out). */
export type NpcStatesMessage = WireType<typeof npcStatesSchema>;

export type RunState = NonNullable<NpcStatesMessage['state']>;
/** What a moving object is; an entry without it (older servers, recordings) is a vehicle. */
export type ObjectKind = NonNullable<NpcFrameEntry['kind']>;
/** Why an NPC is held back, when something holds it. */
export type NpcHoldReason = NonNullable<NpcFrameEntry['hold']>;
export type HeadingSource = NonNullable<EgoFrameEntry['heading_source']>;
export type SignalColour = SignalFrameEntry['state'];
