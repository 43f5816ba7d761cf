/**
 * The live scene's tuning of its NPCs, in one table: how they are spawned, routed, re-routed and recycled, how
 * forks are chosen by the queues behind them, and what counts as the vehicle ahead — named for what each tunes and
 * with its unit. The rules of the road have their own table (the rule parameters), people theirs
 * (people/tuning.ts), the NPC driving layer its own (traffic/tuning.ts). The scene's settings (npc_target,
 * gridlock_recycle_s …) are configuration, not tuning: src/scene/settings.ts.
 */

// population
/** an NPC further than this from its route is re-routed from where it is [m] */
export const REROUTE_OFF_ROUTE_M = 6;
/** below this an NPC counts as stopped for gridlock detection [m/s] */
export const GRIDLOCK_STOPPED_BELOW_MPS = 0.5;
/** a new route shorter than this means the end of the road [m] */
export const ROUTE_END_BELOW_M = 30;
/** an auto NPC off the lanes this long is recycled [s] */
export const RECYCLE_OFF_LANES_S = 5;
/** goals are renewed at least this far before the NPC gets there (GPUDrive's goal radius is 2 m) */
export const GOAL_RENEW_AHEAD_M = 6;
/** an auto NPC starts no faster than it could stop at this before the next junction's line (it may be red) [m/s²] */
export const SPAWN_LINE_DECEL_MPS2 = 2.5;
/** … and with its centre at least this far before that line: its front (half a car) and a stop's margin clear of it [m] */
export const SPAWN_LINE_CLEAR_M = 4;

// spawn-spots
/** a spawn spot ahead of a moving vehicle leaves it room to slow down at this [m/s²] plus SPAWN_BEHIND_M */
export const SPAWN_BEHIND_DECEL_MPS2 = 3;
export const SPAWN_BEHIND_M = 8;
/** … within ±25° of its heading (tan 25°) */
export const SPAWN_BEHIND_CONE_TAN = 0.47;

// lane-queues
/** A vehicle slower than this stands in a queue [m/s]. */
export const FORK_QUEUED_BELOW_MPS = 2;
/** How far after a fork its exit's queue is looked for [m]. */
export const FORK_QUEUE_LOOK_AHEAD_M = 120;
/** An exit with q queued vehicles is taken 1/(1 + FORK_QUEUE_GAIN·q)² as often as a free one. */
export const FORK_QUEUE_GAIN = 10;
/** A fork whose exit leads back to it within this distance is a loop's: a roundabout, a short circuit (not a city block) [m]. */
export const FORK_LOOP_BELOW_M = 250;

// next-route
/** how far ahead an NPC's lanes are known (the shield's path reaches v·3 s + 20 m, at least 60 m) [m] */
export const LANES_AHEAD_M = 80;
/** a fork's direction is taken this far along it [m] */
export const FORK_PROBE_M = 10;

// vehicle-ahead
/** how far ahead of an NPC a vehicle in its path counts as the vehicle ahead [m] */
export const VEHICLE_AHEAD_M = 15;
/** the path ahead of an NPC is this much wider than the NPC on each side [m] */
export const VEHICLE_AHEAD_PATH_MARGIN_M = 0.3;
