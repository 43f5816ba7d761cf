/**
 * The paced loop of a served scenario's simulated egos in their own thread (sim-ego-worker.ts): the plants tick
 * on an absolute schedule of their own (the shared Pacer of src/time, as `vils realtime`'s RealTimeLoop: a tick
 * that starts a whole period late is an overrun, the ticks it missed are skipped, never run in a burst), so the
 * main thread's NPC steps, frames and sockets cannot delay them.
 *
 * The plant clock follows the scene's timeline (Timeline, sent by the main thread): it ticks while the scene
 * runs and stands while it is paused. When it starts or resumes it takes the scene's grid, unless it is already
 * ahead of the scene (the scene gave time up after a stall of the main thread, or paused a moment after the
 * plant's last tick): then it carries on from its own time at once, for a real-time plant never waits for the
 * scene. Each tick stands for one instant of the clock (its place on the schedule); the scene time of that
 * instant is what its reports are stamped with, so the scene places the ego where it was when, whatever the
 * plant time says. The difference (plant − scene) is reported as `aheadMs`, and the autopilot reads a traffic
 * snapshot of scene time t as of plant time t + that difference.
 */
import { US, type SimEgo } from '../scenario/sim-ego.js';
import type { Clock } from '../time/clock.js';
import { Pacer } from '../time/pacer.js';
import { LATE_BUCKETS, LATE_BUCKET_MS, type EgoRow, type Timeline, type TimedReport, type TrafficEgo } from './sim-ego-protocol.js';
import type { TrafficObject } from '../scenario/drivers.js';
import type { StopLine } from '../vehicle/index.js';

export interface PlantLoopOptions {
  readonly clock: Clock;
  readonly egos: readonly SimEgo[];
  /** plant time between two reports [µs] (rounded up to the loop's step) */
  readonly reportEveryUs: number;
  readonly onReports: (reports: TimedReport[], wallS: number) => void;
  /** called about every `statsEveryS` of the clock while ticking, and on every state change */
  readonly onStats?: () => void;
  readonly statsEveryS?: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
/** the scene time a tick stands for, on the microsecond grid the plants count in */
const toUsGrid = (s: number) => Math.round(s * US) / US;

export class PlantLoop {
  /** the loop's step: the greatest common divisor of the plants' steps [µs] */
  readonly stepUs: number;
  private timeline: Timeline = { running: false, simS: 0, wallS: 0 };
  /** plant time [µs] */
  private clockUs = 0;
  /** the scene time of the latest tick [s] */
  private stampS = 0;
  private pacer: Pacer | null = null;
  private closed = false;
  private wake: () => void = () => {};
  private nextReportUs: number;
  private lastStatsAt = -Infinity;
  /** each ego's fail-safe as last told (a change is told at once: it may last only cmd_timeout) */
  private failsafe: boolean[];
  readonly lateHistogram = new Array<number>(LATE_BUCKETS).fill(0);
  ticks = 0;
  overruns = 0;
  skippedTicks = 0;
  maxLateS = 0;

  constructor(private readonly o: PlantLoopOptions) {
    if (o.egos.length === 0) throw new RangeError('a plant loop needs at least one ego');
    this.stepUs = o.egos.map((e) => e.stepUs).reduce(gcd);
    this.nextReportUs = this.reportStepUs();
    this.failsafe = o.egos.map(() => false);
  }

  private reportStepUs(): number {
    return Math.max(this.stepUs, Math.ceil(this.o.reportEveryUs / this.stepUs) * this.stepUs);
  }

  /** Plant time [s]: what arriving commands are stamped with (the fail-safe counts in it). */
  get plantTime(): number {
    return this.clockUs / US;
  }

  get running(): boolean {
    return this.timeline.running && !this.closed;
  }

  /** Plant time − scene time of the latest tick [s]. */
  get aheadS(): number {
    return this.clockUs / US - this.stampS;
  }

  /** The scene time a clock instant stands for. */
  sceneAt(wallS: number): number {
    const tl = this.timeline;
    return tl.running ? tl.simS + (wallS - tl.wallS) : tl.simS;
  }

  /** The scene's timeline changed (started, paused, re-anchored after a stall, reset). */
  setTimeline(tl: Timeline): void {
    const was = this.timeline.running;
    this.timeline = tl;
    if (!tl.running) this.pacer = null;
    else if (!was || this.pacer === null) this.startPacer();
    // running on: the plants keep their schedule, only the scene time their ticks stand for moves
    this.wake();
    this.o.onStats?.();
  }

  private startPacer(): void {
    const period = this.stepUs / US;
    const now = this.o.clock.now();
    // the scene's clock instant for the plants' next tick
    const onGrid = this.timeline.wallS + ((this.clockUs + this.stepUs) / US - this.timeline.simS);
    // within a period of now: the scene's grid; further behind it: from now, never a burst; ahead of it: from
    // its own time, never a wait
    const first = Math.abs(onGrid - now) <= period ? onGrid : onGrid > now ? now + period : now;
    this.pacer = new Pacer(period, 1);
    this.pacer.start(first);
    this.stampS = toUsGrid(this.sceneAt(first - period));
  }

  /** Back to the start, time 0, idle until the scene runs again (a new timeline). */
  reset(): void {
    for (const e of this.o.egos) e.reset();
    this.clockUs = 0;
    this.stampS = 0;
    this.nextReportUs = this.reportStepUs();
    this.timeline = { running: false, simS: 0, wallS: 0 };
    this.pacer = null;
    this.wake();
    this.o.onStats?.();
  }

  /**
   * A policy step's traffic (the scene's snapshot at t): each ego sees the NPCs and the other egos that are not
   * stale, as of the plant time that scene time stands for (the autopilot moves them on from there).
   */
  observe(t: number, npcs: readonly TrafficObject[], egos: readonly TrafficEgo[], stops: readonly StopLine[]): void {
    const at = t + this.aheadS;
    for (const e of this.o.egos) {
      const others = egos.filter((o) => o.egoId !== e.id && !o.stale);
      e.observe({ t: at, objects: others.length ? [...npcs, ...others] : npcs, stops });
      const me = egos.find((o) => o.egoId === e.id);
      if (me && !me.stale) {
        e.sceneSteps++;
        if (me.collided) e.npcContacts++;
      }
    }
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  egoRows(): EgoRow[] {
    return this.o.egos.map((e) => ({ egoId: e.id, t: e.time, failsafe: e.vehicle.watchdog.active, cmds: e.vehicle.cmdsAccepted }));
  }

  /** When the next tick is due on the clock; null while idle (paused, stopped, reset). */
  get due(): number | null {
    return this.closed ? null : (this.pacer?.due ?? null);
  }

  /** Runs until close(). */
  async run(): Promise<void> {
    const clock = this.o.clock;
    while (!this.closed) {
      const pacer = this.pacer;
      if (!pacer) {
        // idle: until the timeline changes
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, 250);
        });
        continue;
      }
      await clock.sleepUntil(pacer.due);
      if (this.pacer === pacer) this.tick(clock.now()); // (not paused, reset or restarted meanwhile)
    }
  }

  /** The tick due, started at clock time `now`: the plants one step on, STATE out (their onTick), reports when due. */
  tick(now: number): void {
    const pacer = this.pacer;
    if (!pacer || this.closed) return;
    const due = pacer.due;
    const late = Math.max(0, now - due);
    const periods = pacer.begin(now);
    const wall = due + (periods - 1) * pacer.period;
    this.ticks++;
    this.lateHistogram[Math.min(LATE_BUCKETS - 1, Math.floor(late * 1000 / LATE_BUCKET_MS))]++;
    if (late > this.maxLateS) this.maxLateS = late;
    if (periods > 1) {
      this.overruns++;
      this.skippedTicks += periods - 1;
    }
    this.clockUs += this.stepUs;
    for (const e of this.o.egos) e.advanceTo(this.clockUs);
    this.stampS = toUsGrid(this.sceneAt(wall));
    if (this.clockUs >= this.nextReportUs) {
      while (this.nextReportUs <= this.clockUs) this.nextReportUs += this.reportStepUs();
      this.o.onReports(this.o.egos.map((e) => ({ report: e.report(), t: this.stampS })), now);
    }
    let changed = false;
    for (let i = 0; i < this.o.egos.length; i++) {
      const a = this.o.egos[i].vehicle.watchdog.active;
      if (a !== this.failsafe[i]) changed = true;
      this.failsafe[i] = a;
    }
    if (changed || now - this.lastStatsAt >= (this.o.statsEveryS ?? 0.25)) {
      this.lastStatsAt = now;
      this.o.onStats?.();
    }
  }
}
