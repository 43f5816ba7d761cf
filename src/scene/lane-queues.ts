/**
 * Congestion-aware forks (scene setting route_choice: queues): the vehicles standing on each lane after the
 * latest policy step, and the weight of a fork's exit by the queue on it and the lanes after it, so that NPCs
 * spread over the network's alternatives instead of piling into the approach of a busy junction — the idea of
 * traffic simulators' rerouting (SUMO's device.rerouting re-plans by measured travel times), kept to the one
 * choice a random-walk NPC makes: which exit to take.
 *
 * A fork one of whose exits comes back to it (a loop of the track) stays uniform: going round again is no
 * alternative to a queued exit, and weighing it up fills the loop until it locks (FMTC's 121 m circuit did).
 */
import type { LaneNetwork } from '../traffic/lanes.js';
import type { ForkChooser } from '../traffic/route.js';
import { FORK_LOOP_BELOW_M, FORK_QUEUED_BELOW_MPS, FORK_QUEUE_GAIN, FORK_QUEUE_LOOK_AHEAD_M } from './tuning.js';

export class LaneQueues {
  private readonly queued: Int32Array;
  /** 1 for a lane whose fork has an exit that comes back to it within FORK_LOOP_BELOW_M */
  private readonly loopFork: Uint8Array;

  constructor(private readonly lanes: LaneNetwork) {
    this.queued = new Int32Array(lanes.lanes.length);
    this.loopFork = new Uint8Array(lanes.lanes.length);
    const best = new Float64Array(lanes.lanes.length).fill(Infinity);
    const touched: number[] = [];
    for (let l = 0; l < lanes.lanes.length; l++) if (lanes.lanes[l].next.length > 1 && this.returnsTo(l, FORK_LOOP_BELOW_M, best, touched)) this.loopFork[l] = 1;
  }

  clear(): void {
    this.queued.fill(0);
  }

  /** A vehicle on `lane` at `speed` [m/s]. */
  add(lane: number, speed: number): void {
    if (speed < FORK_QUEUED_BELOW_MPS && lane >= 0 && lane < this.queued.length) this.queued[lane]++;
  }

  /** The weight of taking `lane` at a fork. */
  forkWeight(lane: number): number {
    return 1 / (1 + FORK_QUEUE_GAIN * this.queueAhead(lane, FORK_QUEUE_LOOK_AHEAD_M)) ** 2;
  }

  /** The exit of `from` a draw u ∈ [0, 1) picks: in proportion to the weights, uniformly at a loop's fork. */
  readonly choose: ForkChooser = (from, next, u) => {
    if (this.loopFork[from]) return next[Math.floor(u * next.length)];
    let sum = 0;
    for (const l of next) sum += this.forkWeight(l);
    let x = u * sum;
    for (const l of next) {
      x -= this.forkWeight(l);
      if (x < 0) return l;
    }
    return next[next.length - 1];
  };

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

  /** Does a path from the end of `lane` come back to it within `limit` metres? (shortest distances, each lane once) */
  private returnsTo(lane: number, limit: number, best: Float64Array, touched: number[]): boolean {
    for (const t of touched) best[t] = Infinity;
    touched.length = 0;
    const open: number[] = [];
    for (const n of this.lanes.lanes[lane].next) {
      best[n] = 0;
      touched.push(n);
      open.push(n);
    }
    while (open.length > 0) {
      const l = open.pop()!;
      if (l === lane) return true;
      const d = best[l] + this.lanes.lanes[l].length;
      if (d > limit) continue;
      for (const n of this.lanes.lanes[l].next) {
        if (d >= best[n]) continue;
        if (best[n] === Infinity) touched.push(n);
        best[n] = d;
        open.push(n);
      }
    }
    return false;
  }
}
