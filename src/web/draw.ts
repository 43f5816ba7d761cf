/**
 * The live layer, drawn every animation frame over the cached roads: trails, goals (a marker and a thin
 * line to it), NPCs and egos as oriented boxes of their true size (a fixed-size arrowhead when that would
 * be too small to see), flags, the selection, and labels (id and speed) placed so they never overlap. A test
 * case's scripted actors are NPCs of the frames too, but a test engineer must tell at once which car is
 * scripted and which one the policy drives: they are violet with a thick magenta outline and an "actor <id>"
 * label that is placed before the NPCs' (and have no goal marker: their goal is where they are).
 * People are drawn as what they are (the frames' `kind`): a pedestrian a filled circle of its size with a tick
 * along its heading (never smaller than a few pixels, so people stay visible zoomed out), a cyclist a narrow box of
 * its size, each in a colour of its own (a scripted one keeps the actor's magenta outline).
 */
import { PERSON_COLOURS } from './kind-colours.js';
import type { SceneState } from './scene-state.js';
import type { SignalLabel } from './signals.js';
import type { EgoFrameEntry, NpcFrameEntry } from './types.js';
import type { View } from './view.js';
import { LABEL_FONT } from './label-font.js';

export const VEHICLE_COLOURS = {
  auto: '#46a6ff',
  spawned: '#4fd17f',
  ego: '#e35cf2',
  /** a test case's scripted actor: violet, outlined in magenta (the ego's colour family: part of the test) */
  actor: '#5a32d8',
  actorOutline: '#ff5cf0',
  egoStale: '#858c93',
  collided: '#ff4545',
  offroad: '#ffa726',
  selected: '#ffffff',
  /** people: a pedestrian, a cyclist (unlike any vehicle's or signal's colour) */
  pedestrian: PERSON_COLOURS.pedestrian,
  cyclist: PERSON_COLOURS.cyclist,
} as const;

/** A pedestrian's circle is never drawn smaller than this radius [CSS px]. */
export const MIN_PERSON_RADIUS_PX = 3.5;

/** A scripted actor as drawn in the latest frame (for the browser tests: window.__vils.actorsDrawn()). */
export interface DrawnActor {
  id: number;
  actor: string;
  /** screen position (CSS pixels) */
  sx: number;
  sy: number;
}

/** A pedestrian or cyclist as drawn in the latest frame (window.__vils.peopleDrawn()): screen centre and radius [CSS px]. */
export interface DrawnPerson {
  id: number;
  kind: 'pedestrian' | 'cyclist';
  sx: number;
  sy: number;
  r: number;
}

export interface OverlayOptions {
  goals: boolean;
  trails: boolean;
  selected: number | null;
  /** more labels to place with the vehicles' (the signals' time to change), after the selected vehicle and egos */
  labels?: readonly SignalLabel[];
}

/** Below this many pixels of length a vehicle is drawn as a fixed-size arrowhead. */
const MIN_BOX_PX = 10;
export { LABEL_FONT };

interface Label {
  text: string;
  x: number;
  /** bottom of the label when above its vehicle; `below`: its top when it must go under it (at the top edge) */
  y: number;
  below: number;
  colour: string;
  priority: number;
}

export function npcColour(state: SceneState, n: NpcFrameEntry): string {
  if (n.collided) return VEHICLE_COLOURS.collided;
  if (n.kind === 'pedestrian') return VEHICLE_COLOURS.pedestrian;
  if (n.kind === 'cyclist') return VEHICLE_COLOURS.cyclist;
  if (n.actor !== undefined) return VEHICLE_COLOURS.actor;
  const d = state.details.get(n.id);
  return d && !d.auto ? VEHICLE_COLOURS.spawned : VEHICLE_COLOURS.auto;
}

function vehicle(ctx: CanvasRenderingContext2D, view: View, x: number, y: number, yaw: number, length: number, width: number, fill: string, outline: string, outlineWidth: number, dashed = false): { sx: number; sy: number; r: number } {
  const p = view.toScreen(x, y);
  const L = length * view.scale;
  const W = width * view.scale;
  ctx.save();
  ctx.translate(p.x, p.y);
  ctx.rotate(-yaw);
  ctx.setLineDash(dashed ? [3, 2] : []);
  let r: number;
  if (L < MIN_BOX_PX) {
    // too small to see as a box: an arrowhead of fixed size pointing along the heading
    ctx.beginPath();
    ctx.moveTo(6, 0);
    ctx.lineTo(-5, 4.5);
    ctx.lineTo(-2.5, 0);
    ctx.lineTo(-5, -4.5);
    ctx.closePath();
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.lineWidth = outlineWidth;
    ctx.strokeStyle = outline;
    ctx.stroke();
    r = 7;
  } else {
    ctx.fillStyle = fill;
    ctx.fillRect(-L / 2, -W / 2, L, W);
    // windscreen: a dark band a quarter of the way back from the front
    ctx.fillStyle = 'rgba(0, 0, 0, 0.35)';
    ctx.fillRect(L / 2 - L * 0.32, -W / 2 + W * 0.12, L * 0.12, W * 0.76);
    ctx.lineWidth = outlineWidth;
    ctx.strokeStyle = outline;
    ctx.strokeRect(-L / 2, -W / 2, L, W);
    r = Math.hypot(L, W) / 2;
  }
  ctx.restore();
  return { sx: p.x, sy: p.y, r };
}

/** A pedestrian: a filled circle as wide as its footprint (at least MIN_PERSON_RADIUS_PX), a tick along its heading. */
function person(ctx: CanvasRenderingContext2D, view: View, x: number, y: number, yaw: number, length: number, width: number, fill: string, outline: string, outlineWidth: number): { sx: number; sy: number; r: number } {
  const p = view.toScreen(x, y);
  const r = Math.max(MIN_PERSON_RADIUS_PX, (Math.max(length, width) / 2) * view.scale);
  ctx.save();
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.arc(p.x, p.y, r, 0, 2 * Math.PI);
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.lineWidth = outlineWidth;
  ctx.strokeStyle = outline;
  ctx.stroke();
  // the heading: a tick from inside the rim to past it (screen y points down), leaving the centre its colour
  const tick = r + Math.max(3, r * 0.6);
  const c = Math.cos(yaw), s = Math.sin(yaw);
  ctx.beginPath();
  ctx.moveTo(p.x + c * r * 0.5, p.y - s * r * 0.5);
  ctx.lineTo(p.x + c * tick, p.y - s * tick);
  ctx.lineWidth = Math.max(1.5, r * 0.3);
  ctx.strokeStyle = outline;
  ctx.stroke();
  ctx.restore();
  return { sx: p.x, sy: p.y, r };
}

function ring(ctx: CanvasRenderingContext2D, sx: number, sy: number, r: number, colour: string, width: number, dashed = false): void {
  ctx.beginPath();
  ctx.setLineDash(dashed ? [4, 3] : []);
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.lineWidth = width;
  ctx.strokeStyle = colour;
  ctx.stroke();
  ctx.setLineDash([]);
}

/** a label's box on the canvas: x, y, width, height [CSS px] */
export type LabelBox = [number, number, number, number];

/** Draws the live layer; returns the scripted actors drawn and the boxes of the labels placed. */
export function drawOverlay(ctx: CanvasRenderingContext2D, view: View, state: SceneState, opts: OverlayOptions, now: number): { actors: DrawnActor[]; labels: LabelBox[]; people: DrawnPerson[] } {
  const f = state.frame;
  const actors: DrawnActor[] = [];
  const people: DrawnPerson[] = [];
  if (!f) return { actors, labels: [], people };
  const labels: Label[] = [];
  const pos = new Map<number, { x: number; y: number }>();
  for (const n of f.npcs) pos.set(n.id, state.position(n, now));

  if (opts.trails) {
    ctx.lineWidth = 2;
    ctx.lineJoin = 'round';
    for (const n of f.npcs) {
      const tr = state.trails.get(n.id);
      if (!tr || tr.xs.length < 2) continue;
      ctx.beginPath();
      for (let i = 0; i < tr.xs.length; i++) {
        const p = view.toScreen(tr.xs[i], tr.ys[i]);
        if (i === 0) ctx.moveTo(p.x, p.y);
        else ctx.lineTo(p.x, p.y);
      }
      const p = pos.get(n.id) as { x: number; y: number };
      const s = view.toScreen(p.x, p.y);
      ctx.lineTo(s.x, s.y);
      ctx.strokeStyle = npcColour(state, n);
      ctx.globalAlpha = 0.3;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }

  if (opts.goals) {
    for (const n of f.npcs) {
      const d = state.details.get(n.id);
      if (!d || n.actor !== undefined) continue;
      const selected = opts.selected === n.id;
      if (!selected && opts.selected !== null) ctx.globalAlpha = 0.35;
      const colour = npcColour(state, n);
      const p = pos.get(n.id) as { x: number; y: number };
      const a = view.toScreen(p.x, p.y);
      const g = view.toScreen(d.goal_x, d.goal_y);
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(g.x, g.y);
      ctx.lineWidth = selected ? 1.5 : 1;
      ctx.strokeStyle = colour;
      ctx.globalAlpha *= selected ? 0.9 : 0.4;
      ctx.setLineDash(selected ? [] : [4, 4]);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = selected || opts.selected === null ? 1 : 0.35;
      // the goal: a ring with a dot
      ctx.beginPath();
      ctx.arc(g.x, g.y, selected ? 6 : 4, 0, 2 * Math.PI);
      ctx.lineWidth = selected ? 2 : 1.5;
      ctx.strokeStyle = colour;
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(g.x, g.y, 1.5, 0, 2 * Math.PI);
      ctx.fillStyle = colour;
      ctx.fill();
      ctx.globalAlpha = 1;
    }
  }

  for (const n of f.npcs) {
    const p = pos.get(n.id) as { x: number; y: number };
    const colour = npcColour(state, n);
    const actor = n.actor !== undefined;
    const outline = n.offroad ? VEHICLE_COLOURS.offroad : actor ? VEHICLE_COLOURS.actorOutline : 'rgba(0, 0, 0, 0.65)';
    const v = n.kind === 'pedestrian'
      ? person(ctx, view, p.x, p.y, n.yaw, n.length, n.width, colour, actor ? VEHICLE_COLOURS.actorOutline : 'rgba(0, 0, 0, 0.8)', actor ? 2 : 1)
      : vehicle(ctx, view, p.x, p.y, n.yaw, n.length, n.width, colour, outline, actor ? 3 : n.offroad ? 2 : 1, n.offroad);
    if (n.kind === 'pedestrian' || n.kind === 'cyclist') people.push({ id: n.id, kind: n.kind, sx: v.sx, sy: v.sy, r: v.r });
    if (n.actor !== undefined) actors.push({ id: n.id, actor: n.actor, sx: v.sx, sy: v.sy });
    if (n.collided) ring(ctx, v.sx, v.sy, v.r + 5, VEHICLE_COLOURS.collided, 2);
    if (n.offroad) ring(ctx, v.sx, v.sy, v.r + 5, VEHICLE_COLOURS.offroad, 2, true);
    if (opts.selected === n.id) ring(ctx, v.sx, v.sy, v.r + 9, VEHICLE_COLOURS.selected, 2);
    const flags = `${n.collided ? ' · collided' : ''}${n.offroad ? ' · off-road' : ''}`;
    const who = n.kind === 'pedestrian' || n.kind === 'cyclist' ? `${n.kind} ` : '';
    labels.push({
      text: `${actor ? `actor ${n.actor}` : `${who}${n.id}`} · ${n.speed.toFixed(1)} m/s${flags}`, x: v.sx, y: v.sy - v.r - 4, below: v.sy + v.r + 4,
      colour: n.collided ? '#ff9a9a' : n.offroad ? '#ffc57a' : actor ? '#ffb3fa' : '#e9eef2',
      // people after the vehicles: a crowd at a crossing must not hide the cars' labels
      priority: opts.selected === n.id ? 0 : actor ? 1 : flags ? 2 : who ? 3.5 : 3,
    });
  }

  for (const e of f.egos ?? []) {
    const fill = e.stale ? VEHICLE_COLOURS.egoStale : VEHICLE_COLOURS.ego;
    const v = vehicle(ctx, view, e.x, e.y, e.yaw, e.length ?? 4.5, e.width ?? 2, fill, e.stale ? '#c9ced3' : '#ffffff', 2, e.stale);
    if (e.collided) ring(ctx, v.sx, v.sy, v.r + 6, VEHICLE_COLOURS.collided, 3);
    labels.push({
      text: `EGO ${e.ego_id} · ${e.speed.toFixed(1)} m/s${e.stale ? ' · stale' : ''}${e.collided ? ' · collided' : ''}`,
      x: v.sx, y: v.sy - v.r - 4, below: v.sy + v.r + 4, colour: e.stale ? '#b9bfc4' : e.collided ? '#ff9a9a' : '#f3b8fa', priority: 1,
    });
  }

  for (const l of opts.labels ?? []) labels.push({ ...l, priority: 1.5 });
  return { actors, labels: drawLabels(ctx, view, labels), people };
}

/** Labels above their vehicles, most important first, each only where it overlaps none already placed. */
function drawLabels(ctx: CanvasRenderingContext2D, view: View, labels: Label[]): LabelBox[] {
  ctx.font = LABEL_FONT;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  const placed: LabelBox[] = [];
  labels.sort((a, b) => a.priority - b.priority);
  for (const l of labels) {
    const w = ctx.measureText(l.text).width + 8;
    const h = 16;
    if (l.x < 0 || l.x > view.width || l.below < 0 || l.y > view.height) continue; // its vehicle is off screen
    // kept inside the canvas: under the vehicle at the top edge, pushed in at the sides
    const x0 = Math.min(Math.max(l.x - w / 2, 2), view.width - w - 2);
    const y0 = l.y - h < 2 ? l.below : l.y - h;
    if (placed.some(([ax, ay, aw, ah]) => x0 < ax + aw && ax < x0 + w && y0 < ay + ah && ay < y0 + h)) continue;
    placed.push([x0, y0, w, h]);
    ctx.fillStyle = 'rgba(12, 16, 20, 0.72)';
    ctx.beginPath();
    ctx.roundRect(x0, y0, w, h, 4);
    ctx.fill();
    ctx.fillStyle = l.colour;
    ctx.fillText(l.text, x0 + w / 2, y0 + h / 2 + 0.5);
  }
  return placed;
}

export type Hit = { kind: 'npc'; id: number } | { kind: 'ego'; id: string };

/** The vehicle under screen point (sx, sy), if any: inside its box or within 8 px of it, nearest first. */
export function hitTest(view: View, state: SceneState, sx: number, sy: number, now: number): Hit | null {
  const f = state.frame;
  if (!f) return null;
  const m = view.toMap(sx, sy);
  const tol = 8 / view.scale;
  let best: Hit | null = null;
  let bestD = Infinity;
  const test = (x: number, y: number, yaw: number, L: number, W: number, hit: Hit) => {
    const dx = m.x - x, dy = m.y - y;
    const c = Math.cos(yaw), s = Math.sin(yaw);
    const lx = dx * c + dy * s, ly = -dx * s + dy * c;
    if (Math.abs(lx) <= L / 2 + tol && Math.abs(ly) <= W / 2 + tol) {
      const d = Math.hypot(dx, dy);
      if (d < bestD) {
        bestD = d;
        best = hit;
      }
    }
  };
  for (const n of f.npcs) {
    const p = state.position(n, now);
    test(p.x, p.y, n.yaw, n.length, n.width, { kind: 'npc', id: n.id });
  }
  for (const e of f.egos ?? []) test(e.x, e.y, e.yaw, e.length ?? 4.5, e.width ?? 2, { kind: 'ego', id: e.ego_id });
  return best;
}

export function findEgo(state: SceneState, id: string | null): EgoFrameEntry | undefined {
  const egos = state.frame?.egos ?? [];
  return id === null ? egos[0] : egos.find((e) => e.ego_id === id);
}
