/**
 * A reset or an init never stops the running step for more than one period (issue 44, item 2). The REST fuzz of
 * the issue held the step at 0 for 2.7 s: each reset restarted the runner's schedule at time 0 — and since the clock
 * had moved on by a few microseconds between anchoring and aligning, time 0 fell on the grid point a whole period
 * away, so every reset pushed the next tick back by a period (the frame at time 0 was never shown), and resets
 * closer together than a period kept the scene from stepping at all. Here, on a virtual clock that moves only when
 * the test moves it (and, like a real one, a microsecond between two readings), resets at any moment — one, or one
 * every 30 ms for a second — leave the frames on their grid: one every period, the first after a reset showing the
 * scene at time 0.
 */
import { describe, expect, it } from 'vitest';
import { SceneRunner, type PublishedFrame } from '../../src/session/runner.js';
import type { Clock } from '../../src/time/clock.js';
import { countingScene } from '../helpers/counting-scene.js';

/** Time moves when the test says; each reading moves it on by 1 µs, as a real clock does between two readings. */
class ManualClock implements Clock {
  private t = 0;
  private sleepers: Array<{ t: number; resolve: () => void }> = [];
  now(): number {
    const t = this.t;
    this.t += 1e-6;
    return t;
  }
  sleepUntil(t: number): Promise<void> {
    if (t <= this.t) return new Promise((r) => setImmediate(r));
    return new Promise((resolve) => this.sleepers.push({ t, resolve }));
  }
  /** Moves time to `to`, waking each sleeper at its own time (and letting what it starts run). */
  async advanceTo(to: number): Promise<void> {
    for (;;) {
      this.sleepers.sort((a, b) => a.t - b.t);
      const next = this.sleepers[0];
      if (!next || next.t > to) break;
      this.sleepers.shift();
      if (next.t > this.t) this.t = next.t;
      next.resolve();
      await new Promise((r) => setImmediate(r));
    }
    if (to > this.t) this.t = to;
    await new Promise((r) => setImmediate(r));
  }
}

/** Runs 3 s of clock time at `hz` with resets at the given times; every frame with the clock time it went out at. */
async function run(hz: number, resetsAt: number[]): Promise<{ frames: Array<{ at: number; frame: PublishedFrame }>; resets: number }> {
  const clock = new ManualClock();
  const scene = countingScene();
  const runner = new SceneRunner(scene, { clock, publishHz: hz, epochNow: () => 1.7e9 + clock.now() });
  const frames: Array<{ at: number; frame: PublishedFrame }> = [];
  runner.addSink({ publish: (frame) => frames.push({ at: clock.now(), frame }) });
  runner.start();
  const pending = [...resetsAt].sort((a, b) => a - b);
  for (let t = 0; t <= 3 + 1e-9; t += 0.005) {
    await clock.advanceTo(t);
    while (pending.length && pending[0] <= t + 1e-9) {
      pending.shift();
      // as a REST handler does: not awaited by anyone but the request
      void runner.reset();
      await new Promise((r) => setImmediate(r));
    }
  }
  await clock.advanceTo(3.2);
  const closed = runner.close();
  await clock.advanceTo(3.5);
  await closed;
  return { frames: frames.filter((f) => f.at <= 3 + 1e-3), resets: scene.resets };
}

const gaps = (frames: Array<{ at: number }>) => frames.slice(1).map((f, i) => f.at - frames[i].at);

describe('a reset while running never holds the step for more than one period', () => {
  it('one reset mid-period: the next frame comes on the grid, showing time 0; no frame is lost or added', async () => {
    const { frames, resets } = await run(10, [1.53]);
    expect(resets).toBe(1);
    for (const g of gaps(frames)) expect(g).toBeCloseTo(0.1, 3);
    expect(frames.length).toBe(31); // 0, 0.1, … 3.0
    const after = frames.find((f) => f.at > 1.53)!;
    expect(after.at).toBeCloseTo(1.6, 3);
    expect(after.frame.snapshot).toMatchObject({ time: 0, step: 1 }); // the step at time 0 taken, shown at 0
    const next = frames[frames.indexOf(after) + 1];
    expect(next.frame.snapshot).toMatchObject({ time: 0.1, step: 2 });
    // the frames' wall-clock stamps keep to the clock: the frame at time 0 went out when it was stamped
    expect(after.frame.wallTimeS - 1.7e9).toBeCloseTo(after.at, 3);
  });

  it('a storm: a reset every 30 ms for a second, at 10 and at 50 Hz — a frame every period throughout, each after a reset at time 0', async () => {
    for (const hz of [10, 50]) {
      const storm = Array.from({ length: 34 }, (_, i) => 1.01 + i * 0.03);
      const { frames, resets } = await run(hz, storm);
      expect(resets).toBe(storm.length);
      const g = gaps(frames);
      expect(Math.max(...g), `${hz} Hz`).toBeLessThan(1 / hz + 1e-3);
      expect(Math.min(...g), `${hz} Hz`).toBeGreaterThan(1 / hz - 1e-3);
      expect(frames.length).toBe(3 * hz + 1);
      // inside the storm every frame shows a scene reset less than a period before: at time 0 or one step on
      const inStorm = frames.filter((f) => f.at > 1.05 && f.at < 2);
      expect(inStorm.every((f) => f.frame.snapshot.time <= 1 / hz + 1e-9)).toBe(true);
      // after it the scene runs on from its last reset, one frame per period
      const last = frames.at(-1)!;
      expect(last.frame.snapshot.time).toBeGreaterThan(0.9);
    }
  });
});
