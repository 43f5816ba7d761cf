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

export const DEFAULT_SCENE_CONFIG: Readonly<SceneConfig> = {
  ego_timeout_s: 0.5,
  ego_forget_s: 10,
  ego_length: 4.5,
  ego_width: 2.0,
  npc_target: 20,
  respawn: true,
  trip_length_m: 500,
  goal_lead_m: 20,
  goal_min_lead_m: 6,
  goal_max_deviation_m: 0.5,
  goal_update: 'continuous',
  goal_renew_m: 10,
  goal_lateral_gain: 5,
  goal_lateral_lookahead_s: 0.5,
  speed_limit_mps: 50 / 3.6,
  speed_governor: true,
  shield: true,
  traffic_rules: true,
  spawn_clearance_m: 30,
  spawn_radius_m: 200,
  despawn_radius_m: 300,
  spawn_min_gap_m: 15,
  stuck_recycle_s: 10,
  gridlock_recycle_s: 10,
  map_margin_m: 2000,
  max_egos: 32,
  seed: 1,
};

/** Settings that size the world: a running scene refuses to change them. */
export const RESTART_ONLY_SETTINGS: ReadonlySet<string> = new Set(['max_egos']);
