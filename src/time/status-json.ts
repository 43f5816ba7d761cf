/**
 * A session's time status as JSON for people and pages (GET /api/status `time`, `vils run`'s metrics.json, the
 * web map's panel): seconds and milliseconds rounded to the microsecond the conductor counts in.
 */
import type { TimeSession } from './session.js';

export interface AssetJson {
  name: string;
  kind: 'simulated' | 'wallclock';
  /** joined over the UDP protocol (else in-process) */
  external: boolean;
  step_ms: number;
  /** Ti [s] */
  t_s: number;
  /** Tc − Ti now [ms] */
  skew_ms: number;
  skew_mean_ms: number;
  skew_std_ms: number;
  skew_max_ms: number;
  /** count-ups retained by the rule (the asset waited for Tc) */
  held: number;
  /** core count-ups this asset held back */
  held_core: number;
  /** realtime: more than dmax behind Tc, its outputs stale (extrapolated) */
  lagging: boolean;
  refused: number;
  /** external: seconds since it was last heard from (null in-process) */
  silent_s: number | null;
}

export interface TimeJson {
  mode: string;
  /** Tc [s] */
  tc_s: number;
  core_step_ms: number;
  dmax_ms: number;
  assets: AssetJson[];
  lagging: string[];
  departed: { name: string; reason: string; at_s: number }[];
  /** invariant checks made after count-ups, and violations found (0 unless a wall-clock asset misbehaves) */
  checks: number;
  violations: number;
  first_violations: string[];
  /** afap / lockstep: advances that stopped short of their target, held by an asset; time spent waiting [s] */
  held_advances: number;
  waited_s: number;
}

const us = (v: number) => Math.round(v) / 1e6;
const ms = (v: number) => Math.round(v) / 1e3;

export function sessionStatusJson(session: TimeSession): TimeJson {
  const st = session.status();
  return {
    mode: st.mode,
    tc_s: us(st.coreTimeUs),
    core_step_ms: ms(st.coreStepUs),
    dmax_ms: ms(st.dmaxUs),
    assets: st.assets.map((a) => ({
      name: a.name,
      kind: a.kind,
      external: session.isExternal(a.name),
      step_ms: ms(a.stepUs),
      t_s: us(a.timeUs),
      skew_ms: ms(a.skewUs),
      skew_mean_ms: ms(a.skewMeanUs),
      skew_std_ms: ms(a.skewStdUs),
      skew_max_ms: ms(a.skewMaxUs),
      held: a.retained,
      held_core: a.heldCore,
      lagging: a.lagging,
      refused: Object.values(a.refused).reduce((x, y) => x + (y ?? 0), 0),
      silent_s: session.isExternal(a.name) ? Math.round(session.silenceS(a.name) * 1000) / 1000 : null,
    })),
    lagging: st.lagging,
    departed: st.departed.map((d) => ({ name: d.name, reason: d.reason, at_s: us(d.atUs) })),
    checks: st.checks,
    violations: st.violations,
    first_violations: st.firstViolations.map((v) => `${v.invariant}: ${v.detail}`),
    held_advances: st.heldAdvances,
    waited_s: Math.round(st.waitedS * 1000) / 1000,
  };
}
