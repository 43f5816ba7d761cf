/**
 * What the page knows of the scene: the latest npc_states frame (with its arrival time), the NPC details
 * the frame does not carry (goal, auto or spawned on request) from GET /api/npcs, short trails, and the
 * publish rate as measured here (frames received per second).
 */
import type { NpcDetail, NpcFrameEntry, NpcStatesFrame } from './types.js';

const TRAIL_POINTS = 16;
const TRAIL_EVERY_S = 0.2;
/** frames are shown at most this far ahead of their time along their velocity [s] */
const MAX_EXTRAPOLATION_S = 0.1;

export interface Trail {
  xs: number[];
  ys: number[];
  lastT: number;
}

export class SceneState {
  frame: NpcStatesFrame | null = null;
  /** performance.now() when `frame` arrived */
  receivedAt = 0;
  readonly details = new Map<number, NpcDetail>();
  readonly trails = new Map<number, Trail>();
  private readonly arrivals: number[] = [];
  /** NPC ids seen in frames without details yet */
  unknownIds = 0;
  frames = 0;

  onFrame(f: NpcStatesFrame, now: number): void {
    const prev = this.frame;
    const t = f.sim_time_s ?? f.step * 0.1;
    if (prev && (f.step < prev.step || (prev.sim_time_s !== undefined && t < prev.sim_time_s - 1e-6))) this.trails.clear(); // a reset
    this.frame = f;
    this.receivedAt = now;
    this.frames++;
    this.arrivals.push(now);
    while (this.arrivals.length > 0 && now - this.arrivals[0] > 2000) this.arrivals.shift();
    const present = new Set<number>();
    let unknown = 0;
    for (const n of f.npcs) {
      present.add(n.id);
      if (!this.details.has(n.id)) unknown++;
      let tr = this.trails.get(n.id);
      if (!tr) {
        tr = { xs: [], ys: [], lastT: -Infinity };
        this.trails.set(n.id, tr);
      }
      if (t - tr.lastT >= TRAIL_EVERY_S - 1e-6) {
        tr.xs.push(n.x);
        tr.ys.push(n.y);
        tr.lastT = t;
        if (tr.xs.length > TRAIL_POINTS) {
          tr.xs.shift();
          tr.ys.shift();
        }
      }
    }
    for (const id of this.trails.keys()) if (!present.has(id)) this.trails.delete(id);
    this.unknownIds = unknown;
  }

  setDetails(list: NpcDetail[]): void {
    this.details.clear();
    for (const n of list) this.details.set(n.id, n);
    this.unknownIds = this.frame ? this.frame.npcs.filter((n) => !this.details.has(n.id)).length : 0;
  }

  /** Frames received per second over the last two seconds (null until there are two). */
  publishRate(now: number): number | null {
    const a = this.arrivals;
    while (a.length > 0 && now - a[0] > 2000) a.shift();
    if (a.length < 2) return null;
    return (a.length - 1) / ((a[a.length - 1] - a[0]) / 1000);
  }

  /** Where an NPC is drawn at `now`: its frame position, moved along its velocity while running. */
  position(n: NpcFrameEntry, now: number): { x: number; y: number } {
    const f = this.frame;
    if (!f || f.state !== 'running' || n.vx === undefined || n.vy === undefined) return { x: n.x, y: n.y };
    const dt = Math.min(MAX_EXTRAPOLATION_S, Math.max(0, (now - this.receivedAt) / 1000));
    return { x: n.x + n.vx * dt, y: n.y + n.vy * dt };
  }

  npc(id: number): NpcFrameEntry | undefined {
    return this.frame?.npcs.find((n) => n.id === id);
  }
}
