/** A scene for runner tests that only counts its 0.1 s policy steps (their times) and starts over on reset. */
import type { LiveScene } from '../../src/scene/index.js';

export interface CountingScene {
  time: number;
  /** the simulation times of the steps taken since the last reset */
  steps: number[];
  resets: number;
  readonly nextStepTime: number;
  advanceTo(t: number): number;
  reset(): void;
  snapshot(t?: number): ReturnType<LiveScene['snapshot']>;
}

export function countingScene(): CountingScene {
  const s: CountingScene = {
    time: 0,
    steps: [],
    resets: 0,
    get nextStepTime() {
      return s.steps.length / 10;
    },
    advanceTo(t: number) {
      while (s.nextStepTime <= t + 1e-9) s.steps.push(s.nextStepTime);
      s.time = Math.max(s.time, t);
      return s.steps.length;
    },
    reset() {
      s.time = 0;
      s.steps = [];
      s.resets++;
    },
    snapshot(t = s.time) {
      return { time: t, step: s.steps.length, npcs: [], egos: [], timings: null, signals: [] } as unknown as ReturnType<LiveScene['snapshot']>;
    },
  };
  return s;
}
