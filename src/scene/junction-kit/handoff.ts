/**
 * What passes between the signal room and the rule room each step, and nothing else: the signals' states per
 * movement (signals → rules, as SUMO's traffic-light logic hands link states to its links) and what the loop
 * detectors saw (read off the vehicles' places, for an actuated plan). Neither room imports the other; both import
 * this.
 */

/** A signal group's state: `G` green, `g` green that must give way, `y` yellow, `r` red, `o` off. */
export type GroupStateCode = 'G' | 'g' | 'y' | 'r' | 'o';
export const GROUP_STATE_CODES: readonly GroupStateCode[] = ['G', 'g', 'y', 'r', 'o'];

/** a movement's state code in MovementSignalStates.code (0: the junction has no signals) */
export const GREEN = 'G'.charCodeAt(0);
export const GREEN_YIELD = 'g'.charCodeAt(0);
export const YELLOW = 'y'.charCodeAt(0);
export const RED = 'r'.charCodeAt(0);
export const OFF = 'o'.charCodeAt(0);

/**
 * The signals' output for the step, indexed by movement in the movement index's global order (mg = base[j] + m):
 * the rules read it, never write it.
 */
export interface MovementSignalStates {
  /** per movement: its state code (GREEN … OFF, 0 at a junction without signals) */
  readonly code: Uint8Array;
  /** per movement: 1 where it gives way (a permissive green) */
  readonly yields: Uint8Array;
  /** Seconds until a signal group's state changes as far as is known (global group index; Infinity: not known). */
  timeToChange(group: number): number;
  /** A signal group's state as shown now (global group index). */
  groupCode(group: number): GroupStateCode;
}

/** What the junction's detectors report before a step, per signal group (global index); filled from the places. */
export class SignalDetection {
  /** a vehicle approaches one of the group's movements, near enough to be served */
  readonly call: Uint8Array;
  /** seconds until the next moving vehicle reaches the group's line (0: one is moving close to it; Infinity: none) */
  readonly arrive: Float64Array;
  /** a vehicle stands close to the group's line (a queue) */
  readonly queued: Uint8Array;

  constructor(groups: number) {
    this.call = new Uint8Array(groups);
    this.arrive = new Float64Array(groups).fill(Infinity);
    this.queued = new Uint8Array(groups);
  }

  clear(): void {
    this.call.fill(0);
    this.arrive.fill(Infinity);
    this.queued.fill(0);
  }
}
