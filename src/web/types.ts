/**
 * What the page reads from the server: the npc_states frame (docs/protocol/npc_states.schema.json), the
 * REST replies it uses, and GET /api/map. The page is a client of the public protocol: the frame, GET /api/npcs
 * and GET /api/map take the types derived from the protocol's schemas (src/protocol/, type-only: nothing of it
 * enters the bundle), never the server's code; the story, status, time and config replies are written here
 * (their schemas leave them open, or are made from the settings table at run time).
 */
import type { EgoFrameEntry, MapReply as MapReplyMessage, NpcFrameEntry, NpcHold, NpcStatesMessage, NpcView, ObjectKind, RunState, SignalColour, SignalFrameEntry } from '../protocol/index.js';

// the frame's types are derived from its schemas (src/protocol/frame.ts), as the protocol has them: the
// extensions newer servers add are optional, so the page reads frames from older servers and recordings too
export type { EgoFrameEntry, NpcFrameEntry, NpcHold, ObjectKind, RunState, SignalColour };

/** One signal group's state in a frame (`signals`). */
export type SignalState = SignalFrameEntry;

export type NpcStatesFrame = NpcStatesMessage;

/** GET /api/story: the test case a scene serves (src/session/story-desk.ts); 404 when it serves none. */
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

/** GET /api/npcs entries: the frame entry plus goal and origin, and why it stands or slows (`hold`, none included). */
export type NpcDetail = Omit<NpcFrameEntry, 'hold'> & Required<Pick<NpcView, 'goal_x' | 'goal_y' | 'auto' | 'heading'>> & Pick<NpcView, 'hold'>;

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

// GET /api/map: derived from its schema (src/protocol/map.ts)
export type { JunctionControl, LineColour, LinePattern, MapCrosswalk, MapRoad, MapRoadType, MapTrafficControl } from '../protocol/index.js';

/** GET /api/map (the schema leaves the corners of its bounds optional: the server always gives all four) */
export type MapReply = Omit<MapReplyMessage, 'bounds'> & { bounds: Required<MapReplyMessage['bounds']> };
