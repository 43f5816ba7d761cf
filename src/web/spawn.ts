/** The spawn gesture (A): press at the spawn point, drag for heading and speed (shown live), release, then click the goal or right-click for the server's; drawn while it lasts. */
import type { MapHandle, SpawnDraft, SpawnMode } from './map-handle.js';

export type { SpawnDraft, SpawnMode };
import { $, compassDeg, setText } from './dom.js';
import { VEHICLE_COLOURS } from './draw.js';
import type { View } from './view.js';

/** Spawn drags: this many screen pixels per m/s, up to MAX_SPAWN_SPEED; shorter than DEAD_ZONE_PX is a click. */
export const PX_PER_MPS = 10;
export const MAX_SPAWN_SPEED = 40;
const DEAD_ZONE_PX = 8;

type Point = { x: number; y: number };

export class SpawnGesture {
  mode: SpawnMode = 'idle';
  draft: SpawnDraft | null = null;

  constructor(private readonly page: MapHandle) {}

  /** A and the Add NPC button: start spawning, or cancel it. */
  toggle(): void {
    if (this.mode === 'idle') this.enter();
    else this.cancel();
  }

  enter(): void {
    this.mode = 'spawn-press';
    this.draft = null;
    this.page.select(null);
    this.hint('Spawn an NPC: press at the spawn point and drag — direction = heading, length = speed. Esc cancels.');
    this.page.canvas.el.classList.add('spawn');
  }

  cancel(): void {
    this.page.canvas.dirty = true;
    this.mode = 'idle';
    this.draft = null;
    this.hint(null);
    $('spawn-readout').hidden = true;
    this.page.canvas.el.classList.remove('spawn');
  }

  /** A pointer went down at `p` (screen) with `button`; true when the gesture took it. */
  press(p: Point, button: number): boolean {
    if (this.mode === 'spawn-press' && button === 0) {
      const m = this.page.view.toMap(p.x, p.y);
      this.draft = { x: m.x, y: m.y, sx: p.x, sy: p.y, speed: 0, px: p.x, py: p.y };
      this.mode = 'spawn-drag';
      this.readout(this.draft);
      return true;
    }
    if (this.mode === 'spawn-goal') {
      if (button === 0) void this.submit(this.page.view.toMap(p.x, p.y));
      else if (button === 2) void this.submit(null);
      return true;
    }
    return this.mode === 'spawn-drag';
  }

  /** The pointer moved to `p`; true when the gesture took it. */
  move(p: Point): boolean {
    const d = this.draft;
    if (this.mode === 'spawn-drag' && d) {
      d.px = p.x;
      d.py = p.y;
      const dx = p.x - d.sx, dy = p.y - d.sy;
      const len = Math.hypot(dx, dy);
      if (len < DEAD_ZONE_PX) {
        d.yaw = undefined;
        d.speed = 0;
      } else {
        d.yaw = Math.atan2(-dy, dx); // screen y points down, map y up
        d.speed = Math.round(Math.min(MAX_SPAWN_SPEED, (len - DEAD_ZONE_PX) / PX_PER_MPS) * 10) / 10;
      }
      this.readout(d);
      return true;
    }
    if (this.mode === 'spawn-goal' && d) {
      d.px = p.x;
      d.py = p.y;
      return true;
    }
    return false;
  }

  /** A pointer went up; true when it ended the drag (the goal comes next). */
  release(): boolean {
    if (this.mode === 'spawn-drag' && this.draft) {
      this.mode = 'spawn-goal';
      this.hint('Now click the goal — right-click to let the server choose one along the lanes. Esc cancels.');
      this.readout(this.draft);
      return true;
    }
    return false;
  }

  private async submit(goal: Point | null): Promise<void> {
    const d = this.draft;
    if (!d) return;
    this.cancel();
    await this.page.actions.spawn(d, goal);
  }

  draw(ctx: CanvasRenderingContext2D, v: View): void {
    const d = this.draft;
    if (!d || this.mode === 'idle' || this.mode === 'spawn-press') return;
    const p = v.toScreen(d.x, d.y);
    const yaw = d.yaw ?? 0;
    const L = Math.max(4.5 * v.scale, 12);
    const W = Math.max(2.0 * v.scale, 6);
    ctx.save();
    ctx.translate(p.x, p.y);
    ctx.rotate(-yaw);
    ctx.globalAlpha = 0.75;
    ctx.fillStyle = VEHICLE_COLOURS.spawned;
    if (d.yaw === undefined) {
      ctx.beginPath();
      ctx.arc(0, 0, W, 0, 2 * Math.PI);
      ctx.fill();
    } else ctx.fillRect(-L / 2, -W / 2, L, W);
    ctx.restore();
    ctx.globalAlpha = 1;
    ctx.lineWidth = 2;
    ctx.strokeStyle = VEHICLE_COLOURS.spawned;
    if (this.mode === 'spawn-drag' && d.yaw !== undefined) {
      // the drag: direction = heading, length = speed
      const ex = d.px, ey = d.py;
      ctx.beginPath();
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(ex, ey);
      const a = Math.atan2(ey - p.y, ex - p.x);
      ctx.moveTo(ex - 11 * Math.cos(a - 0.4), ey - 11 * Math.sin(a - 0.4));
      ctx.lineTo(ex, ey);
      ctx.lineTo(ex - 11 * Math.cos(a + 0.4), ey - 11 * Math.sin(a + 0.4));
      ctx.stroke();
    }
    if (this.mode === 'spawn-goal') {
      ctx.setLineDash([6, 5]);
      ctx.beginPath();
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(d.px, d.py);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.arc(d.px, d.py, 7, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }

  private hint(text: string | null): void {
    const h = $('hint');
    if (text === null) {
      h.hidden = true;
      return;
    }
    setText(h, text);
    h.hidden = false;
  }

  private readout(d: SpawnDraft): void {
    const el = $('spawn-readout');
    setText($('spawn-speed'), d.speed.toFixed(1));
    setText($('spawn-kmh'), `(${(d.speed * 3.6).toFixed(0)} km/h)`);
    const conv = this.page.data.mapReply?.convergence_deg ?? 0;
    setText($('spawn-heading'), d.yaw === undefined ? 'along the lane' : `heading ${compassDeg(d.yaw, conv).toFixed(0)}°`);
    el.style.left = `${d.px + 16}px`;
    el.style.top = `${d.py + 14}px`;
    el.hidden = false;
  }
}
