/** The map canvas: its size, the animation-frame loop that draws roads, signals, vehicles and the spawn gesture when something changed, fit and follow, frame-time figures. */
import type { MapHandle } from './map-handle.js';
import { $ } from './dom.js';
import { drawOverlay, findEgo, type DrawnActor, type DrawnPerson, type LabelBox } from './draw.js';
import { MapLayer } from './map-layer.js';
import { toast } from './toasts.js';
import { updateFrameFigures } from './status-bar.js';
import type { MapReply, NpcStatesFrame } from './types.js';

const STATS_KEEP = 1200;

export class MapCanvas {
  readonly el: HTMLCanvasElement;
  readonly ctx: CanvasRenderingContext2D;
  dpr = 1;
  /** the roads, drawn into a cache (null until the map came) */
  layer: MapLayer | null = null;
  /** following an ego: its id (null: not following) */
  follow: string | null = null;
  goals = true;
  trails = true;
  /** something the drawing shows changed (input, details, settings) */
  dirty = true;
  /** rAF timestamp deltas and draw durations [ms] */
  readonly frameTimes: number[] = [];
  readonly drawTimes: number[] = [];
  /** the test case's scripted actors in the latest drawing */
  actorsDrawn: DrawnActor[] = [];
  peopleDrawn: DrawnPerson[] = [];
  private peopleSeen = false;
  /** the labels of the latest drawing (the browser tests leave out the road they cover) */
  labelsDrawn: LabelBox[] = [];
  private lastRaf = 0;
  /** the frame the latest drawing showed */
  drawnFrame: NpcStatesFrame | null = null;
  private drawnView = -1;
  /** the view's version right after the latest fit (-1: never fitted) */
  private fitVersion = -1;
  private lastDom = 0;

  constructor(private readonly page: MapHandle) {
    this.el = $<HTMLCanvasElement>('map');
    this.ctx = this.el.getContext('2d', { alpha: false }) as CanvasRenderingContext2D;
  }

  /** A map reply came: its roads (`same`: the map already shown, keep its layer and the view). */
  setMap(m: MapReply, same: boolean): void {
    this.dirty = true;
    if (!same) {
      this.layer = new MapLayer(m);
      $('lg-bump').hidden = !this.layer.hasBumps;
      this.fitView();
    }
  }

  resize(): void {
    const view = this.page.view;
    const stage = $('stage');
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    const pxW = Math.max(1, Math.round(w * dpr));
    const pxH = Math.max(1, Math.round(h * dpr));
    // setting a canvas's size clears it, even to the size it has: only a real change does, and then the
    // picture is drawn again at once, so no paint (and no read) ever sees a blank canvas between frames
    if (pxW === this.el.width && pxH === this.el.height && dpr === this.dpr && view.width === w && view.height === h) return;
    this.dpr = dpr;
    this.el.width = pxW;
    this.el.height = pxH;
    const first = view.width <= 1;
    // a view still as fitted (not panned or zoomed since) stays fitted when the page's layout changes
    const fitted = view.version === this.fitVersion;
    view.resize(w, h);
    if ((first || fitted) && this.layer) this.fitView();
    this.draw(performance.now());
  }

  readonly tick = (ts: number): void => {
    requestAnimationFrame(this.tick);
    const { page, view } = this;
    if (this.lastRaf) this.push(this.frameTimes, ts - this.lastRaf);
    this.lastRaf = ts;
    const t0 = performance.now();
    this.followEgo();
    const f = page.state.frame;
    if (t0 - this.lastDom > 250) {
      this.lastDom = t0;
      page.updateDom(t0);
    } else if (f !== this.drawnFrame) updateFrameFigures(page); // a new frame: the bar shows what the map is about to draw
    // draw only when something changed: a new frame, a running scene (moving between frames), the view,
    // the user's input, or a road layer still to be redrawn sharp after a zoom
    const need = this.dirty || f?.state === 'running' || f !== this.drawnFrame || view.version !== this.drawnView || (this.layer !== null && !this.layer.isSharp(view, this.dpr));
    if (need) this.draw(t0);
  };

  private draw(t0: number): void {
    const { page, view } = this;
    const f = page.state.frame;
    this.dirty = false;
    this.drawnFrame = f;
    this.drawnView = view.version;
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    if (this.layer) this.layer.draw(ctx, view, this.dpr, t0);
    else {
      ctx.fillStyle = '#1c2226';
      ctx.fillRect(0, 0, view.width, view.height);
      ctx.fillStyle = '#9aa6b0';
      ctx.font = '15px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText('Loading the map…', view.width / 2, view.height / 2);
    }
    // the signals' colours over the roads and under the vehicles; their labels placed with the vehicles'
    const signalLabels = page.signals.draw(ctx, view, f?.signals);
    const sel = page.selected;
    const drawn = drawOverlay(ctx, view, page.state, { goals: this.goals, trails: this.trails, selected: sel?.kind === 'npc' ? sel.id : null, labels: signalLabels }, t0);
    this.actorsDrawn = drawn.actors;
    this.peopleDrawn = drawn.people;
    // the legend's people entry once any are in the scene
    if (drawn.people.length > 0 && !this.peopleSeen) {
      this.peopleSeen = true;
      $('lg-people').hidden = false;
    }
    this.labelsDrawn = drawn.labels;
    page.spawn.draw(ctx, view);
    this.push(this.drawTimes, performance.now() - t0);
  }

  private push(list: number[], v: number): void {
    list.push(v);
    if (list.length > STATS_KEEP) list.splice(0, list.length - STATS_KEEP);
  }

  resetStats(): void {
    this.frameTimes.length = 0;
    this.drawTimes.length = 0;
    this.lastRaf = 0;
  }

  private get view() {
    return this.page.view;
  }

  private fitView(): void {
    if (!this.layer) return;
    this.view.fit(this.layer.bounds);
    this.fitVersion = this.view.version;
  }

  private followEgo(): void {
    if (this.follow === null) return;
    const state = this.page.state;
    const e = findEgo(state, this.follow);
    if (!e) {
      // the ego followed is gone from the frames (forgotten after ego_forget_s without a fix, a reset, DELETE
      // /api/egos): following ends, saying so, and the view is the user's again (it stayed lit, the view still)
      const who = this.follow;
      this.follow = null;
      this.showFollow();
      toast(`Follow ego ended: ego ${who} is no longer in the scene (forgotten).`);
      return;
    }
    this.view.centreOn(e.x, e.y);
  }

  toggleFollow(): void {
    if (this.follow !== null) {
      this.follow = null;
      this.showFollow();
      return;
    }
    const sel = this.page.selected?.kind === 'ego' ? this.page.selected.id : '';
    const e = findEgo(this.page.state, sel || null);
    if (!e) {
      toast('No ego to follow: no car is sending its position.', true);
      return;
    }
    this.follow = e.ego_id; // that ego, the selected one or else the first: following ends when it is gone
    this.showFollow();
  }

  /** The Follow button lit or not at once (the status bar keeps it so at each frame too). */
  private showFollow(): void {
    $('btn-follow').setAttribute('aria-pressed', String(this.follow !== null));
  }

  fit(): void {
    this.follow = null;
    if (this.layer) this.fitView();
  }
}
