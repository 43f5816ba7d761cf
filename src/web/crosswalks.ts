/**
 * The map's crosswalks on the web map (GET /api/map traffic_control.crosswalks): each outlined always, and filled in
 * the state of the walk group that governs it (walk-states.ts: walk green, flashing green blinking, don't walk red).
 */
import type { MapCrosswalk, SignalState } from './types.js';
import type { View } from './view.js';
import { WALK_COLOURS, crosswalkStates } from './walk-states.js';

/** the outline of every crosswalk, signalised or not */
export const CROSSWALK_OUTLINE = 'rgba(235, 240, 245, 0.85)';
/** the flashing clearance blinks at 1 Hz, as the Korean pedestrian head's flashing green */
const FLASH_PERIOD_MS = 1000;

export class CrosswalkLayer {
  constructor(readonly crosswalks: readonly MapCrosswalk[]) {}

  get empty(): boolean {
    return this.crosswalks.length === 0;
  }

  /** Outlines, and fills in the walk states of `signals` when `states` (the signal states are shown). */
  draw(ctx: CanvasRenderingContext2D, view: View, signals: readonly SignalState[] | undefined, states: boolean, nowMs: number): void {
    const walk = states ? crosswalkStates(signals) : null;
    const flashOn = nowMs % FLASH_PERIOD_MS < FLASH_PERIOD_MS / 2;
    ctx.save();
    ctx.setLineDash([]);
    for (const c of this.crosswalks) {
      const p = c.polygon;
      if (p.length < 6) continue;
      ctx.beginPath();
      for (let i = 0; i < p.length; i += 2) {
        const s = view.toScreen(p[i], p[i + 1]);
        if (i === 0) ctx.moveTo(s.x, s.y);
        else ctx.lineTo(s.x, s.y);
      }
      ctx.closePath();
      const w = walk?.get(c.id);
      if (w !== undefined && (w !== 'flashing' || flashOn)) {
        ctx.globalAlpha = 0.45;
        ctx.fillStyle = WALK_COLOURS[w];
        ctx.fill();
        ctx.globalAlpha = 1;
      }
      ctx.lineWidth = w === undefined ? 1 : 2;
      ctx.strokeStyle = w === undefined ? CROSSWALK_OUTLINE : WALK_COLOURS[w];
      ctx.stroke();
    }
    ctx.restore();
  }
}
