/**
 * The numbers the junction rules are tuned by. They sit together, apart from the code, because they are tuned
 * together (against `vils drive`'s junction figures) and every room of the rule layer reads some of them.
 */

/** the numbers the signal room reads too (moving off, matching vehicles to movements): the kit's, below both rooms */
export { GO_ACCEL, LOOKAHEAD_M, OCCUPY_M } from '../junction-kit/kit-params.js';

/** stop on yellow where stopping takes at most this [m/s²] */
export const YELLOW_DECEL = 3;
/** a give-way, stop-order or full-junction hold is imposed only where stopping takes at most this [m/s²] */
export const COMMIT_DECEL = 3.5;
/** braking for a red light or a stop sign starts where it takes this [m/s²] */
export const COMFORT_DECEL = 2;
/** a red light that would take more than this to stop for is run (and counted): braking harder would stop in the junction */
export const HARD_DECEL = 4.5;
/** a full stop: at most this fast [m/s] … */
export const FULL_STOP_SPEED = 0.1;
/** … with its front within this of the line [m], standing this long [s] */
export const STOP_ZONE_M = 3;
export const STOP_DWELL_S = 1;
/** rules are decided this far ahead of a stop line, and at least as far as stopping comfortably takes [m] */
export const DECIDE_M = 40;
/** margin between the NPC clearing a conflict zone and a vehicle with priority reaching it [s] */
export const GAP_S = 1.5;
/** acceleration assumed for the NPC itself speeding up to the limit (another vehicle: GO_ACCEL) [m/s²] */
export const OWN_ACCEL = 2;
/** in a merge, the NPC goes when it will be through it this long before the vehicle with priority gets there [s] */
export const MERGE_HEADWAY_S = 1;
/** a vehicle slower than this, this close behind another as slow, waits in a queue (it is not coming) */
export const QUEUED_MPS = 0.5;
export const QUEUE_GAP_M = 8;
/**
 * an NPC that has stood at a give-way line this long takes a gap that makes an NPC with priority brake for it, at
 * most this hard, before that one's own line (SUMO's impatience; never a real car) [s, m/s²]
 */
export const IMPATIENT_S = 20;
export const IMPATIENT_DECEL = 2;
/** two vehicles this close to a zip merge (neither lane gives way) are level: the lower slot goes first [m] */
export const ZIP_TIE_M = 0.5;
/** a vehicle with priority standing longer than this is not coming either [s] */
export const STILL_S = 3;
/** the exit must have room for the vehicle plus this (car-following's standstill gap, 2.5 m, and a margin) [m] */
export const BOX_GAP_M = 3;
/** room a vehicle takes on a short road between two junctions: its length plus car-following's standstill gap [m] */
export const LINK_GAP_M = 2.5;
/** a green counts as lasting long enough to pass the next junction with this to spare [s] */
export const GREEN_MARGIN_S = 3;
/** a queue moving off at a green: this pace at most, a vehicle every QUEUE_HEADWAY_S */
export const QUEUE_SPEED = 4;
export const QUEUE_HEADWAY_S = 2;
/** a vehicle this close to the line of a path merging into ours, which we give way to, will take its room first [m] */
export const MERGE_RESERVE_M = 30;
/** a vehicle beyond the exit moving faster than this makes room as it goes: at least what braking hard leaves */
export const MOVING_MPS = 2;
export const MOVING_ROOM_DECEL = 4;
export const MOVING_ROOM_MAX_M = 20;
/** an ego standing at its line at an all-way stop keeps its turn this long, then NPCs go on [s] */
export const EGO_TURN_S = 5;
/** a vehicle calls for its signal group within this much time of the line at its speed, or this distance [s, m] */
export const CALL_S = 6;
export const CALL_M = 40;
/** a vehicle moving this close to its line counts as arriving now; standing this close, as queued [m] */
export const DETECT_NEAR_M = 25;

// the exit room
/** a vehicle whose front is this close to its line stands at it [m] */
export const AT_LINE_M = 1.5;

// the stop-line watch (violations from geometry, rules on or off)
/** a full stop: at most this speed [m/s] … */
export const FULL_STOP_MPS = 0.1;
/** … with the front at most this far before the line [m] */
export const STOP_WITHIN_M = 3;
/** a line reaches this far either side of its lane's centre [m] (half a lane) */
export const LINE_HALF_WIDTH_M = 1.75;
/** a vehicle crosses a line only heading within this of the lane's direction (not a car crossing the approach) */
export const ALONG_COS = Math.cos((60 * Math.PI) / 180);
/** movement entries this close, heading within 25° of each other, are one line [m] */
export const SAME_LINE_M = 1;
export const SAME_LINE_COS = Math.cos((25 * Math.PI) / 180);
/** the grid cells lines are kept in [m] */
export const CELL_M = 25;
/** a crossing whose movements' states differ waits until the vehicle is this far along (or nearer one path) [m] */
export const RESOLVE_AFTER_M = 8;
/** … and its path is this much nearer than any other's [m], or it has come this far whatever [m] */
export const PATHS_APART_M = 1.5;
export const RESOLVE_LATEST_M = 40;
/** a crossing still unresolved this long after is dropped (the vehicle left the map, a path nobody drives) [s] */
export const RESOLVE_WITHIN_S = 10;
/** path samples every this much [m] */
export const WATCH_SAMPLE_M = 1;

// the junction figures
/** held_by_junction lists this many junctions */
export const HELD_TOP = 5;
/** long_stands lists this many; the log keeps at most LONG_LOG of the longest */
export const LONG_TOP = 5;
export const LONG_LOG = 64;
/** an NPC below this speed stands [m/s] */
export const STAND_MPS = 0.5;
/** a stand longer than this is a long one [s] */
export const LONG_STAND_S = 10;
