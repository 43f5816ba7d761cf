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
  /** auto NPCs that reach their goal get a new one ahead instead of leaving */
  respawn: boolean;
  goal_distance_m: number;
  goal_max_deviation_m: number;
  speed_limit_mps: number;
  speed_governor: boolean;
  spawn_clearance_m: number;
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
  goal_distance_m: 120,
  goal_max_deviation_m: 0.5,
  speed_limit_mps: 50 / 3.6,
  speed_governor: true,
  spawn_clearance_m: 30,
  map_margin_m: 2000,
  max_egos: 32,
  seed: 1,
};

/** Settings that size the world: a running scene refuses to change them. */
export const RESTART_ONLY_SETTINGS: ReadonlySet<string> = new Set(['max_egos']);
