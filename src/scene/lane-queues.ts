/**
 * Congestion-aware forks (scene setting route_choice: queues): the vehicles standing on each lane after the
 * latest policy step, and the weight of a fork's exit by the queue on it and the lanes after it, so that NPCs
 * spread over the network's alternatives instead of piling into the approach of a busy junction — the idea of
 * traffic simulators' rerouting (SUMO's device.rerouting re-plans by measured travel times), kept to the one
 * choice a random-walk NPC makes: which exit to take.
 */
import type { LaneNetwork } from '../traffic/lanes.js';

/** A vehicle slower than this stands in a queue [m/s]. */
const QUEUED_BELOW_MPS = 2;
/** How far after a fork its exit's queue is looked for [m]. */
const LOOK_AHEAD_M = 120;
/** An exit with q queued vehicles is taken 1/(1 + GAIN·q)² as often as a free one. */
const GAIN = 10;

export class LaneQueues {
  private queued: Int32Array;

  constructor(private readonly lanes: LaneNetwork) {
    this.queued = new Int32Array(lanes.lanes.length);
  }

  clear(): void {
    this.queued.fill(0);
  }

  /** A vehicle on `lane` at `speed` [m/s]. */
  add(lane: number, speed: number): void {
    if (speed < QUEUED_BELOW_MPS && lane >= 0 && lane < this.queued.length) this.queued[lane]++;
  }

  /** The weight of taking `lane` at a fork. */
  readonly forkWeight = (lane: number): number => 1 / (1 + GAIN * this.queueAhead(lane, LOOK_AHEAD_M)) ** 2;

  /** Vehicles standing on `lane` and, within `within` metres after its start, on the fullest of the lanes after it. */
  private queueAhead(lane: number, within: number): number {
    const L = this.lanes.lanes[lane];
    let q = this.queued[lane];
    if (within > L.length) {
      let most = 0;
      for (const n of L.next) most = Math.max(most, this.queueAhead(n, within - L.length));
      q += most;
    }
    return q;
  }
}
