/** The log hears of loop overruns and of frames dropped for slow clients as they happen, not only in /api/status. */
import { describe, expect, it } from 'vitest';
import type { SceneHost } from '../../src/server/host.js';
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
});
