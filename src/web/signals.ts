/**
 * The signals as the frames give them, drawn every animation frame over the cached roads and under the
 * vehicles: each signal group's stop line as a thick line in the colour of its state (from the latest
 * frame's `signals`), the mapped heads as small lamps in their group's colour (grey for pedestrian heads and
 * heads of no group) with a left-arrow mark for a left group's arrow, and, zoomed in, each group's id and
 * time to change beside its head. Only the colours change per frame: a few dozen short lines. Far out (under
 * 1 px/m) the heads are left out: the lines, drawn at least 5 px thick, carry the states.
 *
 * Also what the inspector needs: the group whose stop line an NPC is held at.
 */
import { LABEL_FONT } from './label-font.js';
import { SIGNAL_COLOURS, SIGNAL_UNKNOWN } from './signal-colours.js';
import type { MapTrafficControl, NpcHold, SignalColour, SignalState } from './types.js';
import type { View } from './view.js';
import { signalSummary, ttcText } from './signal-summary.js';

export { SIGNAL_COLOURS, SIGNAL_UNKNOWN };

/** Time-to-change labels are shown from this zoom on [px per m]. */
export const SIGNAL_LABEL_SCALE = 4;
/** Heads from this zoom on, their arrow marks from SIGNAL_ARROW_SCALE (further out they are clutter: the lines carry the states) */
export const SIGNAL_HEAD_SCALE = 1;
export const SIGNAL_ARROW_SCALE = 2;

/** Time to change as the page shows it everywhere: tenths under 10 s, whole seconds above; "live" while set live. */

export interface SignalLabel {
  text: string;
  x: number;
  y: number;
  below: number;
  colour: string;
}

interface Group {
  id: string;
  junction: string;
  left: boolean;
  xs: number[];
  ys: number[];
  /** midpoint and unit direction of the line (first to last point) */
  mx: number;
  my: number;
  ux: number;
  uy: number;
  half: number;
  /** where its label goes: beside its head nearest the line (else the line's end), outwards along the line */
  lx: number;
  ly: number;
  ox: number;
  oy: number;
  atHead: boolean;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

interface Head {
  id: string;
  x: number;
  y: number;
  /** the group whose colour the lamp shows (the non-left one when it shows both) */
  main: string | null;
  /** the left group its arrow shows */
  arrow: string | null;
}

export const HOLD_WORDS: Record<NpcHold, string> = {
  none: '',
  red: 'red light',
  yellow: 'yellow light',
  stop_sign: 'stop sign',
  give_way: 'giving way',
  box: 'full junction ahead (keeping the box clear)',
  queue: 'in a queue',
  crosswalk: 'a person on the crosswalk ahead',
};

export class SignalLayer {
  readonly groups: Group[] = [];
  readonly heads: Head[] = [];
  private readonly byId = new Map<string, Group>();

  constructor(tc: MapTrafficControl) {
    const leftIds = new Set(tc.groups.filter((g) => g.left).map((g) => g.id));
    for (const g of tc.groups) {
      const n = g.stop_line.length / 2;
      if (n < 2) continue;
      const xs: number[] = [], ys: number[] = [];
      for (let i = 0; i < n; i++) {
        xs.push(g.stop_line[2 * i]);
        ys.push(g.stop_line[2 * i + 1]);
      }
      const dx = xs[n - 1] - xs[0], dy = ys[n - 1] - ys[0];
      const len = Math.hypot(dx, dy) || 1;
      const ux = dx / len, uy = dy / len;
      // the label beside the group's head nearest its line (the kerb side, where heads stand), else at the line's
      // end, pushed outwards along the line
      let head: { x: number; y: number } | null = null;
      let headD = 25;
      for (const h of tc.heads) {
        if (!g.heads.includes(h.id)) continue;
        const d = Math.min(Math.hypot(h.x - xs[0], h.y - ys[0]), Math.hypot(h.x - xs[n - 1], h.y - ys[n - 1]));
        if (d < headD) [head, headD] = [h, d];
      }
      const atEnd = head === null || Math.hypot(head.x - xs[n - 1], head.y - ys[n - 1]) <= Math.hypot(head.x - xs[0], head.y - ys[0]);
      const grp: Group = {
        id: g.id, junction: g.junction, left: g.left, xs, ys,
        mx: (xs[0] + xs[n - 1]) / 2, my: (ys[0] + ys[n - 1]) / 2, ux, uy, half: len / 2,
        lx: head ? head.x : atEnd ? xs[n - 1] : xs[0], ly: head ? head.y : atEnd ? ys[n - 1] : ys[0], ox: atEnd ? ux : -ux, oy: atEnd ? uy : -uy, atHead: head !== null,
        minX: Math.min(...xs) - 1, minY: Math.min(...ys) - 1, maxX: Math.max(...xs) + 1, maxY: Math.max(...ys) + 1,
      };
      this.groups.push(grp);
      this.byId.set(g.id, grp);
    }
    for (const h of tc.heads) {
      const main = h.groups.find((id) => !leftIds.has(id)) ?? h.groups[0] ?? null;
      const arrow = h.left_arrow ? h.groups.find((id) => leftIds.has(id)) ?? null : null;
      this.heads.push({ id: h.id, x: h.x, y: h.y, main, arrow: arrow === main ? null : arrow });
    }
  }

  get empty(): boolean {
    return this.groups.length === 0 && this.heads.length === 0;
  }

  /**
   * Draws the stop lines in their states' colours and the heads; returns the labels to place (zoomed in) so
   * the caller can keep them clear of the vehicles' labels.
   */
  draw(ctx: CanvasRenderingContext2D, view: View, signals: readonly SignalState[] | undefined, labels: boolean): SignalLabel[] {
    const out: SignalLabel[] = [];
    const states = new Map<string, SignalState>();
    for (const s of signals ?? []) states.set(s.id, s);
    const vis = view.visible(20);
    const s = view.scale;
    ctx.save();
    ctx.setLineDash([]);
    ctx.lineCap = 'butt';
    ctx.lineJoin = 'round';
    const w = Math.max(0.9 * s, 5);
    const r = Math.min(Math.max(0.55 * s, 4.5), 12);
    ctx.font = LABEL_FONT;
    for (const g of this.groups) {
      const st = states.get(g.id);
      if (!st) continue;
      if (g.maxX < vis.minX || g.minX > vis.maxX || g.maxY < vis.minY || g.minY > vis.maxY) continue;
      ctx.beginPath();
      for (let i = 0; i < g.xs.length; i++) {
        const p = view.toScreen(g.xs[i], g.ys[i]);
        if (i === 0) ctx.moveTo(p.x, p.y);
        else ctx.lineTo(p.x, p.y);
      }
      ctx.strokeStyle = 'rgba(0, 0, 0, 0.7)';
      ctx.lineWidth = w + 2;
      ctx.stroke();
      ctx.strokeStyle = SIGNAL_COLOURS[st.state] ?? SIGNAL_UNKNOWN;
      ctx.lineWidth = w;
      ctx.stroke();
      if (labels && s >= SIGNAL_LABEL_SCALE) {
        const when = ttcText(st);
        const text = when ? `${g.id} ${when}` : g.id;
        // clear of the head (or the line's end) along the line, outwards (screen y points down)
        const halfW = ctx.measureText(text).width / 2 + 4;
        const gap = (g.atHead ? r + 6 : 8) + Math.abs(g.ox) * halfW + Math.abs(g.oy) * 8;
        const p = view.toScreen(g.lx, g.ly);
        const cx = p.x + gap * g.ox, cy = p.y - gap * g.oy;
        out.push({ text, x: cx, y: cy + 8, below: cy - 8, colour: SIGNAL_COLOURS[st.state] ?? SIGNAL_UNKNOWN });
      }
    }
    if (this.heads.length && s >= SIGNAL_HEAD_SCALE) {
      const colourOf = (id: string | null) => {
        const st = id === null ? undefined : states.get(id);
        return st ? SIGNAL_COLOURS[st.state] ?? SIGNAL_UNKNOWN : SIGNAL_UNKNOWN;
      };
      ctx.lineWidth = 1.5;
      for (const h of this.heads) {
        if (h.x < vis.minX || h.x > vis.maxX || h.y < vis.minY || h.y > vis.maxY) continue;
        const p = view.toScreen(h.x, h.y);
        // the lamp in a dark housing
        ctx.beginPath();
        ctx.arc(p.x, p.y, r + 2, 0, 2 * Math.PI);
        ctx.fillStyle = '#111619';
        ctx.fill();
        ctx.beginPath();
        ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
        ctx.fillStyle = colourOf(h.main);
        ctx.fill();
        if (h.arrow !== null && s >= SIGNAL_ARROW_SCALE) {
          // the arrow lamp: a left-pointing arrow beside the head, in its left group's colour
          const a = r * 1.1, x0 = p.x + r + 4, y0 = p.y;
          ctx.beginPath();
          ctx.moveTo(x0 + 2.6 * a, y0);
          ctx.lineTo(x0 + 0.6 * a, y0);
          ctx.moveTo(x0 + 1.3 * a, y0 - 0.8 * a);
          ctx.lineTo(x0 + 0.4 * a, y0);
          ctx.lineTo(x0 + 1.3 * a, y0 + 0.8 * a);
          ctx.strokeStyle = '#111619';
          ctx.lineWidth = Math.max(2, 0.5 * a) + 2;
          ctx.stroke();
          ctx.strokeStyle = colourOf(h.arrow);
          ctx.lineWidth = Math.max(2, 0.5 * a);
          ctx.stroke();
          ctx.lineWidth = 1.5;
        }
      }
    }
    ctx.restore();
    return out;
  }

  /**
   * The group an NPC at (x, y) heading `yaw` is held at: the nearest stop line ahead of it (within `maxM`),
   * across its path and facing its way, preferring one in `prefer` (e.g. the red ones for a red hold).
   */
  groupAhead(x: number, y: number, yaw: number, signals: readonly SignalState[] | undefined, prefer: (s: SignalState | undefined) => boolean, maxM = 80): string | null {
    const hx = Math.cos(yaw), hy = Math.sin(yaw);
    const states = new Map<string, SignalState>();
    for (const s of signals ?? []) states.set(s.id, s);
    let best: { id: string; d: number; pref: boolean } | null = null;
    for (const g of this.groups) {
      const dx = g.mx - x, dy = g.my - y;
      const along = dx * hx + dy * hy;
      if (along < -1 || along > maxM) continue;
      // the line must lie across the heading (within 45° of square to it) and the NPC within its span
      if (Math.abs(g.ux * hx + g.uy * hy) > Math.SQRT1_2) continue;
      // where the heading ray meets the line, measured along the line from its midpoint
      const den = hx * g.uy - hy * g.ux;
      if (Math.abs(den) < 1e-9) continue;
      const u = (dx * hy - dy * hx) / den;
      if (Math.abs(u) > g.half + 1) continue;
      const pref = prefer(states.get(g.id));
      if (!best || (pref && !best.pref) || (pref === best.pref && along < best.d)) best = { id: g.id, d: along, pref };
    }
    return best?.id ?? null;
  }
}

export { signalSummary, ttcText };
