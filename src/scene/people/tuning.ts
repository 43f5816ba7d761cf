/**
 * People's tuning, in one table: how walkers judge a gap, wait and give up, and how NPCs give way to them at
 * crosswalks — named for what each tunes and with its unit. Measured facts (walking speeds, a person's size) stay
 * with the code that cites them (walking-speed.ts, walkers.ts); the definitions of the people figures stay in
 * people-watch.ts.
 */

// crosswalks
/** the body the give-way rule plans for: the largest NPC's half length and half width, plus how far off its lane's
 * centre an NPC drives (the drive figures' mean lane offset is 0.4 m) [m] */
export const GIVE_WAY_BODY_HALF_LENGTH_M = 2.5;
export const GIVE_WAY_BODY_HALF_WIDTH_M = 1.0 + 0.5;

// give-way
/** the conflict zone reaches this far either side of the vehicle's body along the walking axis [m] */
export const GIVE_WAY_CONFLICT_PAD_M = 1;
/** an NPC before a junction waits there unless the crosswalk at its exit stays clear this much longer than it needs [s] */
export const GIVE_WAY_EXIT_CLEAR_EXTRA_S = 4;
/** people do not start while an NPC inside a junction has a crosswalk within this of its front on its planned lanes,
 * or on them before it is this far past the junction's exit (J6 on FMTC is over 40 m across) [m] */
export const GIVE_WAY_IN_BOX_REACH_M = 25;
export const GIVE_WAY_PAST_EXIT_M = 10;
/** an NPC that has stood this long at a junction's entry for people on the crosswalks past it claims its turn: people
 * there wait for it (on FMTC's J6 four crosswalks on one path were never clear at once: queues to J15 stood 90 s+) [s] */
export const GIVE_WAY_IMPATIENT_S = 10;
/** an NPC whose front is this close to a junction's line stands at its entry (see GIVE_WAY_IMPATIENT_S) [m] */
export const GIVE_WAY_AT_ENTRY_M = 1.5;
/** slower than this an NPC is standing (people do not wait for it) [m/s] */
export const GIVE_WAY_STANDING_BELOW_MPS = 0.3;
/** an NPC whose front is on the stripes and slower than this stands where it is for a person in its path [m/s] */
export const GIVE_WAY_CREEP_HOLD_MPS = 2;
/** vehicles stop with their front this far before the stripes (plus the governor's GOVERNOR_STOP_MARGIN_M) [m] */
export const GIVE_WAY_LINE_BACK_M = 1;
/** a person reaching the conflict zone less than this after the vehicle would have cleared it is in the way [s] */
export const GIVE_WAY_PERSON_GAP_S = 1.5;

// walkers
/** a person assumes a vehicle brakes at this for them, after this reaction [m/s², s] */
export const WALKER_GAP_DECEL_MPS2 = 3;
export const WALKER_GAP_REACTION_S = 1;
/** … and keeps this much to spare [m] */
export const WALKER_GAP_SPARE_M = 1;
/** vehicles slower than this do not stop a person from starting (unless on the crosswalk) [m/s] */
export const WALKER_IGNORES_BELOW_MPS = 0.3;
/** a person waits at most this long, then goes elsewhere [s] */
export const WALKER_GIVE_UP_S = 120;
/** at reset, people arrive over this long [s] */
export const WALKER_FIRST_ARRIVALS_S = 10;
/** while crossing, a person keeps this clear of vehicle bodies [m] */
export const WALKER_BODY_CLEAR_M = 0.3;

// crosswalks (where people wait)
/** people wait at least this far back from the end of the stripes, and further (up to WALKER_WAIT_MAX_M, in WALKER_WAIT_STEP_M)
 * until no lane centre line is within WALKER_WAIT_CLEAR_M (half a lane, half a person, and the 2 m NPCs were seen to cut
 * inside a turn's centre line on FMTC, where 2.5 m left people waiting 0.4 m from the stripes struck); none: NaN [m] */
export const WALKER_WAIT_MIN_M = 0.4;
export const WALKER_WAIT_MAX_M = 6;
export const WALKER_WAIT_STEP_M = 0.4;
export const WALKER_WAIT_CLEAR_M = 3.5;
