/**
 * The numbers the signal room is tuned by, in one table: default timing (Webster, HCM), coordination, actuation, the
 * walk signals and live input. (What every plan is held to, PLAN_LIMITS and the actuated defaults, is part of what a
 * plan is: plan-spec.ts.)
 */

// default plans (default-plan.ts)
/** the shortest greens a default plan gives [s] */
export const MIN_MAIN_GREEN_S = 10;
export const MIN_LEFT_GREEN_S = 6;
/** the textbook saturation flow of a lane: 1,800 vehicles an hour of green [veh/s] */
export const SATURATION_VPS = 0.5;
/** NPCs cruise at about this share of the limit between junctions (for the expected flows) */
export const CRUISE_SHARE = 0.7;
/** HCM's saturation-flow factors of protected left and right turns */
export const LEFT_TURN_FACTOR = 0.95;
export const RIGHT_TURN_FACTOR = 0.85;
/** a default plan's greens keep each phase's degree of saturation (flow over capacity) at most this */
export const TARGET_SATURATION = 0.8;
/** Webster's cycle uses the flow ratios up to this sum (beyond it the junction is saturated: the longest cycle) */
export const MAX_FLOW_RATIO = 0.9;
/** a road between two junctions holding fewer than two standing cars (4.5 m and a 2.5 m gap each) stores no queue [m] */
export const QUEUE_STORAGE_M = 14;

// neighbours in step (coordination.ts)
/** signalised junctions this close along the lanes (exit to stop line) are coordinated [m] */
export const COORDINATE_M = 150;
/** travel between them at this share of the speed limit (a platoon moving off) */
export const TRAVEL_SPEED_SHARE = 0.7;

// vehicle-actuated greens (actuated.ts)
/** a queue standing this long into its green is held by something else (a blocked exit): it no longer extends the green [s] */
export const JAM_S = 8;

// walk signals (walk-layout.ts)
/** walking speed of the Korean signal timing rule [m/s] (see the top comment) */
export const WALK_SPEED_MPS = 1.0;
/** pedestrian entry time (보행진입시간) of the rule [s]: the least steady walk a walk phase starts with */
export const WALK_ENTRY_S = 7;
/** a movement crosses a far-side crosswalk this far past its exit (and a crossing this far before its entry) [m] */
export const EXIT_REACH_M = 15;
/** crosswalks and movement paths are sampled every this much [m] */
export const WALK_SAMPLE_M = 0.5;

// live input from the roadside (controller.ts)
/** a live input holds this long without a new one, by default and at most [s] */
export const LIVE_TIMEOUT_DEFAULT_S = 10;
export const LIVE_TIMEOUT_MAX_S = 3600;
