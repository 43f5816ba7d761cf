/**
 * The NPC driving layer's tuning, in one table: every number that shapes how an NPC is predicted, shielded,
 * made to follow, guarded against contact and kept on its lane, named for what it tunes and with its unit.
 * Facts of the GPUDrive policy and its world (spec constants: dt, the collision box scale, the action table)
 * are not tuning and stay with the code they describe. The rules of the road have their own table
 * (src/scene's rule parameters); people theirs.
 */
import { ACCEL_VALUES } from '../policy/actions.js';
import { STEP_DT } from './bicycle.js';
import { COLLISION_SCALE } from './world.js';

// predict
/** an ego's prediction reaches as far as speeding up at this [m/s²] to at least PREDICT_EGO_MAX_SPEED_MPS [m/s] */
export const PREDICT_EGO_ACCEL_MPS2 = 2;
export const PREDICT_EGO_MAX_SPEED_MPS = 14;
/** the lane path is looked at at least this far ahead (for the curve speed limit) [m] */
export const PREDICT_PATH_MIN_M = 60;
/** the sideways offset fades out over this much travel (a stopped car does not slide sideways) [m] */
export const PREDICT_OFFSET_FADE_M = 20;
/** the heading turns to the lane's over this much travel [m] */
export const PREDICT_HEADING_BLEND_M = 5;
/** a vehicle further than this from its lane, or more than this far off its direction, goes straight */
export const PREDICT_MAX_LANE_OFFSET_M = 3.5;
export const PREDICT_MAX_LANE_ANGLE_RAD = (75 * Math.PI) / 180;
/** bendLimit: curvature is the heading change over this many path segments */
export const PREDICT_BEND_SEGMENTS = 4;

// shield
/** a heading change below this (steer ±3.142: tan ≈ 0.0004) is driving straight, not turning [rad] */
export const SHIELD_MIN_REAL_TURN_RAD = 0.01;
/** slowing down for a bend ahead at this deceleration [m/s²] */
export const SHIELD_CURVE_DECEL_MPS2 = 2;
/** an NPC further than this from its lane path steers back towards it where the policy rates that near-best [m] */
export const SHIELD_LANE_RETURN_M = 0.5;
/** heading changes closer than this are the same steering [rad] */
export const SHIELD_SAME_TURN_RAD = 0.01;
/** an NPC slower than this has no way to clear to make: it brakes [m/s] */
export const SHIELD_ESCAPE_MIN_SPEED_MPS = 1;
/**
 * The policy now and then stands still on an open road, its goal ahead and nothing in its way (on K-City's long
 * southbound lane at y ≈ −260 m it slows every NPC and stops some for good): one that has stood this long while
 * nothing holds it (no stop line, car-following, or collision check) moves off at the policy's gentlest
 * acceleration along its lane, where the rollout clears that [steps, m/s, m/s²]
 */
export const SHIELD_STALL_STEPS = Math.round(3 / STEP_DT);
export const SHIELD_STALL_SPEED_MPS = 0.5;
export const SHIELD_MOVE_OFF_ACCEL_MPS2 = ACCEL_VALUES[4];
/** … and keeps going for this long, up to this speed at least, unless something comes in its way [steps, m/s] */
export const SHIELD_MOVE_OFF_STEPS = Math.round(5 / STEP_DT);
export const SHIELD_MOVE_OFF_SPEED_MPS = 3;

// shield-rollout
/** a vehicle behind within 25° of our heading and about in our track follows us: keeping clear is its job */
export const ROLLOUT_FOLLOWER_COS = Math.cos((25 * Math.PI) / 180);
export const ROLLOUT_FOLLOWER_LAT_M = 1;
/** vehicle check levels (see boxes() in shield-rollout): share of the margins, and box scale (the last: GPUDrive's own collision box) */
export const ROLLOUT_LEVEL_MARGIN_SHARE = [1, 0.5, 0, 0, 0, 0.04];
export const ROLLOUT_LEVEL_BOX_SCALE = [1, 1, 1, 0.85, 0.75, COLLISION_SCALE];
/** box scales tried against edges the NPC is already close to (the first is options.edgeBoxScale) */
export const ROLLOUT_EDGE_BOX_SCALES = [NaN, COLLISION_SCALE, 0.5, 0.3];

// follow
/** car-following (IDM): comfortable acceleration and deceleration, standstill gap, time headway */
export const FOLLOW_IDM_ACCEL_MPS2 = 2;
export const FOLLOW_IDM_DECEL_MPS2 = 2.5;
export const FOLLOW_IDM_GAP_M = 2.5;
export const FOLLOW_IDM_HEADWAY_S = 1.2;
/** car-following looks this far along the path beyond where the rollout reaches [m] (IDM at rest: 1 % of a at 25 m) */
export const FOLLOW_REACH_M = 25;

// contact-guard
/** the other vehicle is ahead of an NPC within this cone (cosine of its half angle) */
export const GUARD_AHEAD_COS = Math.cos((60 * Math.PI) / 180);
/** two vehicles whose headings are closer than this go the same way (cosine of the angle) */
export const GUARD_SAME_WAY_COS = Math.cos((30 * Math.PI) / 180);
/** an NPC slower than this is left to the shield [m/s] */
export const GUARD_MIN_SPEED_MPS = 0.05;
/** below this, two NPCs in each other's way are standing or creeping (see apply) [m/s] */
export const GUARD_SLOW_SPEED_MPS = 1;
/** the margins count in full when either of a pair is this fast, in part below [m/s] */
export const GUARD_MARGIN_SPEED_MPS = 3;

// lanes
/** two lanes whose ends meet the other's starts within this are one road's two ways (twins) [m] */
export const LANE_JOIN_DISTANCE_M = 1.5;
/** how far a lane that shares its centre line with a lane the other way keeps right of that line [m] */
export const LANE_TWIN_KEEP_RIGHT_M = 1.3;
/** the keep-right offset eases in over this distance from each end of the lane [m] */
export const LANE_TWIN_TAPER_M = 8;

// route
/** How far back and ahead of its progress an NPC is looked for on its route [m]. */
export const ROUTE_SEARCH_BACK_M = 10;
export const ROUTE_SEARCH_AHEAD_M = 40;

// stops
/** the governor stops the front this far short of the line [m] */
export const GOVERNOR_STOP_MARGIN_M = 0.8;
/** the governor reaches its target speed profile in about this long [s] */
export const GOVERNOR_TAU_S = 0.5;
