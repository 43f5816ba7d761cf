/**
 * A scenario's world on the time conductor: a TimedWorld (src/time/timed-world.ts) over one set of the
 * scenario's assets (assets.ts: the NPC world, each simulated ego's plant, an optional story around each policy
 * step). The one set-up that `vils run`'s world (world.ts) and a served session's conductor
 * (src/session/scene-time.ts) share, so both step a scene the same way; a set can be swapped between two
 * advances (simulated egos attached to a served scene). Its advance is the TimedWorld's.
 */
import type { Clock } from '../time/clock.js';
import { TimedWorld, type AdvanceOptions, type RunnerEvent, type TimeSession, type TimeSettings } from '../time/index.js';
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

  /**
   * The one advance of a scene on the conductor, that `vils serve` and `vils drive` (through the session,
   * src/session/scene-session.ts) and `vils run` (its world, world.ts) all take: everything that runs the scene
   * (the world's policy steps, the simulated egos, the test case, external assets) advanced to simulation time t
   * by the conductor's rule; then each ego reported to the scene as it is now (one left behind at its own time:
   * the scene moves it on); then the scene's time moved on to where the conductor reached, short of a policy
   * step the world asset has not taken. Held (afap / lockstep, by an external asset): the conductor stopped at
   * tcUs short of t.
   */
  async advanceTo(t: number, opts: AdvanceOptions = {}): Promise<{ held: boolean; tcUs: number; steps: number }> {
    const r = await this.advance(Math.round(t * 1e6), opts);
    const reached = r.held ? r.tcUs / 1e6 : t;
    for (const e of this.set.egos) this.set.reportNow(e);
    const scene = this.set.scene;
    let steps = 0;
    if (scene) {
      const to = Math.min(reached, scene.nextStepTime - 2e-6);
      if (to > scene.time + 1e-9) steps = scene.advanceTo(to);
    }
    return { held: r.held, tcUs: r.tcUs, steps };
  }
}
