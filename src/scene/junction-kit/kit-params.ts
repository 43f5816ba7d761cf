/**
 * The numbers both junction rooms read (the rule room's table, rules/rule-params.ts, re-exports them so that the
 * rules' tuning reads as one table).
 */

/** acceleration assumed for a vehicle moving off or speeding up to the limit (also the signals' clearance) [m/s²] */
export const GO_ACCEL = 1.5;
/** how far ahead along its lanes a vehicle is matched to movements [m] */
export const LOOKAHEAD_M = 150;
/** a vehicle inside a junction off its planned movements occupies those whose path passes this close [m] */
export const OCCUPY_M = 1.8;
/** a lane's speed limit where the map gives none: 50 km/h [m/s] */
export const DEFAULT_SPEED_LIMIT_MPS = 50 / 3.6;
