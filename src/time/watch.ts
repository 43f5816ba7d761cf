/**
 * What the session (session.ts) keeps an eye on after every change of its conductor: the
 * invariants of the spec, counted and the first few kept, and which assets are lagging (entering and leaving
 * that state reported once each).
 */
import type { Conductor, Violation } from './conductor.js';
import type { RunnerEvent } from './session-types.js';

/** the violations kept for the status (the count goes on) */
const FIRST_VIOLATIONS = 10;

export class ConductorWatch {
  checks = 0;
  violations = 0;
  readonly firstViolations: Violation[] = [];
  /** the assets reported lagging and not yet back in sync */
  readonly lagging = new Set<string>();

  constructor(private readonly check: boolean, private readonly emit: (e: RunnerEvent) => void) {}

  /** The invariants after a change of `c` (when checking is on): each violation counted and reported. */
  checkInvariants(c: Conductor): void {
    if (!this.check) return;
    this.checks++;
    const v = c.checkInvariants();
    if (v.length === 0) return;
    this.violations += v.length;
    for (const x of v) {
      if (this.firstViolations.length < FIRST_VIOLATIONS) this.firstViolations.push(x);
      this.emit({ type: 'violation', violation: x, coreTimeUs: c.timeUs });
    }
  }

  /** Reports assets that fell more than dmax behind (lagging) and those that caught up again (in_sync). */
  trackLagging(c: Conductor): void {
    const now = new Set(c.lagging());
    for (const name of now) {
      if (!this.lagging.has(name)) {
        this.lagging.add(name);
        this.emit({ type: 'lagging', name, skewUs: c.timeUs - (c.assetTimeUs(name) ?? 0) });
      }
    }
    for (const name of [...this.lagging]) {
      if (!now.has(name)) {
        this.lagging.delete(name);
        this.emit({ type: 'in_sync', name });
      }
    }
  }
}
