/**
 * A world on the time conductor: one TimeSession with the world's in-process assets, planned from the
 * conductor settings, and the priming, advancing and reset around it — the one set-up that a scenario's world
 * (src/scenario/world.ts), a hosted scene's time (src/session/scene-time.ts) and `vils realtime`
 * (src/cosim/realtime.ts) share. It lives with the conductor so that every room that steps a world can reach
 * it (the layers let cosim import time, not scene).
 *
 * The assets come as one set (WorldAssets): their own steps, for the plan; the session assets that step them;
 * what must be taken before the conductor starts (the NPC world's policy step at 0); and their reset. A set can
 * be replaced between two advances (simulated egos attached to a served scene): the old set's assets leave, the
 * new set's join, all or nothing.
 */
import type { Clock } from './clock.js';
import { TimeSession, type AdvanceOptions, type AdvanceResult, type RunnerEvent, type SessionAsset } from './session.js';
import { planSession, type NativeStep, type TimeSettings } from './settings.js';

export interface WorldAssets {
  /** every asset's own step (for planSession) */
  nativeSteps(): NativeStep[];
  /**
   * The session assets that step them, at the planned steps. A native step without an asset here is tracked:
   * its owner steps it on its own loop and tells the session (TimeSession.mayStep / stepped).
   */
  assets(stepUs: ReadonlyMap<string, number>): SessionAsset[];
  /** Whatever must be taken at time 0 before the conductor runs (called before every advance; once is enough). */
  prime?(): void;
  /** Back to time 0 (before the session's own reset). */
  reset?(): void;
}

export interface TimedWorldOptions {
  readonly clock?: Clock;
  readonly onEvent?: (e: RunnerEvent) => void;
}

export class TimedWorld {
  readonly session: TimeSession;
  private current: WorldAssets;
  private names: string[] = [];

  /** Throws TimeSettingsError when the assets' steps do not fit the settings. */
  constructor(readonly settings: TimeSettings, assets: WorldAssets, opts: TimedWorldOptions = {}) {
    const plan = planSession(settings, assets.nativeSteps());
    this.session = new TimeSession({ ...plan.options, clock: opts.clock });
    if (opts.onEvent) this.session.onEvent(opts.onEvent);
    this.current = assets;
    this.install(assets, plan.assetStepUs);
  }

  get assets(): WorldAssets {
    return this.current;
  }

  /** Throws TimeSettingsError when these assets' steps do not fit the settings (nothing changes). */
  check(assets: WorldAssets): void {
    planSession(this.settings, assets.nativeSteps());
  }

  /** Replaces the world's assets (between two advances): the old ones leave with `reason`, the new ones join. */
  replace(assets: WorldAssets, reason: string): void {
    const plan = planSession(this.settings, assets.nativeSteps());
    for (const name of this.names) this.session.remove(name, reason);
    this.current = assets;
    this.install(assets, plan.assetStepUs);
  }

  /** Advances the world to targetUs through the conductor (see TimeSession.advance). */
  advance(targetUs: number, opts: AdvanceOptions = {}): Promise<AdvanceResult> {
    this.current.prime?.();
    return this.session.advance(targetUs, opts);
  }

  /** Back to time 0: the assets, then the conductor. */
  reset(): void {
    this.current.reset?.();
    this.session.reset();
  }

  private install(assets: WorldAssets, stepUs: ReadonlyMap<string, number>): void {
    const stepped = assets.assets(stepUs);
    const names = new Set(stepped.map((a) => a.name));
    for (const a of stepped) this.session.add(a);
    for (const n of assets.nativeSteps()) if (!names.has(n.name)) this.session.track(n.name, stepUs.get(n.name) ?? n.stepUs);
    this.names = assets.nativeSteps().map((n) => n.name);
  }
}
