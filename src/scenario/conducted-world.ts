/**
 * A scenario's world on the time conductor: one TimedWorld (src/time/timed-world.ts) over one set of the
 * scenario's assets (assets.ts: the NPC world, each simulated ego's plant, an optional story around each policy
 * step). The one set-up that `vils run`'s world (world.ts) and a served scene's time (src/session/scene-time.ts)
 * share, so both step a scene the same way; a set can be swapped between two advances (simulated egos attached
 * to a served scene).
 */
import type { Clock } from '../time/clock.js';
import { TimedWorld, type AdvanceOptions, type AdvanceResult, type RunnerEvent, type TimeSession, type TimeSettings } from '../time/index.js';
import { ScenarioAssets, type ScenarioAssetsOptions } from './assets.js';
import type { SimEgo } from './sim-ego.js';

/** What steps on the conductor: the scene (or none), the egos, where their reports go, the story. */
export type WorldSet = Omit<ScenarioAssetsOptions, 'waitsFor'>;

export interface ConductedWorldOptions {
  readonly clock?: Clock;
  readonly onEvent?: (e: RunnerEvent) => void;
}

export class ConductedWorld {
  private readonly timed: TimedWorld;
  private set: ScenarioAssets;

  /** Throws TimeSettingsError when the set's steps do not fit the settings. */
  constructor(readonly settings: TimeSettings, set: WorldSet, opts: ConductedWorldOptions = {}) {
    this.set = this.assetsOf(set);
    this.timed = new TimedWorld(settings, this.set, opts);
  }

  /** the conductor (external assets attach to it over the asset port) */
  get session(): TimeSession {
    return this.timed.session;
  }

  private assetsOf(set: WorldSet): ScenarioAssets {
    // (the world may not wait for an ego the session says is lagging: realtime)
    return new ScenarioAssets({ ...set, waitsFor: (n) => this.timed?.session.waitsFor(n) ?? true });
  }

  /** Throws TimeSettingsError when this set's steps do not fit the settings (nothing changes). */
  check(set: WorldSet): void {
    this.timed.check(this.assetsOf(set));
  }

  /** Swaps the set (between two advances): the old assets leave with `reason`, the new ones join. */
  replace(set: WorldSet, reason: string): void {
    const assets = this.assetsOf(set);
    this.timed.replace(assets, reason);
    this.set = assets;
  }

  /** Advances the world to targetUs through the conductor (TimeSession.advance). */
  advance(targetUs: number, opts: AdvanceOptions = {}): Promise<AdvanceResult> {
    return this.timed.advance(targetUs, opts);
  }

  /** Hands an ego's report to the scene at the ego's own time (the frame shows it; the scene extrapolates). */
  reportNow(e: SimEgo): void {
    this.set.reportNow(e);
  }

  /** Back to time 0: the assets, then the conductor. */
  reset(): void {
    this.timed.reset();
  }
}
