/**
 * runSession: the loop of a TimeSession (session.ts) for a caller that has no loop of its own: the shared-memory
 * cells of `vils time-grid` (asset-shm.ts) and tests with external assets. It only calls the session's advance()
 * (and waits on it), so everything a session does — the rule, the in-process assets in their fixed order, the
 * external assets and their timeouts, the invariant checks and lagging reports — is the same here as in the loops
 * that call advance() themselves (the live scene, `vils run`, `vils realtime`).
 *
 * Core schedule:
 *   - greedy (speed Infinity, the default outside realtime): advance towards the end as fast as the rule and the
 *     reports let it (Hakoniwa's as-fast-as-possible conductor). With no asset at all there is nothing to
 *     synchronise and time does not run: it waits for one to join.
 *   - paced (a finite speed, afap / lockstep): one core count-up per Pacer tick of ΔTc/speed, by the rule; a
 *     retained count-up is lost (Hakoniwa's core at its wall interval Δtc), and a late tick is one count-up
 *     (the Pacer skips the ticks an overrun missed), never a burst to catch up. Tc runs at `speed` while the
 *     assets keep up and slower when they do not.
 *   - realtime (speed defaults to 1): the wall clock drags Tc: every tick advances to Tc0 + speed·(now − t0) on
 *     the core grid (it does catch up after a late tick: the car does not wait); in-process assets that may be
 *     left behind step within `budgetS` of each tick.
 *
 * It ends on `signal`'s abort, or once Tc has reached endUs and no asset in sync can progress any more without
 * passing it (wall-clock and lagging assets are not waited for).
 */
import { setImmediate as yieldTurn } from 'node:timers/promises';
import type { Clock } from './clock.js';
import type { Violation } from './conductor.js';
import { Pacer } from './pacer.js';
import type { SessionStatus } from './session-types.js';
import type { TimeSession } from './session.js';

export interface RunSessionOptions {
  /** Stop when Tc reaches this [µs] and no asset in sync can progress without passing it (default: never). */
  readonly endUs?: number;
  /** Simulated seconds per clock second: Infinity = greedy. Default: 1 in realtime, Infinity otherwise. */
  readonly speed?: number;
  /** Pacer tick [s] (default: one core step at `speed`; in realtime at least 1 ms). */
  readonly tickS?: number;
  /** Default: the session's clock (the one its timeouts and budgets run on). */
  readonly clock?: Clock;
  /** realtime: wall time per tick for in-process assets that may be left behind [s] (default: half a tick). */
  readonly budgetS?: number;
  /** Aborting it ends the run (at the next turn of the loop; a greedy advance waits at most WAIT_S first). */
  readonly signal?: AbortSignal;
}

export interface RunSummary {
  readonly coreTimeUs: number;
  readonly wallS: number;
  /** Invariant checks made and violations found (0 unless a wall-clock asset misbehaves in realtime). */
  readonly checks: number;
  readonly violations: number;
  readonly firstViolations: Violation[];
  readonly status: SessionStatus;
}

/** greedy: the longest an advance waits for reports before the loop looks at the signal and the end again [s] */
const WAIT_S = 0.05;
/** greedy: core steps per advance, so that a session of in-process assets alone still sees an abort */
const CHUNK_STEPS = 1000;

export async function runSession(session: TimeSession, opts: RunSessionOptions = {}): Promise<RunSummary> {
  const realtime = session.mode === 'realtime';
  const speed = opts.speed ?? (realtime ? 1 : Infinity);
  if (!(speed > 0)) throw new RangeError(`speed must be positive (Infinity: greedy), got ${speed}`);
  if (realtime && !Number.isFinite(speed)) throw new RangeError('realtime needs a finite speed (the wall clock is the master)');
  const clock = opts.clock ?? session.clock;
  const stepUs = session.conductor.coreStepUs;
  const stepS = stepUs / 1e6 / speed;
  const tickS = opts.tickS ?? (realtime ? Math.max(0.001, stepS) : stepS);
  if (Number.isFinite(speed) && !(tickS > 0 && Number.isFinite(tickS))) throw new RangeError(`tickS must be a positive number of seconds, got ${tickS}`);
  const budgetS = opts.budgetS ?? tickS / 2;
  const endUs = opts.endUs ?? Infinity;
  const signal = opts.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  // without a signal nothing can abort: no race (each would leave a reaction on the never-settled promise)
  const wait = (s: number): Promise<void> => (signal ? Promise.race([session.waitForChange(s), aborted]) : session.waitForChange(s));
  const startS = clock.now();
  const tc0 = session.timeUs;
  const pacer = Number.isFinite(speed) ? new Pacer(tickS) : undefined;
  pacer?.start(startS);
  try {
    // every wait below follows its condition without an await in between: a report cannot slip past unseen
    while (!signal?.aborted && !finished(session, endUs)) {
      if (pacer) {
        const now = clock.now();
        if (now < pacer.due) {
          await wait(pacer.due - now); // woken early by a report: the end may have come
          continue;
        }
        pacer.begin(now);
        if (realtime) {
          const target = tc0 + Math.floor(((now - startS) * speed * 1e6) / stepUs + 1e-9) * stepUs;
          await session.advance(Math.min(target, endUs), { budgetS });
        } else await session.advance(Math.min(session.timeUs + stepUs, endUs), { maxWaitS: 0 }); // held: the count-up is lost
      } else if (session.conductor.size === 0) {
        await wait(WAIT_S);
      } else if (session.timeUs >= endUs) {
        await session.advance(endUs); // in-process assets take their last steps (none wait here)
        if (signal?.aborted || finished(session, endUs)) break;
        await wait(WAIT_S); // only external assets' last reports are missing
        session.sweep();
      } else {
        await session.advance(Math.min(endUs, session.timeUs + CHUNK_STEPS * stepUs), { maxWaitS: WAIT_S });
        await yieldTurn(); // in-process assets alone never wait on a timer: let an abort in
      }
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  const st = session.status();
  return { coreTimeUs: st.coreTimeUs, wallS: clock.now() - startS, checks: st.checks, violations: st.violations, firstViolations: st.firstViolations, status: st };
}

/** Tc at the end and every asset in sync there: none can take another step without passing endUs. */
function finished(session: TimeSession, endUs: number): boolean {
  if (!Number.isFinite(endUs) || session.timeUs < endUs) return false;
  const c = session.conductor;
  for (const name of c.names()) {
    const st = c.assetStatus(name);
    if (st && st.kind !== 'wallclock' && !st.lagging && st.timeUs + st.stepUs <= endUs) return false;
  }
  return true;
}
