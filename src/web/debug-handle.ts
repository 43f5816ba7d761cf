/** window.__vils, the page's handle for the browser tests and the curious: map ⇄ screen, canvas pixels, the view, frame-time figures, what is loaded and shown. */
import type { WebMap } from './app.js';
import { signalSummary } from './signals.js';

export function debugHandle(page: WebMap) {
  const { view, canvas, state } = page;
  const stats = (list: number[]) => {
    const s = [...list].sort((a, b) => a - b);
    const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN);
    return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / (s.length || 1), p50: q(0.5), p95: q(0.95), max: s[s.length - 1] ?? NaN };
  };
  return {
    mapToScreen: (x: number, y: number) => view.toScreen(x, y),
    /** page coordinates (for synthetic mouse events) of a map point */
    mapToPage: (x: number, y: number) => {
      const r = canvas.el.getBoundingClientRect();
      const p = view.toScreen(x, y);
      return { x: p.x + r.left, y: p.y + r.top };
    },
    /** the canvas pixel [r, g, b] under a map point */
    pixelAt: (x: number, y: number) => {
      const p = view.toScreen(x, y);
      const d = canvas.ctx.getImageData(Math.round(p.x * canvas.dpr), Math.round(p.y * canvas.dpr), 1, 1).data;
      return [d[0], d[1], d[2]];
    },
    screenToMap: (x: number, y: number) => view.toMap(x, y),
    view: () => ({ cx: view.cx, cy: view.cy, scale: view.scale, width: view.width, height: view.height }),
    setView: (cx: number, cy: number, scale: number) => {
      canvas.follow = null;
      view.set(cx, cy, scale);
    },
    resetStats: () => canvas.resetStats(),
    stats: () => ({ frame: stats(canvas.frameTimes), draw: stats(canvas.drawTimes), mapRenders: canvas.layer?.renders ?? 0, mapRenderMs: canvas.layer?.lastRenderMs ?? 0, frames: state.frames }),
    frameTimes: () => [...canvas.frameTimes],
    mapLoaded: () => canvas.layer !== null,
    mapCounts: () => page.data.mapReply?.counts ?? null,
    signalsShown: () => page.signals.shown && page.signals.layer !== null,
    hasSignalLayer: () => page.signals.layer !== null,
    mode: () => page.spawn.mode,
    connection: () => page.connection.conn.kind,
    lastFrame: () => state.frame,
    /** the frame the map last drew (its step and state), and the boxes [x, y, w, h] of the labels drawn over it */
    drawn: () => ({ step: canvas.drawnFrame?.step ?? null, state: canvas.drawnFrame?.state ?? null, labels: canvas.labelsDrawn.map((b) => [...b]) }),
    /**
     * What the map and the status bar show of the signals at this moment: the summary of the frame the map last drew,
     * and the status bar's line (they must always agree)
     */
    signalViews: () => ({ drawn: signalSummary(canvas.drawnFrame?.signals)?.text ?? null, bar: document.getElementById('st-signals')?.textContent ?? null, drawnStep: canvas.drawnFrame?.step ?? null }),
    /** the test-case panel: whether the scene serves one, polling, shown, the attempt, its state and status */
    story: () => page.story.debug(),
    /** the scripted actors in the latest drawing, with their screen positions */
    actorsDrawn: () => canvas.actorsDrawn.map((a) => ({ ...a })),
    /** the pedestrians and cyclists in the latest drawing, with their screen positions and radii */
    peopleDrawn: () => canvas.peopleDrawn.map((p) => ({ ...p })),
    /** the crosswalks the page outlines (GET /api/map traffic_control.crosswalks) */
    crosswalkCount: () => page.signals.crosswalks?.crosswalks.length ?? 0,
  };
}
