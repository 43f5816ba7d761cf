/** Runtime configuration of a VILS session (GET/PUT /api/config), with its defaults. */
export interface SessionConfig {
  step_hz: number;
  ego_timeout_s: number;
  ego_length: number;
  ego_width: number;
  npc_target: number;
  respawn: boolean;
  goal_distance_m: number;
  goal_max_deviation_m: number;
  speed_limit_mps: number;
  speed_governor: boolean;
  spawn_clearance_m: number;
  map_margin_m: number;
  max_queue: number;
  max_egos: number;
  seed: number;
}

export const DEFAULT_CONFIG: Readonly<SessionConfig> = {
  step_hz: 10,
  ego_timeout_s: 0.5,
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
  max_queue: 4,
  max_egos: 32,
  seed: 1,
};
