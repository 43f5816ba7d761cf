/**
 * Tells the log what the status counters would only show when asked: loop overruns, frames dropped for slow
 * clients, and what an attachment says lags (a served scenario's simulated egos: their thread's late ticks, the
 * main thread taking their reports late, a thread that died), as one warning per scene every few seconds while
 * they happen.
 */
import type { Logger, SceneHost } from './host.js';

export function watchLoops(hosts: readonly SceneHost[], log: Pick<Logger, 'warn'>, everyMs = 5000): () => void {
  const last = hosts.map((h) => ({ overruns: h.runner.stats.overruns, skipped: h.runner.stats.skippedTicks, dropped: h.clients.dropped() }));
  const timer = setInterval(() => {
    for (const [i, h] of hosts.entries()) {
      const s = h.runner.stats;
      const dropped = h.clients.dropped();
      const prev = last[i];
      const overruns = s.overruns - prev.overruns;
      if (overruns > 0) {
        const t = h.scene.timings;
        log.warn({ scene: h.name, overruns, skipped_ticks: s.skippedTicks - prev.skipped, total_overruns: s.overruns },
          `loop overrun: ${overruns} tick${overruns === 1 ? '' : 's'} late in the last ${everyMs / 1000} s in scene ${h.name}` +
            `${t ? ` (the latest step took ${t.scene_ms.toFixed(1)} ms for ${t.npcs} NPCs)` : ''}; the machine is too busy for ${h.serving.publish_hz} Hz`);
      }
      if (dropped > prev.dropped) {
        log.warn({ scene: h.name, dropped_frames: dropped - prev.dropped }, `${dropped - prev.dropped} frames dropped for slow clients in the last ${everyMs / 1000} s in scene ${h.name} (they read slower than ${h.serving.publish_hz} Hz)`);
      }
      last[i] = { overruns: s.overruns, skipped: s.skippedTicks, dropped };
      for (const [name, a] of h.attachments) {
        const line = a.health?.();
        if (line) log.warn({ scene: h.name, attachment: name }, `${line} (scene ${h.name})`);
      }
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
