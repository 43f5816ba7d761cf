/**
 * The messages between the main thread and the thread that runs a served scenario's simulated egos
 * (sim-ego-thread.ts on the main side, sim-ego-worker.ts in the worker). Plain data only: they cross a
 * structured clone.
 *
 * Time: both threads count seconds on the runner's clock — the main thread's performance.now() / 1000 — which
 * the worker rebuilds from process.hrtime (one monotonic clock per process) and the main thread's origin on it.
 * The main thread tells the worker the scene's timeline (running or not, and which simulation time a clock
 * instant stands for) whenever it changes; each reset starts a new epoch, and a message of an older epoch is
 * dropped on arrival (a report taken before a reset must not move the ego after it).
 */
import type { IoCommand, TargetsPatch } from '../cosim/ports.js';
import type { TrafficObject } from '../scenario/drivers.js';
import type { StopLine } from '../vehicle/index.js';
import type { CmdExposure } from '../scenario/comms-link.js';
import type { EgoReport } from '../scene/egos.js';

/**
 * The egos' thread's scheduling: the real-time scheduler (`fifo`: SCHED_FIFO, priority 10, through chrt) or a
 * niceness; null leaves it as it is. fifo and a lower niceness need CAP_SYS_NICE; refused, it runs as it is.
 */
export type EgoPriority = 'fifo' | number | null;

export interface SimEgoWorkerData {
  /** the scenario as loaded (Scenario.resolved: every reference an absolute path) and the file it came from */
  readonly doc: Record<string, unknown>;
  readonly file: string;
  /** the egos the thread runs, in the scenario's order */
  readonly egoIds: readonly string[];
  readonly bindAddress?: string;
  /** process.hrtime.bigint() at the main thread's performance.now() = 0 [ns] */
  readonly originNs: bigint;
  /** seconds without a command before an external ego's fail-safe */
  readonly cmdTimeoutS: number;
  /** plant time between two reports to the scene [µs] */
  readonly reportEveryUs: number;
  readonly priority: EgoPriority;
}

/** Which simulation time a clock instant stands for: running, sim = simS + (clock − wallS); else simS. */
export interface Timeline {
  readonly running: boolean;
  readonly simS: number;
  readonly wallS: number;
}

/** A vehicle of the scene as the autopilot sees it, with what the worker counts of its own egos. */
export interface TrafficEgo extends TrafficObject {
  readonly egoId: string;
  readonly stale: boolean;
  readonly collided: boolean;
}

export type IoCall =
  | { readonly op: 'command'; readonly cmd: IoCommand }
  | { readonly op: 'snapshot' }
  | { readonly op: 'targets' }
  | { readonly op: 'setTargets'; readonly patch: TargetsPatch };

export type ToWorker =
  | { readonly type: 'timeline'; readonly epoch: number; readonly timeline: Timeline }
  /** back to the start, time 0; idle until the new epoch's timeline */
  | { readonly type: 'reset'; readonly epoch: number }
  /** a policy step's traffic: the snapshot at scene time t */
  | { readonly type: 'traffic'; readonly epoch: number; readonly t: number; readonly npcs: readonly TrafficObject[]; readonly egos: readonly TrafficEgo[]; readonly stops: readonly StopLine[] }
  | { readonly type: 'io'; readonly id: number; readonly call: IoCall }
  /** throws `message` in the worker: a thread that dies must not take the server with it (tests) */
  | { readonly type: 'fault'; readonly message: string }
  | { readonly type: 'close' };

/** Lateness of tick starts behind their schedule, counted in buckets of LATE_BUCKET_MS (the last: beyond). */
export const LATE_BUCKET_MS = 0.1;
export const LATE_BUCKETS = 101;

export interface EgoRow {
  readonly egoId: string;
  /** plant time [s] */
  readonly t: number;
  readonly failsafe: boolean;
  readonly cmds: number;
}

export interface WorkerStats {
  readonly ticks: number;
  /** ticks that started a whole period late or more: the ticks they missed were skipped */
  readonly overruns: number;
  readonly skippedTicks: number;
  readonly maxLateMs: number;
  /** tick starts by lateness, cumulative (LATE_BUCKET_MS buckets) */
  readonly lateHistogram: readonly number[];
  /** plant time − scene time of the latest tick [ms] (> 0 after the scene slipped, < 0 after skipped ticks) */
  readonly aheadMs: number;
  readonly running: boolean;
  readonly egos: readonly EgoRow[];
  readonly exposure: CmdExposure;
  readonly handlerErrors: number;
}

export interface TimedReport {
  readonly report: EgoReport;
  /** the scene's simulation time the report stands for [s] */
  readonly t: number;
}

export type FromWorker =
  /** `priority`: the thread's scheduling as applied ('fifo 10', 'nice -10', 'normal'), or why not */
  | { readonly type: 'ready'; readonly cmdPorts: readonly number[]; readonly stats: WorkerStats; readonly priority: string }
  | { readonly type: 'failed'; readonly message: string }
  /** `wallS`: the clock when they were posted (how late the main thread takes them) */
  | { readonly type: 'reports'; readonly epoch: number; readonly wallS: number; readonly reports: readonly TimedReport[] }
  | { readonly type: 'stats'; readonly stats: WorkerStats }
  | { readonly type: 'io'; readonly id: number; readonly value: unknown }
  | { readonly type: 'closed' };

/** process.hrtime.bigint() at this thread's performance.now() = 0 [ns] (the main thread sends its own). */
export function hrtimeOriginNs(): bigint {
  return process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
}
