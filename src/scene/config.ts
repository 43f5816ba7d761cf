import { MAX_NPCS } from '../traffic/engine.js';
import { settingDefaults, type SettingSpec, type SettingsTable } from './settings.js';

/** Settings of a live scene, with their defaults. Changed at runtime through the scene's `configure`. */
export interface SceneConfig {
  /** seconds without an ego update before NPCs stop seeing it (it is then stale) */
  ego_timeout_s: number;
  /** seconds without an update before a stale ego is forgotten (its id and slot are freed) */
  ego_forget_s: number;
  ego_length: number;
  ego_width: number;
  /** NPCs the scene keeps on the map by itself (auto NPCs) */
  npc_target: number;
  /** auto NPCs at the end of their route drive on along a new one instead of leaving */
  respawn: boolean;
  /** length of an NPC's route along the lanes (one trip), ±25 % [m] */
  trip_length_m: number;
  /** how an NPC picks a fork of its route: 'random' (uniform), or 'queues' (away from queued exits) */
  route_choice: 'random' | 'queues';
  /** the goal shown to the policy lies up to this far ahead along the route [m] */
  goal_lead_m: number;
  /** … and at least this far (unless the route ends sooner) [m] */
  goal_min_lead_m: number;
  /** … and no further than the route stays this close to the straight line to the goal [m] */
  goal_max_deviation_m: number;
  /** 'renew': move the goal on when the NPC gets within goal_renew_m; 'continuous': every step */
  goal_update: 'renew' | 'continuous';
  goal_renew_m: number;
  /** the goal is shifted sideways by this × the NPC's offset from its route, against it (lane keeping) */
  goal_lateral_gain: number;
  /** … the offset it will have this much later if it keeps its heading (damping) [s] */
  goal_lateral_lookahead_s: number;
  speed_limit_mps: number;
  speed_governor: boolean;
  /** the safety shield over the policy (and its smoothing of near-best actions) */
  shield: boolean;
  /** NPCs obey signals, stop lines, stop and yield signs and right of way at junctions (signals run either way) */
  traffic_rules: boolean;
  /** at a red light, a right turn may go after a full stop at the line, giving way to every movement that goes (Korean law) */
  right_turn_on_red: boolean;
  /** ambient people the scene keeps at the map's crosswalks (none on a map without crosswalks) */
  pedestrians: number;
  /** auto NPCs start at least this far from egos [m] */
  spawn_clearance_m: number;
  /** with egos, auto NPCs start within this distance of one [m] */
  spawn_radius_m: number;
  /** with egos, auto NPCs further than this from every ego are recycled [m] */
  despawn_radius_m: number;
  /** auto NPCs start with at least this much free road ahead [m] */
  spawn_min_gap_m: number;
  /** auto NPCs stopped this long with nothing ahead of them are recycled [s] */
  stuck_recycle_s: number;
  /** auto NPCs stopped this long in a ring of NPCs each waiting for the next (a gridlock) are recycled [s] */
  gridlock_recycle_s: number;
  map_margin_m: number;
  /** egos a scene tracks at once; fixes the world's size, so it only takes effect on restart */
  max_egos: number;
  seed: number;
}

/** The scene's rows of the settings table (src/scene/settings.ts): defaults, units, ranges, descriptions. */
export const SCENE_SETTINGS: Readonly<Record<keyof SceneConfig, SettingSpec>> = {
  ego_timeout_s: { type: 'number', default: 0.5, unit: 's', min: 0.1, max: 60, description: 'seconds without an update before NPCs stop seeing an ego (stale); also the oldest an ego_state timestamp may be against the server clock; at least one policy step (0.1 s)' },
  ego_forget_s: { type: 'number', default: 10, unit: 's', min: 0.1, max: 86400, description: 'seconds without an update before a stale ego is forgotten (its id and slot are freed)' },
  ego_length: { type: 'number', default: 4.5, unit: 'm', min: 1, max: 30, description: 'length of an ego that does not report its own' },
  ego_width: { type: 'number', default: 2.0, unit: 'm', min: 0.5, max: 10, description: 'width of an ego that does not report its own' },
  npc_target: { type: 'integer', default: 20, unit: 'NPCs', min: 0, max: MAX_NPCS, description: 'NPCs the scene keeps on the map by itself (auto NPCs)' },
  respawn: { type: 'boolean', default: true, description: 'auto NPCs at the end of their route drive on along a new one instead of leaving' },
  trip_length_m: { type: 'number', default: 500, unit: 'm', min: 30, max: 20000, description: 'length of an NPC route along the lanes (one trip), ±25 %' },
  route_choice: { type: 'enum', default: 'random', values: ['random', 'queues'], description: "how an NPC picks each fork of its route: random (uniform), or queues (an exit with q vehicles standing within 120 m after it is taken 1/(1 + 10q)² as often, as traffic simulators' congestion-aware rerouting does)" },
  goal_lead_m: { type: 'number', default: 20, unit: 'm', min: 5, max: 200, description: 'the goal shown to the policy lies up to this far ahead along the route' },
  goal_min_lead_m: { type: 'number', default: 6, unit: 'm', min: 3, max: 200, description: 'and at least this far (unless the route ends sooner)' },
  goal_max_deviation_m: { type: 'number', default: 0.5, unit: 'm', min: 0.1, max: 100, description: 'and no further than the route stays this close to the straight line to the goal' },
  goal_update: { type: 'enum', default: 'continuous', values: ['continuous', 'renew'], description: 'continuous: the goal moves on every step; renew: when the NPC gets within goal_renew_m' },
  goal_renew_m: { type: 'number', default: 10, unit: 'm', min: 3, max: 200, description: 'with goal_update renew: how close an NPC gets to its goal before it moves on' },
  goal_lateral_gain: { type: 'number', default: 5, min: 0, max: 20, description: "the goal is shifted sideways by this times the NPC's offset from its route, against it (lane keeping)" },
  goal_lateral_lookahead_s: { type: 'number', default: 0.5, unit: 's', min: 0, max: 5, description: 'the offset it will have this much later at its heading (damping)' },
  speed_limit_mps: { type: 'number', default: 50 / 3.6, unit: 'm/s', min: 1, max: 70, description: 'NPC speed limit where the lane graph gives none' },
  speed_governor: { type: 'boolean', default: true, description: 'NPCs above their lane speed limit may not accelerate (live traffic only; not GPUDrive)' },
  shield: { type: 'boolean', default: true, description: 'the safety shield over the policy, its steering smoothing and the car-following and curve governors (live NPCs only)' },
  traffic_rules: { type: 'boolean', default: true, description: 'NPCs obey signals, stop lines, signs and right of way at junctions (false: they do not; the signals run either way)' },
  right_turn_on_red: { type: 'boolean', default: true, description: 'at a red light NPCs may turn right after a full stop at the line, giving way to every movement that goes, as Korean law allows (false: right turns wait for green too)' },
  pedestrians: { type: 'integer', default: 20, unit: 'people', min: 0, max: 200, description: 'ambient people the scene keeps at the crosswalks of its map (traffic_control.crosswalks): they come and go, cross on walk or, where no signal is, in a gap; NPCs give way to them. A map without crosswalks (the demo track) has none, whatever this says; 0 keeps the road to vehicles' },
  spawn_clearance_m: { type: 'number', default: 30, unit: 'm', min: 0, max: 500, description: 'auto NPCs start at least this far from egos' },
  spawn_radius_m: { type: 'number', default: 200, unit: 'm', min: 10, max: 100000, description: 'with egos, auto NPCs start within this distance of one' },
  despawn_radius_m: { type: 'number', default: 300, unit: 'm', min: 10, max: 100000, description: 'with egos, auto NPCs further than this from every ego are recycled' },
  spawn_min_gap_m: { type: 'number', default: 15, unit: 'm', min: 0, max: 500, description: 'auto NPCs start with at least this much free road ahead' },
  stuck_recycle_s: { type: 'number', default: 10, unit: 's', min: 1, max: 86400, description: 'auto NPCs stopped this long with nothing ahead are recycled' },
  gridlock_recycle_s: { type: 'number', default: 6, unit: 's', min: 1, max: 86400, description: 'auto NPCs stopped this long in a ring of NPCs each waiting for the next (a gridlock) are recycled' },
  map_margin_m: { type: 'number', default: 2000, unit: 'm', min: 0, max: 100000, description: 'ego positions further than this outside the map are rejected' },
  max_egos: { type: 'integer', default: 32, unit: 'egos', min: 1, max: 32, restart: true, description: 'egos (ego_id values) a scene tracks at once; it sizes the world' },
  seed: { type: 'integer', default: 1, min: 0, max: 4294967295, description: 'seed of the scene\'s random numbers (spawns, routes); applies from the next reset' },
};

export const DEFAULT_SCENE_CONFIG: Readonly<SceneConfig> = settingDefaults(SCENE_SETTINGS) as unknown as SceneConfig;

/** Settings that size the world: a running scene refuses to change them. */
export const RESTART_ONLY_SETTINGS: ReadonlySet<string> = new Set(Object.entries(SCENE_SETTINGS as SettingsTable).filter(([, s]) => s.restart).map(([k]) => k));
