/**
 * The log hears of loop overruns, of frames dropped for slow clients and of what an attachment says lags (a
 * served scenario's simulated egos in their thread) as they happen, not only in /api/status.
 */
import { describe, expect, it } from 'vitest';
import type { HostAttachment, SceneHost } from '../../src/server/host.js';
import { SimEgoThread } from '../../src/session/sim-ego-thread.js';
import { watchLoops } from '../../src/server/watch.js';

describe('watchLoops', () => {
  it('warns once per period while overruns or drops grow, and is quiet otherwise', async () => {
    const stats = { overruns: 0, skippedTicks: 0 };
    let dropped = 0;
    const host = {
      name: 'default',
      runner: { get stats() { return { ...stats }; } },
      clients: { dropped: () => dropped },
      scene: { timings: { scene_ms: 142.4, npcs: 63 } },
      serving: { publish_hz: 10 },
      attachments: new Map(),
    } as unknown as SceneHost;
    const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const stop = watchLoops([host], { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) }, 40);
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect(warnings).toEqual([]);
      stats.overruns += 3;
      dropped += 7;
      await new Promise((r) => setTimeout(r, 60));
      expect(warnings.map((w) => w.msg)).toEqual([
        'loop overrun: 3 ticks late in the last 0.04 s in scene default (the latest step took 142.4 ms for 63 NPCs); the machine is too busy for 10 Hz',
        '7 frames dropped for slow clients in the last 0.04 s in scene default (they read slower than 10 Hz)',
      ]);
      expect(warnings[0].obj).toMatchObject({ scene: 'default', overruns: 3, total_overruns: 3 });
      await new Promise((r) => setTimeout(r, 100));
      expect(warnings).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it('says what an attachment reports lagging, once per period, and nothing when it reports nothing', async () => {
    let line: string | null = null;
    const egos: HostAttachment = { status: () => ({}), close: async () => undefined, health: () => line };
    const host = {
      name: 'default',
      runner: { stats: { overruns: 0, skippedTicks: 0 } },
      clients: { dropped: () => 0 },
      scene: { timings: null },
      serving: { publish_hz: 50 },
      attachments: new Map([['recorder', { status: () => ({}), close: async () => undefined }], ['sim_egos', egos]]),
    } as unknown as SceneHost;
    const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const stop = watchLoops([host], { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) }, 40);
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect(warnings).toEqual([]);
      line = "simulated egos: the egos' thread started 2 ticks a period late or more (3 skipped), tick lateness p99 1.2 ms";
      await new Promise((r) => setTimeout(r, 60));
      expect(warnings[0]).toEqual({ obj: { scene: 'default', attachment: 'sim_egos' }, msg: `${line} (scene default)` });
    } finally {
      stop();
    }
  });

  it('tick lateness percentiles from the thread\'s histogram (0.1 ms buckets, a bucket\'s upper edge)', () => {
    const h = new Array<number>(101).fill(0);
    h[0] = 980; // < 0.1 ms
    h[12] = 15; // 1.2–1.3 ms
    h[100] = 5; // ≥ 10 ms
    expect(SimEgoThread.latePercentiles(h)).toEqual({ p50: 0.1, p99: 1.3, n: 1000 });
    expect(SimEgoThread.latePercentiles(new Array<number>(101).fill(0))).toEqual({ p50: 0, p99: 0, n: 0 });
  });
});
