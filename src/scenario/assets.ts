/**
 * A scenario's in-process time-sync assets (src/time/session.ts): the NPC world and each simulated ego's plant,
 * stepped by the session's conductor instead of one hand-written loop. What the conductor's rule leaves open —
 * which outputs an asset reads — is fixed here by two data dependencies, so that the exchange is exact and a
 * scenario stays bit-for-bit deterministic whatever order the session steps its assets in:
 *
 *   - `world` (step 0.1 s, the policy's): its time is the last policy step it took (the step at s observes the
 *     egos at s and commits the NPCs' motion to s + 0.1). Stepping to a boundary b it reports every ego to the
 *     scene at b, runs the policy step at b and hands each ego the snapshot at b. It waits until every ego is
 *     at b (ready) — unless the session says not to wait for that ego (realtime: lagging, or the tick's budget
 *     is spent); then that ego's last report, stamped with its own time, is what the scene extrapolates to b.
 *     Without NPCs it is the exchange between the egos every 0.1 s (each observes the others).
 *   - `ego:<id>` (the plant's own step): ticks its plant; waits until the world has taken the policy step of the
 *     last boundary at or before its time (ready), so its autopilot drives on the latest snapshot.
 *
 * The world joins at time 0 having taken the step at 0 (prime()): the conductor starts every asset at 0.
 * Ego reports and observations are exactly those of the sequential rule (advanceEgos in world.ts): the
 * results of a scenario do not change by running it under the conductor.
 */
import type { EgoReport } from '../scene/egos.js';
import type { SceneSnapshot } from '../scene/scene.js';
import type { NativeStep, SessionAsset } from '../time/index.js';
import { POLICY_DT } from '../traffic/engine.js';
import type { TrafficObject } from './drivers.js';
import type { StopLine } from '../vehicle/index.js';
import { type SimEgo, US } from './sim-ego.js';

export const WORLD_ASSET = 'world';
/** The NPC world's step [µs]: the policy's 0.1 s. */
export const STEP_US = Math.round(POLICY_DT * US);

/** What the world asset needs of a scene (a LiveScene, or the server's logged view of one). */
export interface SteppedScene {
  /** the scene's time [s] */
  readonly time: number;
  readonly nextStepTime: number;
  advanceTo(t: number): number;
  snapshot(t?: number): SceneSnapshot;
  /** the stop lines closed by red or yellow signals now (none when absent) */
  signalStops?(): readonly StopLine[];
}

/** The traffic each ego sees in a snapshot: every NPC and every other ego. */
export function observeSnapshot(egos: readonly SimEgo[], snap: SceneSnapshot, stops?: readonly StopLine[]): void {
  const npcs: TrafficObject[] = snap.npcs.map((n) => ({ x: n.x, y: n.y, vx: n.vx, vy: n.vy, length: n.length, width: n.width, yaw: n.yaw }));
  for (const e of egos) {
    const others = snap.egos.filter((o) => o.egoId !== e.id && !o.stale).map((o) => ({ x: o.x, y: o.y, vx: o.speed * Math.cos(o.yaw), vy: o.speed * Math.sin(o.yaw), length: o.length, width: o.width, yaw: o.yaw }));
    e.observe({ t: snap.time, objects: others.length ? [...npcs, ...others] : npcs, stops });
    const me = snap.egos.find((o) => o.egoId === e.id);
    if (me && !me.stale) {
      e.sceneSteps++;
      if (me.collided) e.npcContacts++;
    }
  }
}

/** Without NPCs: each ego sees the others (true state) every 0.1 s. */
export function observeEachOther(egos: readonly SimEgo[], tS: number): void {
  for (const e of egos) {
    e.observe({
      t: tS,
      objects: egos.filter((o) => o !== e).map((o) => {
        const s = o.session.truth;
        return { x: s.x, y: s.y, vx: s.velocityEast(), vy: s.velocityNorth(), length: o.spec.length, width: o.spec.width, yaw: s.yaw };
      }),
    });
  }
}

/** The asset name of a simulated ego: `ego:<id>`, with characters the protocol does not allow replaced by '_'. */
export function egoAssetName(id: string): string {
  return `ego:${id}`.replace(/[^A-Za-z0-9_.:@/-]/g, '_').slice(0, 64);
}

/** A scripted test case on the world (src/scenario/story-host.ts): around every policy step, and at a reset. */
export interface StoryHook {
  beforeBoundary(tS: number): void;
  afterBoundary(tS: number, snap: SceneSnapshot): void;
  reset?(): void;
}

export interface ScenarioAssetsOptions {
  /** the NPC world (null: no NPCs; the world asset is then the egos' exchange) */
  readonly scene: SteppedScene | null;
  readonly egos: readonly SimEgo[];
  /** hands an ego report to the scene at a simulation time [s] */
  readonly report: (r: EgoReport, tS: number) => void;
  /** may the world wait for this asset? (TimeSession.waitsFor; default: always) */
  readonly waitsFor?: (name: string) => boolean;
  /** a scripted test case: its actors reported before each policy step, the story stepped after it */
  readonly story?: StoryHook | null;
}

export class ScenarioAssets {
  /** the latest boundary whose policy step the world has taken [µs]; −1 before prime() */
  observedUs = -1;
  private readonly egoNames: string[];

  /** the scene the world asset steps (none: the egos alone) */
  get scene(): SteppedScene | null {
    return this.o.scene;
  }

  /** the simulated egos on the conductor */
  get egos(): readonly SimEgo[] {
    return this.o.egos;
  }

  constructor(private readonly o: ScenarioAssetsOptions) {
    this.egoNames = o.egos.map((e) => egoAssetName(e.id));
  }

  /** The assets' own steps, for planSession: the world's 0.1 s and each plant's. */
  nativeSteps(): NativeStep[] {
    return [{ name: WORLD_ASSET, stepUs: STEP_US, coarse: true }, ...this.o.egos.map((e, i) => ({ name: this.egoNames[i], stepUs: e.stepUs }))];
  }

  /** The session assets, ego plants first (so they reach a boundary before the world steps at it). */
  assets(stepUs: ReadonlyMap<string, number>): SessionAsset[] {
    const stepOf = (name: string, native: number) => stepUs.get(name) ?? native;
    const egos: SessionAsset[] = this.o.egos.map((e, i) => ({
      name: this.egoNames[i],
      stepUs: stepOf(this.egoNames[i], e.stepUs),
      ready: (fromUs: number) => this.observedUs >= Math.floor(fromUs / STEP_US) * STEP_US,
      step: (_fromUs: number, toUs: number) => {
        e.advanceTo(toUs);
      },
    }));
    const world: SessionAsset = {
      name: WORLD_ASSET,
      stepUs: stepOf(WORLD_ASSET, STEP_US),
      detachable: false,
      ready: (fromUs: number) => {
        const b = this.lastBoundaryIn(fromUs, fromUs + world.stepUs);
        if (b < 0) return true;
        const wait = this.o.waitsFor;
        return this.o.egos.every((e, i) => e.timeUs >= b || (wait !== undefined && !wait(this.egoNames[i])));
      },
      step: (fromUs: number, toUs: number) => this.stepWorld(fromUs, toUs),
    };
    return [...egos, world];
  }

  /** The largest policy boundary in (from, to], −1 if none. */
  private lastBoundaryIn(fromUs: number, toUs: number): number {
    const b = Math.floor(toUs / STEP_US) * STEP_US;
    return b > fromUs ? b : -1;
  }

  /** Takes the policy step at time 0 if not yet taken (the world joins the conductor having taken it). */
  prime(): void {
    if (this.observedUs >= 0) return;
    if (this.o.scene) this.boundary(0);
    else this.observedUs = 0;
  }

  /** Hands an ego's report to the scene at the ego's own time (the frame shows it; the scene extrapolates). */
  reportNow(e: SimEgo): void {
    this.o.report(e.report(), e.time);
  }

  /** After a reset: the step at 0 is to be taken again. */
  reset(): void {
    this.observedUs = -1;
    this.o.story?.reset?.();
  }

  private stepWorld(fromUs: number, toUs: number): void {
    for (let b = (Math.floor(fromUs / STEP_US) + 1) * STEP_US; b <= toUs; b += STEP_US) this.boundary(b);
  }

  private boundary(b: number): void {
    const ts = b / US;
    const scene = this.o.scene;
    if (scene) {
      // an ego at b is reported at b; one left behind (realtime only) at its own time, and the scene moves it on
      for (const e of this.o.egos) this.o.report(e.report(), e.timeUs === b ? ts : e.time);
      this.o.story?.beforeBoundary(ts);
      scene.advanceTo(ts);
      const snap = scene.snapshot(ts);
      this.o.story?.afterBoundary(ts, snap);
      if (this.o.egos.length > 0) observeSnapshot(this.o.egos, snap, scene.signalStops?.());
    } else observeEachOther(this.o.egos, ts);
    this.observedUs = b;
  }
}
