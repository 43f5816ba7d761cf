/**
 * A scenario's world on the time conductor: a TimedWorld (src/time/timed-world.ts) over one set of the
 * scenario's assets (assets.ts: the NPC world, each simulated ego's plant, an optional story around each policy
 * step). The one set-up that `vils run`'s world (world.ts) and a served session's conductor
 * (src/session/scene-time.ts) share, so both step a scene the same way; a set can be swapped between two
 * advances (simulated egos attached to a served scene). Its advance is the TimedWorld's.
 */
import type { Clock } from '../time/clock.js';
import { TimedWorld, type RunnerEvent, type TimeSession, type TimeSettings } from '../time/index.js';
import { ScenarioAssets, type ScenarioAssetsOptions } from './assets.js';
import type { SimEgo } from './sim-ego.js';

/** What steps on the conductor: the scene (or none), the egos, where their reports go, the story. */
export type WorldSet = Omit<ScenarioAssetsOptions, 'waitsFor'>;

export interface ConductedWorldOptions {
  readonly clock?: Clock;
  readonly onEvent?: (e: RunnerEvent) => void;
}

/** The session a set's world asset asks whether to wait for an ego (known once the TimedWorld is built). */
interface SessionRef {
  session: TimeSession | null;
}

function assetsOf(set: WorldSet, ref: SessionRef): ScenarioAssets {
  // realtime: the world does not wait for an ego the session says is lagging (or past the tick's budget)
  return new ScenarioAssets({ ...set, waitsFor: (n) => ref.session?.waitsFor(n) ?? true });
}

export class ConductedWorld extends TimedWorld {
  private set: ScenarioAssets;
  private readonly ref: SessionRef;

  /** Throws TimeSettingsError when the set's steps do not fit the settings. */
  constructor(settings: TimeSettings, set: WorldSet, opts: ConductedWorldOptions = {}) {
    const ref: SessionRef = { session: null };
    const assets = assetsOf(set, ref);
    super(settings, assets, opts);
    ref.session = this.session;
    this.ref = ref;
    this.set = assets;
  }

  /** Throws TimeSettingsError when this set's steps do not fit the settings (nothing changes). */
  checkSet(set: WorldSet): void {
    this.check(assetsOf(set, this.ref));
  }

  /** Swaps the set (between two advances): the old assets leave with `reason`, the new ones join. */
  replaceSet(set: WorldSet, reason: string): void {
    const assets = assetsOf(set, this.ref);
    this.replace(assets, reason);
    this.set = assets;
  }

  /** Hands an ego's report to the scene at the ego's own time (the frame shows it; the scene extrapolates). */
  reportNow(e: SimEgo): void {
    this.set.reportNow(e);
  }
}
