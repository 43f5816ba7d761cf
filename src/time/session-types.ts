/**
 * The types around a TimeSession (session.ts), apart so that the session's own file stays about its driver:
 * what it tells its listeners (RunnerEvent), what the external-asset server needs of it (AssetHub), its
 * in-process assets, options, advance results and status. session.ts re-exports them all.
 */
import type { Clock } from './clock.js';
import type { AssetKind, AssetStatus, Conductor, ConductorMode, ConductorStatus, ReportRefusal, ReportResult, Violation } from './conductor.js';

/** What a session tells its listeners (asset-server.ts, the scene's log and status, tests). */
export type RunnerEvent =
  | { readonly type: 'joined'; readonly name: string; readonly status: AssetStatus }
  | { readonly type: 'left'; readonly name: string; readonly reason: string; readonly status: AssetStatus }
  | { readonly type: 'lagging'; readonly name: string; readonly skewUs: number }
  | { readonly type: 'in_sync'; readonly name: string }
  | { readonly type: 'refused'; readonly name: string; readonly reason: ReportRefusal; readonly timeUs: number }
  | { readonly type: 'violation'; readonly violation: Violation; readonly coreTimeUs: number };

/** What the external-asset server needs of the session (kept to that, so that asset-server.ts tests need no world). */
export interface AssetHub {
  readonly conductor: Conductor;
  attach(name: string, opts: { stepUs: number; kind?: AssetKind }): AssetStatus;
  report(name: string, timeUs: number, held?: number): ReportResult;
  remove(name: string, reason?: string): void;
  onTc(fn: (tcUs: number) => void): () => void;
  onEvent(fn: (e: RunnerEvent) => void): () => void;
}

export interface SessionAsset {
  readonly name: string;
  /** ΔTi [µs]: a multiple of the core step, at most dmax (in lockstep: the core step). */
  readonly stepUs: number;
  /** Data dependencies beyond the rule: may the step from `fromUs` run now? (default: yes) */
  ready?(fromUs: number): boolean;
  /** Simulates (fromUs, toUs]. */
  step(fromUs: number, toUs: number): void | Promise<void>;
  /** realtime: may it be left behind when the advance's budget is spent? (default true) */
  readonly detachable?: boolean;
}

export interface TimeSessionOptions {
  readonly mode: ConductorMode;
  /** ΔTc [µs] */
  readonly coreStepUs: number;
  /** dmax [µs] (lockstep: the core step, may be omitted) */
  readonly dmaxUs?: number;
  readonly clock?: Clock;
  /** An external asset silent for longer than this is removed ('timeout'); default 2 s. */
  readonly assetTimeoutS?: number;
  /**
   * realtime: the wall-clock asset the caller's clock drives (default 'wall-clock'); null: none, the core counts
   * up to the target by the rule (wall-clock assets that join over the protocol can then hold it). None in other modes.
   */
  readonly wallName?: string | null;
  /** Check the invariants after every count-up (default true); violations are counted and reported as events. */
  readonly checkInvariants?: boolean;
}

export interface AdvanceOptions {
  /** afap / lockstep: wait at most this long for external assets [s] (default Infinity). realtime never waits. */
  readonly maxWaitS?: number;
  /** realtime: wall time detachable in-process assets may use in this advance [s] (default Infinity). */
  readonly budgetS?: number;
}

export interface AdvanceResult {
  /** Tc after the advance [µs] */
  readonly tcUs: number;
  /** afap / lockstep: Tc stopped short of the target because assets held the core */
  readonly held: boolean;
  /** time spent waiting for external assets [s] */
  readonly waitedS: number;
}

export interface SessionStatus extends ConductorStatus {
  readonly checks: number;
  readonly violations: number;
  readonly firstViolations: Violation[];
  readonly heldAdvances: number;
  readonly waitedS: number;
  readonly resets: number;
  readonly external: string[];
}
