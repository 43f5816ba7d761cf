/**
 * What the page reads from the server: the npc_states frame (docs/protocol/npc_states.schema.json), the
 * REST replies it uses, and GET /api/map. The page is a client of the public protocol, so these are
 * written from the schemas, not imported from the server.
 */

export type RunState = 'running' | 'paused' | 'stopped';

/** What a moving object is (npc_states npcs[].kind); an entry without it (older servers, recordings) is a vehicle. */
export type ObjectKind = 'vehicle' | 'pedestrian' | 'cyclist';

export interface NpcFrameEntry {
  id: number;
  x: number;
  y: number;
  yaw: number;
  heading?: number;
  speed: number;
  vx?: number;
  vy?: number;
  length: number;
  width: number;
  collided?: boolean;
  offroad?: boolean;
  kind?: ObjectKind;
  /** a test case's scripted actor: its story id (id 1000000 + n); absent for the policy's NPCs */
  actor?: string;
}

export interface EgoFrameEntry {
  ego_id: string;
  x: number;
  y: number;
  yaw: number;
  speed: number;
  length?: number;
  width?: number;
  stale: boolean;
  collided: boolean;
  timestamp?: number | null;
  /** where the yaw comes from (newer servers, JSON frames) */
  heading_source?: 'reported' | 'course' | 'held' | 'lane' | 'none';
  /** from the fixes at their own times (newer servers, JSON frames) */
  accel?: number;
  yaw_rate?: number;
  /** a stamped car's transport latency, clock offset and how that is known, out-of-order fixes, clock jumps */
  latency_s?: number;
  clock_offset_s?: number;
  clock_source?: 'probe' | 'synced' | 'fixes' | 'none';
  out_of_order?: number;
  clock_jumps?: number;
}

export type SignalColour = 'green' | 'green_yield' | 'yellow' | 'red' | 'off';

/** One signal group's state in a frame (`signals`). */
export interface SignalState {
  id: string;
  numeric_id?: number;
  junction: string;
  state: SignalColour;
  code?: 'G' | 'g' | 'y' | 'r' | 'o';
  /** seconds until it changes by the plan; null while set live */
  time_to_change_s?: number | null;
  source?: 'plan' | 'live' | 'transition';
  left?: boolean;
  lanes?: string[];
  /** a walk signal group: the ids of the crosswalks (GET /api/map traffic_control.crosswalks) it governs */
  crosswalks?: string[];
  /** a walk group's state in pedestrian terms, when the server gives it (else read from `state`: crosswalks.ts) */
  walk?: string;
}

export interface NpcStatesFrame {
  type: 'npc_states';
  timestamp: number;
  sim_time_s?: number;
  step: number;
  state?: RunState;
  npcs: NpcFrameEntry[];
  metrics: { sim_time_ms: number; policy_time_ms: number; total_time_ms: number; num_active_npcs: number };
  egos?: EgoFrameEntry[];
  /** every signal group's state (servers with traffic control) */
  signals?: SignalState[];
}

/** GET /api/story: the test case a scene serves (src/server/story-desk.ts); 404 when it serves none. */
export type AttemptStatus = 'running' | 'passed' | 'failed' | 'not_started' | 'aborted' | 'invalid';

export interface StoryView {
  case: string;
  /** the vehicle under test (the scene's ego id) */
  ego: string;
  story_ego: string;
  actors: string[];
  attempt: number;
  state: 'idle' | 'armed' | 'running' | 'ended';
  armed_at_s: number | null;
  /** armed at every reset (a simulated ego), else by the operator (a real car) */
  auto_arm: boolean;
  result: {
    status: AttemptStatus;
    /** a failure: the criterion that failed first with its figure; else why it ended */
    reason: string;
    /** why it ended (null while running; absent from older servers) */
    ended_by?: string | null;
    start_s: number;
    end_s: number | null;
    events: Array<{ id: string; started_s: number | null; done_s: number | null; executions: number }>;
    criteria: Array<{ name: string; kind: string; verdict: 'pending' | 'pass' | 'fail'; value: number | null; limit: number | null; unit: string; at_s: number | null; detail: string }>;
    /** a real car under test: the data-quality gates (absent from older servers and headless runs) */
    quality?: Array<{ gate: string; ok: boolean; value: number | null; limit: number | null; unit: string; from_s: number | null; to_s: number | null; detail: string }>;
    /** of an invalid attempt: what the criteria alone said (not a verdict) */
    criteria_said?: 'passed' | 'failed';
  } | null;
  happenings: Array<{ t: number; kind: string; id: string; detail: string }>;
  attempts: Array<{ attempt: number; status: string; reason: string; armed_at_s: number; end_s: number | null }>;
}

/** Why an NPC stands or slows (GET /api/npcs `hold`). */
export type NpcHold = 'none' | 'red' | 'yellow' | 'stop_sign' | 'give_way' | 'box' | 'queue' | 'crosswalk';

/** GET /api/npcs entries: the frame entry plus goal and origin. */
export interface NpcDetail extends NpcFrameEntry {
  goal_x: number;
  goal_y: number;
  auto: boolean;
  heading: number;
  hold?: NpcHold;
}

/** GET /api/status, the fields the page shows (every one optional: the page tolerates older and newer servers). */
export interface ServerStatus {
  scene?: string;
  state?: RunState;
  step?: number;
  sim_time_s?: number;
  publish_hz?: number;
  map?: string;
  npcs?: number;
  clients?: number;
  egos?: EgoFrameEntry[];
  loop?: { overruns?: number; skippedTicks?: number; ticks?: number };
  timings?: { scene_ms?: number; inference_ms?: number; engine_ms?: number } | null;
  quality?: { shield_overrides?: unknown; shield_override_share?: unknown } & Record<string, unknown>;
  dropped_frames?: number;
  /** the scene's time conductor (src/time/status-json.ts) */
  time?: TimeStatus;
  /** present exactly when the scene serves a test case (its details: GET /api/story) */
  story?: { case?: string; attempt?: number; state?: string; status?: string | null } | null;
}

/** One asset of the time conductor, as GET /api/status shows it. */
export interface TimeAsset {
  name: string;
  kind: 'simulated' | 'wallclock';
  external: boolean;
  step_ms: number;
  t_s: number;
  skew_ms: number;
  skew_max_ms: number;
  held: number;
  held_core: number;
  lagging: boolean;
}

export interface TimeStatus {
  mode: string;
  tc_s: number;
  dmax_ms: number;
  core_step_ms: number;
  asset_port?: number | null;
  assets: TimeAsset[];
  lagging: string[];
  departed: { name: string; reason: string; at_s: number }[];
  violations: number;
}

export interface ServerConfig {
  publish_hz: number;
  npc_target: number;
  [k: string]: unknown;
}

export type LineColour = 'white' | 'yellow';
export type LinePattern = 'solid' | 'broken' | 'double' | 'double_broken' | 'passing';

export interface MapRoad {
  points: number[];
  index: number;
  element?: number;
  colour?: LineColour;
  pattern?: LinePattern;
  median?: boolean;
  lane_id?: string;
  speed_limit?: number;
}

export type MapRoadType = 'lane' | 'road_line' | 'road_edge' | 'crosswalk' | 'speed_bump' | 'stop_sign' | 'driveway';

export interface MapReply {
  name: string;
  origin: { lat: number; lon: number };
  convergence_deg: number;
  bounds: { min_x: number; min_y: number; max_x: number; max_y: number };
  roads: Partial<Record<MapRoadType, MapRoad[]>>;
  counts: Record<string, number>;
  /** absent from servers without traffic control */
  traffic_control?: MapTrafficControl;
}

export type JunctionControl = 'signal' | 'all_way_stop' | 'stop' | 'yield' | 'priority';

export interface MapTrafficControl {
  junctions: Array<{ id: string; control: JunctionControl; polygon: number[] }>;
  groups: Array<{ id: string; junction: string; stop_line: number[]; heads: string[]; left: boolean }>;
  heads: Array<{ id: string; x: number; y: number; kind: string; head: string; left_arrow: boolean; groups: string[] }>;
  /** painted lines, and (derived: true) where vehicles stop that no paint marks */
  stop_lines: Array<{ id: string; points: number[]; derived?: boolean }>;
  signs: Array<{ id: string; x: number; y: number; kind: string }>;
  /** absent from servers before crosswalks were carried */
  crosswalks?: MapCrosswalk[];
}

export interface MapCrosswalk {
  id: string;
  /** outline, flat [x0, y0, x1, y1, …] */
  polygon: number[];
  /** walking axis kerb to kerb, [ax, ay, bx, by] */
  axis?: number[];
  lanes?: string[];
}
