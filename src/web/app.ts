/**
 * The web map: a live view of one scene and its controls, the seed's pygame window (§6.2) in a page.
 * Reads the roads once (GET /api/map), the scene from the stream (never sending on it), the NPC goals and
 * the server's figures by polling the REST API once a second; every action is a REST call whose refusal
 * is shown with the server's own words.
 */
import { Api, ApiError, withToken } from './api.js';
import { drawOverlay, findEgo, hitTest, VEHICLE_COLOURS, type Hit } from './draw.js';
import { hasTrafficControl, MapLayer } from './map-layer.js';
import { HOLD_WORDS, SignalLayer, signalSummary } from './signals.js';
import { SceneState } from './scene-state.js';
import { StreamClient, type ConnectionState } from './stream.js';
import type { MapReply, NpcDetail, NpcFrameEntry, NpcStatesFrame, RunState, ServerConfig, ServerStatus } from './types.js';
import { View } from './view.js';
import { timePanelHtml, timeSummary } from './time-panel.js';

/** Spawn drags: this many screen pixels per m/s, up to MAX_SPAWN_SPEED; shorter than DEAD_ZONE_PX is a click. */
export const PX_PER_MPS = 10;
export const MAX_SPAWN_SPEED = 40;
const DEAD_ZONE_PX = 8;
const STATS_KEEP = 1200;

type Mode = 'idle' | 'spawn-press' | 'spawn-drag' | 'spawn-goal';

interface SpawnDraft {
  /** map point pressed */
  x: number;
  y: number;
  /** screen point pressed */
  sx: number;
  sy: number;
  /** rad in the map frame; undefined: along the lane (the server decides) */
  yaw?: number;
  speed: number;
  /** pointer, screen */
  px: number;
  py: number;
}

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page lacks #${id}`);
  return el as T;
};

/** Shield interventions from the status: a count (`shield_overrides`), else the share of NPC-steps (`shield_override_share`), else "–". */
export function shieldText(st: ServerStatus | null): string {
  const q = st?.quality;
  const n = q?.shield_overrides;
  if (typeof n === 'number' && Number.isFinite(n)) return String(n);
  const share = q?.shield_override_share;
  if (typeof share === 'number' && Number.isFinite(share)) return `${(share * 100).toFixed(1)} % of steps`;
  return '–';
}

const fmt = (v: number | undefined | null, digits = 1) => (v === undefined || v === null || !Number.isFinite(v) ? '–' : v.toFixed(digits));
const wrap360 = (d: number) => ((d % 360) + 360) % 360;

export class WebMap {
  readonly api: Api;
  readonly state = new SceneState();
  readonly view = new View();
  layer: MapLayer | null = null;
  /** the signals drawn per frame (null: the map has none) */
  signalLayer: SignalLayer | null = null;
  mapReply: MapReply | null = null;
  status: ServerStatus | null = null;
  config: ServerConfig | null = null;
  conn: ConnectionState = { kind: 'connecting', attempt: 0 };
  mode: Mode = 'idle';
  spawn: SpawnDraft | null = null;
  selected: Hit | null = null;
  /** following an ego: its id, or '' for "the first ego" */
  follow: string | null = null;
  goals = true;
  trails = true;
  /** signal states on the map (S) */
  signals = true;
  /** rAF timestamp deltas and draw durations [ms] */
  readonly frameTimes: number[] = [];
  readonly drawTimes: number[] = [];
  private lastRaf = 0;
  /** something the drawing shows changed (input, details, settings) */
  private dirty = true;
  private drawnFrame: NpcStatesFrame | null = null;
  private drawnView = -1;
  /** the view's version right after the latest fit (-1: never fitted) */
  private fitVersion = -1;
  private lastDom = 0;
  private lastDetails = 0;
  private detailsBusy = false;
  private statusBusy = false;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private dpr = 1;
  private readonly stream: StreamClient;
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private pan: { id: number; x: number; y: number; moved: boolean; button: number } | null = null;
  private pinch: { d: number; mx: number; my: number } | null = null;
  private readonly text = new Map<HTMLElement, string>();

  constructor(readonly base: string) {
    this.api = new Api(base);
    this.canvas = $<HTMLCanvasElement>('map');
    this.ctx = this.canvas.getContext('2d', { alpha: false }) as CanvasRenderingContext2D;
    const wsUrl = withToken(`${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${base}/ws/vils/stream`);
    this.stream = new StreamClient(wsUrl, {
      onFrame: (f, t) => this.onFrame(f, t),
      onState: (s) => this.onConnection(s),
      onServerError: (m) => this.toast(`Server: ${m}`, true),
    });
  }

  start(): void {
    this.bindUi();
    this.resize();
    new ResizeObserver(() => this.resize()).observe($('stage'));
    void this.loadMap();
    void this.loadConfig();
    this.stream.start();
    window.setInterval(() => void this.pollStatus(), 1000);
    window.setInterval(() => void this.pollDetails(false), 1000);
    void this.pollStatus();
    requestAnimationFrame(this.tick);
  }

  // ---- data ----

  private async loadMap(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const m = await this.api.call<MapReply>('GET', '/api/map');
        const same = this.mapReply && this.mapReply.name === m.name && this.mapReply.counts.points === m.counts.points;
        this.mapReply = m;
        this.dirty = true;
        if (!same) {
          this.layer = new MapLayer(m);
          this.fitView();
        }
        const sl = m.traffic_control && hasTrafficControl(m) ? new SignalLayer(m.traffic_control) : null;
        this.signalLayer = sl && !sl.empty ? sl : null;
        $('lbl-signals').hidden = this.signalLayer === null;
        $('lg-signals').hidden = this.signalLayer === null || this.signalLayer.groups.length === 0;
        // the status bar's signals item from the start (its line does not appear under the map later)
        if (this.signalLayer && this.signalLayer.groups.length > 0) $('st-signals-item').hidden = false;
        this.setText($('map-name'), `${m.name} · ${(m.bounds.max_x - m.bounds.min_x).toFixed(0)} × ${(m.bounds.max_y - m.bounds.min_y).toFixed(0)} m`);
        return;
      } catch (err) {
        if (attempt === 0 || attempt % 10 === 0) this.toast(`Cannot load the map: ${(err as Error).message}. Retrying…`, true);
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  private async loadConfig(): Promise<void> {
    try {
      this.config = await this.api.call<ServerConfig>('GET', '/api/config');
      ($('init-n') as HTMLInputElement).value = String(this.config.npc_target);
    } catch {
      /* shown by the connection state */
    }
  }

  private async pollStatus(): Promise<void> {
    if (this.statusBusy) return;
    this.statusBusy = true;
    try {
      this.status = await this.api.call<ServerStatus>('GET', '/api/status');
    } catch {
      this.status = null;
    } finally {
      this.statusBusy = false;
    }
  }

  /** NPC goals and origins (the frames carry neither): every second, and soon after unknown NPCs appear. */
  async pollDetails(force: boolean): Promise<void> {
    const now = performance.now();
    if (this.detailsBusy || (!force && now - this.lastDetails < 250)) return;
    this.detailsBusy = true;
    this.lastDetails = now;
    try {
      const r = await this.api.call<{ npcs: NpcDetail[] }>('GET', '/api/npcs');
      this.state.setDetails(r.npcs);
      this.dirty = true;
      // a paused scene sends a frame once a second: show the result of an action at once
      const f = this.state.frame;
      if (force && f && f.state !== 'running') this.state.frame = { ...f, npcs: r.npcs, metrics: { ...f.metrics, num_active_npcs: r.npcs.length } };
    } catch {
      /* shown by the connection state */
    } finally {
      this.detailsBusy = false;
    }
  }

  private onFrame(f: NpcStatesFrame, t: number): void {
    this.state.onFrame(f, t);
    if (this.state.unknownIds > 0) void this.pollDetails(false);
    if (this.selected?.kind === 'npc' && !f.npcs.some((n) => n.id === (this.selected as { id: number }).id)) this.select(null);
  }

  private onConnection(s: ConnectionState): void {
    const wasLost = this.conn.kind === 'lost';
    this.conn = s;
    if (s.kind === 'open' && wasLost) {
      this.toast('Connected to the server again.');
      void this.loadMap();
      void this.loadConfig();
      void this.pollDetails(true);
    }
    this.updateBanner();
  }

  // ---- drawing ----

  private resize(): void {
    const stage = $('stage');
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    this.dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(w * this.dpr));
    this.canvas.height = Math.max(1, Math.round(h * this.dpr));
    const first = this.view.width <= 1;
    // a view still as fitted (not panned or zoomed since) stays fitted when the page's layout changes
    const fitted = this.view.version === this.fitVersion;
    this.view.resize(w, h);
    if ((first || fitted) && this.layer) this.fitView();
  }

  private readonly tick = (ts: number): void => {
    requestAnimationFrame(this.tick);
    if (this.lastRaf) this.push(this.frameTimes, ts - this.lastRaf);
    this.lastRaf = ts;
    const t0 = performance.now();
    this.followEgo();
    if (t0 - this.lastDom > 250) {
      this.lastDom = t0;
      this.updateDom(t0);
    }
    // draw only when something changed: a new frame, a running scene (moving between frames), the view,
    // the user's input, or a road layer still to be redrawn sharp after a zoom
    const f = this.state.frame;
    const need = this.dirty || f?.state === 'running' || f !== this.drawnFrame || this.view.version !== this.drawnView || (this.layer !== null && !this.layer.isSharp(this.view, this.dpr));
    if (!need) return;
    this.dirty = false;
    this.drawnFrame = f;
    this.drawnView = this.view.version;
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    if (this.layer) this.layer.draw(ctx, this.view, this.dpr, t0);
    else {
      ctx.fillStyle = '#1c2226';
      ctx.fillRect(0, 0, this.view.width, this.view.height);
      ctx.fillStyle = '#9aa6b0';
      ctx.font = '15px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText('Loading the map…', this.view.width / 2, this.view.height / 2);
    }
    // the signals' colours over the roads and under the vehicles; their labels placed with the vehicles'
    const signalLabels = this.signals && this.signalLayer ? this.signalLayer.draw(ctx, this.view, f?.signals, true) : [];
    drawOverlay(ctx, this.view, this.state, { goals: this.goals, trails: this.trails, selected: this.selected?.kind === 'npc' ? this.selected.id : null, labels: signalLabels }, t0);
    this.drawSpawn(ctx);
    this.push(this.drawTimes, performance.now() - t0);
  };

  private push(list: number[], v: number): void {
    list.push(v);
    if (list.length > STATS_KEEP) list.splice(0, list.length - STATS_KEEP);
  }

  private fitView(): void {
    if (!this.layer) return;
    this.view.fit(this.layer.bounds);
    this.fitVersion = this.view.version;
  }

  private followEgo(): void {
    if (this.follow === null) return;
    const e = findEgo(this.state, this.follow || null) ?? findEgo(this.state, null);
    if (e) this.view.centreOn(e.x, e.y);
  }

  private drawSpawn(ctx: CanvasRenderingContext2D): void {
    const d = this.spawn;
    if (!d || this.mode === 'idle' || this.mode === 'spawn-press') return;
    const v = this.view;
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

  // ---- DOM ----

  private setText(el: HTMLElement, s: string): void {
    if (this.text.get(el) === s) return;
    this.text.set(el, s);
    el.textContent = s;
  }

  private runState(): RunState | null {
    return this.state.frame?.state ?? this.status?.state ?? null;
  }

  private updateDom(now: number): void {
    const f = this.state.frame;
    const st = this.status;
    const state = this.runState();
    const stateEl = $('st-state');
    this.setText(stateEl, state ?? '–');
    stateEl.className = `state ${state ?? ''}`;
    const run = $('btn-run');
    run.className = state ?? '';
    this.setText($('btn-run-label'), state === 'running' ? 'Pause' : 'Start');
    this.setText($('st-step'), f ? String(f.step) : '–');
    this.setText($('st-time'), f?.sim_time_s !== undefined ? `${f.sim_time_s.toFixed(1)} s` : '–');
    const rate = this.state.publishRate(now);
    const hz = st?.publish_hz ?? this.config?.publish_hz;
    this.setText($('st-rate'), `${state === 'running' && rate !== null ? `${rate.toFixed(1)} Hz` : '–'}${hz ? ` (${hz})` : ''}`);
    const m = f?.metrics;
    this.setText($('st-timings'), m && m.total_time_ms > 0 ? `sim ${fmt(m.sim_time_ms)} · policy ${fmt(m.policy_time_ms)} · total ${fmt(m.total_time_ms)} ms` : '–');
    this.setText($('st-npcs'), f ? String(f.npcs.length) : '–');
    const egos = f?.egos ?? [];
    const stale = egos.filter((e) => e.stale).length;
    this.setText($('st-egos'), f ? `${egos.length}${stale ? ` (${stale} stale)` : ''}` : '–');
    this.setText($('st-overruns'), st?.loop?.overruns !== undefined ? String(st.loop.overruns) : '–');
    this.setText($('st-clients'), st?.clients !== undefined ? String(st.clients) : '–');
    this.setText($('st-shield'), shieldText(st));
    this.updateTimeSync(st);
    this.updateSignals();
    const ft = this.frameTimes.slice(-60);
    const mean = ft.length ? ft.reduce((a, b) => a + b, 0) / ft.length : 0;
    this.setText($('st-fps'), mean > 0 ? `${(1000 / mean).toFixed(0)} fps` : '–');
    const follow = $('btn-follow');
    follow.setAttribute('aria-pressed', String(this.follow !== null));
    $('btn-add').classList.toggle('active', this.mode !== 'idle');
    this.updateInspector();
    this.updateBanner();
  }

  /** The status bar's time-sync summary and, when open, the panel of assets (time, skew to Tc, held counts). */
  private updateTimeSync(st: ServerStatus | null): void {
    const sum = timeSummary(st?.time);
    const el = $('st-sync');
    this.setText(el, sum.text);
    el.className = `v${sum.bad ? ' bad' : ''}`;
    const panel = $('time-panel');
    if (panel.hidden) return;
    const body = $('time-body');
    const html = timePanelHtml(st?.time);
    if (this.text.get(body) !== html) {
      this.text.set(body, html);
      body.innerHTML = html;
    }
  }

  /** The status bar's signals: each group's state and time to change (a few), else the counts by state. */
  private updateSignals(): void {
    const sum = signalSummary(this.state.frame?.signals);
    const item = $('st-signals-item');
    const groups = this.signalLayer?.groups.length ?? 0;
    item.hidden = sum === null && groups === 0;
    if (!sum) {
      this.setText($('st-signals'), '–');
      return;
    }
    const el = $('st-signals');
    if (this.text.get(el) !== sum.html) {
      this.text.set(el, sum.html);
      el.innerHTML = sum.html;
    }
  }

  /** Why an NPC stands or slows, in words: the rule that holds it (with the signal group), or the queue it is in. */
  holdText(n: NpcFrameEntry, d: NpcDetail | undefined): { text: string; cls?: string } | null {
    const hold = d?.hold;
    if (hold === undefined) return null;
    if (hold === 'none') return { text: n.speed < 0.5 ? 'standing, no rule holds it' : 'not held' };
    const signals = this.state.frame?.signals;
    const sl = this.signalLayer;
    let words = HOLD_WORDS[hold] ?? hold.replace(/_/g, ' ');
    if ((hold === 'red' || hold === 'yellow') && sl) {
      const g = sl.groupAhead(n.x, n.y, n.yaw, signals, (s) => s?.state === hold);
      if (g) words += ` (${g})`;
    } else if (hold === 'queue' && sl) {
      // the queue's head: the nearest signal ahead that does not show green
      const g = sl.groupAhead(n.x, n.y, n.yaw, signals, (s) => s !== undefined && s.state !== 'green' && s.state !== 'green_yield', 150);
      const st = g ? signals?.find((s) => s.id === g) : undefined;
      words = g && st && st.state !== 'green' && st.state !== 'green_yield' ? `in the queue at ${g} (${st.state})` : 'in a queue behind a waiting vehicle';
    }
    const standing = n.speed < 0.5;
    return { text: `${standing ? 'Waiting' : 'Slowing'}: ${words}`, cls: hold === 'red' || hold === 'box' ? 'bad' : 'warn' };
  }

  toggleSignals(show?: boolean): void {
    this.signals = show ?? !this.signals;
    ($('chk-signals') as HTMLInputElement).checked = this.signals;
    this.dirty = true;
  }

  toggleTimePanel(show?: boolean): void {
    const panel = $('time-panel');
    panel.hidden = !(show ?? panel.hidden);
    this.updateTimeSync(this.status);
  }

  private updateBanner(): void {
    const b = $('banner');
    const c = this.conn;
    if (c.kind === 'lost') {
      const secs = Math.max(0, Math.ceil((c.retryAt - Date.now()) / 1000));
      const gone = Math.round((Date.now() - c.since) / 1000);
      this.setText(b, `The server is gone (${c.reason}, ${gone} s ago). Reconnecting by itself: attempt ${c.attempt}, next try ${secs > 0 ? `in ${secs} s` : 'now'}.`);
      b.className = '';
      b.hidden = false;
    } else if (c.kind === 'connecting' && c.attempt === 0 && !this.state.frame) {
      this.setText(b, 'Connecting to the server…');
      b.className = 'info';
      b.hidden = false;
    } else b.hidden = true;
    const el = $('st-conn');
    el.className = `conn ${c.kind}`;
    this.setText(el, c.kind === 'open' ? 'live' : c.kind === 'lost' ? 'reconnecting' : 'connecting…');
  }

  private updateInspector(): void {
    const panel = $('inspector');
    const sel = this.selected;
    if (!sel) {
      panel.hidden = true;
      return;
    }
    const rows: Array<[string, string, string?]> = [];
    const conv = this.mapReply?.convergence_deg ?? 0;
    const heading = (yaw: number) => `${wrap360(90 - (yaw * 180) / Math.PI + conv).toFixed(1)}° (yaw ${yaw.toFixed(3)} rad)`;
    const del = $('insp-delete');
    if (sel.kind === 'npc') {
      const n = this.state.npc(sel.id);
      if (!n) return;
      const d = this.state.details.get(sel.id);
      this.setText($('insp-title'), `NPC ${n.id}${d ? (d.auto ? ' · auto' : ' · spawned on request') : ''}`);
      rows.push(['position', `x ${n.x.toFixed(2)} m, y ${n.y.toFixed(2)} m`]);
      rows.push(['heading', heading(n.yaw)]);
      rows.push(['speed', `${n.speed.toFixed(2)} m/s (${(n.speed * 3.6).toFixed(1)} km/h)`]);
      rows.push(['size', `${n.length.toFixed(1)} × ${n.width.toFixed(1)} m`]);
      rows.push(['goal', d ? `x ${d.goal_x.toFixed(1)}, y ${d.goal_y.toFixed(1)} · ${Math.hypot(d.goal_x - n.x, d.goal_y - n.y).toFixed(1)} m away` : '…']);
      rows.push(['flags', n.collided && n.offroad ? 'collided, off-road' : n.collided ? 'collided' : n.offroad ? 'off-road' : 'none', n.collided ? 'bad' : n.offroad ? 'warn' : undefined]);
      const hold = this.holdText(n, d);
      if (hold) rows.push(['hold', hold.text, hold.cls]);
      this.setText(del, 'Delete NPC');
      del.hidden = false;
      $('insp-follow').hidden = true;
    } else {
      const e = findEgo(this.state, sel.id);
      if (!e) return;
      this.setText($('insp-title'), `Ego ${e.ego_id}`);
      rows.push(['position', `x ${e.x.toFixed(2)} m, y ${e.y.toFixed(2)} m`]);
      rows.push(['heading', heading(e.yaw)]);
      const hs = e.heading_source;
      const sources: Record<string, string> = { reported: 'the car (GNSS heading)', course: 'course over ground', held: 'held (standing or slow)', lane: 'the lane (no course yet)', none: 'unknown (north shown)' };
      if (hs) rows.push([`heading from`, sources[hs] ?? hs, hs === 'lane' || hs === 'none' ? 'warn' : undefined]);
      rows.push(['speed', `${e.speed.toFixed(2)} m/s (${(e.speed * 3.6).toFixed(1)} km/h)`]);
      rows.push(['size', `${(e.length ?? 4.5).toFixed(1)} × ${(e.width ?? 2).toFixed(1)} m`]);
      rows.push(['state', e.stale ? 'stale: no update lately, NPCs do not see it' : 'live', e.stale ? 'warn' : undefined]);
      rows.push(['flags', e.collided ? 'collided' : 'none', e.collided ? 'bad' : undefined]);
      this.setText(del, 'Forget ego');
      del.hidden = false;
      $('insp-follow').hidden = false;
    }
    const dl = $('insp-fields');
    const html = rows.map(([k, v, cls]) => `<dt>${k}</dt><dd${cls ? ` class="${cls}"` : ''}>${v.replace(/[<&>]/g, '')}</dd>`).join('');
    if (this.text.get(dl) !== html) {
      this.text.set(dl, html);
      dl.innerHTML = html;
    }
    panel.hidden = false;
  }

  toast(message: string, error = false): void {
    const box = $('toasts');
    const el = document.createElement('div');
    el.className = `toast${error ? ' error' : ''}`;
    el.textContent = message;
    box.appendChild(el);
    while (box.children.length > 4) box.firstElementChild?.remove();
    window.setTimeout(() => el.classList.add('fade'), error ? 7000 : 3000);
    window.setTimeout(() => el.remove(), error ? 7500 : 3500);
  }

  /** Runs a REST action; a refusal is shown with the server's text. */
  private async act<T>(what: string, f: () => Promise<T>): Promise<T | undefined> {
    try {
      return await f();
    } catch (err) {
      const msg = err instanceof ApiError ? err.message : String(err);
      this.toast(`${what} refused: ${msg}`, true);
      return undefined;
    }
  }

  private select(hit: Hit | null): void {
    this.dirty = true;
    this.selected = hit;
    if (hit?.kind === 'npc') void this.pollDetails(true);
    this.updateInspector();
  }

  // ---- actions ----

  private toggling = false;

  async toggleRun(): Promise<void> {
    // a second press before the server has answered the first would send the same command again
    if (this.toggling) return;
    this.toggling = true;
    try {
      const running = this.runState() === 'running';
      const r = await this.act(running ? 'Pause' : 'Start', () => this.api.call<{ state: RunState }>('POST', running ? '/api/pause' : '/api/start'));
      if (r && this.state.frame) this.state.frame = { ...this.state.frame, state: r.state };
    } finally {
      this.toggling = false;
    }
  }

  async clearAll(): Promise<void> {
    // the scene keeps npc_target NPCs by itself: stop that first, or the map refills on the next step
    const cfg = await this.act('Clear', () => this.api.call<ServerConfig>('PUT', '/api/config', { npc_target: 0 }));
    if (!cfg) return;
    const r = await this.act('Clear', () => this.api.call<{ removed: number }>('DELETE', '/api/npcs'));
    if (r) this.toast(`Removed ${r.removed} NPC${r.removed === 1 ? '' : 's'}; auto-spawn is off (Init NPCs brings them back).`);
    this.select(null);
    void this.pollDetails(true);
  }

  async reset(): Promise<void> {
    const r = await this.act('Reset', () => this.api.call<ServerStatus>('POST', '/api/reset'));
    if (r) this.toast('Reset: the same scenario from time 0.');
    this.state.trails.clear();
    void this.pollDetails(true);
  }

  async init(): Promise<void> {
    const input = $('init-n') as HTMLInputElement;
    const n = Number(input.value);
    if (!Number.isInteger(n) || input.value.trim() === '') {
      this.toast(`Init refused: "${input.value}" is not a whole number of NPCs`, true);
      return;
    }
    const r = await this.act('Init', () => this.api.call<ServerStatus>('POST', '/api/init', { npc_count: n }));
    if (r) this.toast(`New scenario with ${r.npcs ?? n} NPCs.`);
    this.select(null);
    void this.pollDetails(true);
  }

  async deleteSelected(): Promise<void> {
    const sel = this.selected;
    if (!sel) return;
    if (sel.kind === 'npc') {
      const r = await this.act(`Deleting NPC ${sel.id}`, () => this.api.call<{ removed: number }>('DELETE', `/api/npcs/${sel.id}`));
      if (r) this.toast(`NPC ${sel.id} deleted.`);
      void this.pollDetails(true);
    } else {
      const r = await this.act(`Forgetting ego ${sel.id}`, () => this.api.call<{ removed: string }>('DELETE', `/api/egos/${encodeURIComponent(sel.id)}`));
      if (r) this.toast(`Ego ${sel.id} forgotten.`);
    }
    this.select(null);
  }

  toggleFollow(): void {
    if (this.follow !== null) {
      this.follow = null;
      return;
    }
    const sel = this.selected?.kind === 'ego' ? this.selected.id : '';
    if (!findEgo(this.state, sel || null)) {
      this.toast('No ego to follow: no car is sending its position.', true);
      return;
    }
    this.follow = sel;
  }

  fit(): void {
    this.follow = null;
    if (this.layer) this.fitView();
  }

  enterSpawn(): void {
    this.mode = 'spawn-press';
    this.spawn = null;
    this.select(null);
    this.hint('Spawn an NPC: press at the spawn point and drag — direction = heading, length = speed. Esc cancels.');
    this.canvas.classList.add('spawn');
  }

  cancelSpawn(): void {
    this.dirty = true;
    this.mode = 'idle';
    this.spawn = null;
    this.hint(null);
    $('spawn-readout').hidden = true;
    this.canvas.classList.remove('spawn');
  }

  private async submitSpawn(goal: { x: number; y: number } | null): Promise<void> {
    const d = this.spawn;
    if (!d) return;
    this.cancelSpawn();
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    const body: Record<string, unknown> = { x: r3(d.x), y: r3(d.y), speed: d.speed };
    if (d.yaw !== undefined) body.yaw = r3(d.yaw);
    if (goal) body.goal = { x: r3(goal.x), y: r3(goal.y) };
    const r = await this.act('Spawn', () => this.api.call<{ id: number }>('POST', '/api/npcs', body));
    if (!r) return;
    this.toast(`NPC ${r.id} spawned at ${d.speed.toFixed(1)} m/s${goal ? '' : ', goal chosen by the server'}.`);
    await this.pollDetails(true);
    this.selected = { kind: 'npc', id: r.id };
  }

  private hint(text: string | null): void {
    const h = $('hint');
    if (text === null) {
      h.hidden = true;
      return;
    }
    this.setText(h, text);
    h.hidden = false;
  }

  private updateSpawnReadout(d: SpawnDraft): void {
    const el = $('spawn-readout');
    this.setText($('spawn-speed'), d.speed.toFixed(1));
    this.setText($('spawn-kmh'), `(${(d.speed * 3.6).toFixed(0)} km/h)`);
    const conv = this.mapReply?.convergence_deg ?? 0;
    this.setText($('spawn-heading'), d.yaw === undefined ? 'along the lane' : `heading ${wrap360(90 - (d.yaw * 180) / Math.PI + conv).toFixed(0)}°`);
    el.style.left = `${d.px + 16}px`;
    el.style.top = `${d.py + 14}px`;
    el.hidden = false;
  }

  // ---- input ----

  private bindUi(): void {
    const click = (id: string, f: () => unknown) => $(id).addEventListener('click', (e) => {
      (e.currentTarget as HTMLElement).blur();
      void f();
    });
    click('btn-run', () => this.toggleRun());
    click('btn-add', () => (this.mode === 'idle' ? this.enterSpawn() : this.cancelSpawn()));
    click('btn-clear', () => this.clearAll());
    click('btn-reset', () => this.reset());
    click('btn-init', () => this.init());
    click('btn-fit', () => this.fit());
    click('btn-follow', () => this.toggleFollow());
    click('btn-help', () => this.toggleHelp());
    click('st-time-sync', () => this.toggleTimePanel());
    click('time-close', () => this.toggleTimePanel(false));
    click('insp-close', () => this.select(null));
    click('insp-delete', () => this.deleteSelected());
    click('insp-follow', () => {
      this.follow = null;
      this.toggleFollow();
    });
    const goals = $('chk-goals') as HTMLInputElement;
    const trails = $('chk-trails') as HTMLInputElement;
    const signals = $('chk-signals') as HTMLInputElement;
    signals.addEventListener('change', () => this.toggleSignals(signals.checked));
    goals.addEventListener('change', () => {
      this.goals = goals.checked;
      this.dirty = true;
    });
    trails.addEventListener('change', () => {
      this.trails = trails.checked;
      this.dirty = true;
    });
    ($('init-n') as HTMLInputElement).addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void this.init();
    });
    window.addEventListener('keydown', (e) => this.onKey(e));

    const cv = this.canvas;
    cv.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    cv.addEventListener('pointermove', (e) => this.onPointerMove(e));
    cv.addEventListener('pointerup', (e) => this.onPointerUp(e));
    cv.addEventListener('pointercancel', (e) => this.onPointerUp(e));
    cv.addEventListener('contextmenu', (e) => e.preventDefault());
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      const p = this.local(e);
      this.view.zoomAt(Math.exp(-e.deltaY * unit * 0.0015), p.x, p.y);
    }, { passive: false });
  }

  private toggleHelp(force?: boolean): void {
    const h = $('help');
    h.hidden = force === undefined ? !h.hidden : !force;
  }

  private onKey(e: KeyboardEvent): void {
    this.dirty = true;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) {
      if (e.key === 'Escape') t.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    const handled = (f: () => unknown) => {
      e.preventDefault();
      void f();
    };
    switch (k) {
      case ' ': return handled(() => this.toggleRun());
      case 'a': case 'A': return handled(() => (this.mode === 'idle' ? this.enterSpawn() : this.cancelSpawn()));
      case 'c': case 'C': return handled(() => this.clearAll());
      case 'r': case 'R': return handled(() => this.reset());
      case '0': return handled(() => this.fit());
      case 'h': case 'H': case '?': return handled(() => this.toggleHelp());
      case 'y': case 'Y': return handled(() => this.toggleTimePanel());
      case 'f': case 'F': return handled(() => this.toggleFollow());
      case 'g': case 'G': return handled(() => {
        this.goals = !this.goals;
        ($('chk-goals') as HTMLInputElement).checked = this.goals;
      });
      case 't': case 'T': return handled(() => {
        this.trails = !this.trails;
        ($('chk-trails') as HTMLInputElement).checked = this.trails;
      });
      case 's': case 'S': return handled(() => {
        if (this.signalLayer) this.toggleSignals();
      });
      case 'Delete': case 'Backspace': return handled(() => this.deleteSelected());
      case '+': case '=': return handled(() => this.view.zoomAt(1.25, this.view.width / 2, this.view.height / 2));
      case '-': case '_': return handled(() => this.view.zoomAt(0.8, this.view.width / 2, this.view.height / 2));
      case 'Escape': return handled(() => {
        if (this.mode !== 'idle') this.cancelSpawn();
        else if (!$('help').hidden) this.toggleHelp(false);
        else this.select(null);
      });
      default:
    }
  }

  private local(e: MouseEvent): { x: number; y: number } {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private onPointerDown(e: PointerEvent): void {
    this.dirty = true;
    const p = this.local(e);
    this.pointers.set(e.pointerId, p);
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch {
      /* synthetic pointers cannot always be captured */
    }
    if (this.pointers.size === 2) {
      // pinch: zoom about the midpoint, pan with it
      const [a, b] = [...this.pointers.values()];
      this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
      this.pan = null;
      return;
    }
    if (this.mode === 'spawn-press' && e.button === 0) {
      const m = this.view.toMap(p.x, p.y);
      this.spawn = { x: m.x, y: m.y, sx: p.x, sy: p.y, speed: 0, px: p.x, py: p.y };
      this.mode = 'spawn-drag';
      this.updateSpawnReadout(this.spawn);
      return;
    }
    if (this.mode === 'spawn-goal') {
      if (e.button === 0) void this.submitSpawn(this.view.toMap(p.x, p.y));
      else if (e.button === 2) void this.submitSpawn(null);
      return;
    }
    if (this.mode === 'spawn-drag') return;
    if (e.button === 0 || e.button === 1) this.pan = { id: e.pointerId, x: p.x, y: p.y, moved: false, button: e.button };
  }

  private onPointerMove(e: PointerEvent): void {
    const p = this.local(e);
    if (this.mode !== 'idle') this.dirty = true;
    if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, p);
    if (this.pinch && this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      this.follow = null;
      this.view.panBy(mx - this.pinch.mx, my - this.pinch.my);
      if (this.pinch.d > 0 && d > 0) this.view.zoomAt(d / this.pinch.d, mx, my);
      this.pinch = { d, mx, my };
      return;
    }
    const d = this.spawn;
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
      this.updateSpawnReadout(d);
      return;
    }
    if (this.mode === 'spawn-goal' && d) {
      d.px = p.x;
      d.py = p.y;
      return;
    }
    const pan = this.pan;
    if (pan && pan.id === e.pointerId) {
      const dx = p.x - pan.x, dy = p.y - pan.y;
      if (!pan.moved && Math.hypot(dx, dy) < 4) return;
      if (!pan.moved) {
        pan.moved = true;
        this.follow = null;
        this.canvas.classList.add('panning');
      }
      this.view.panBy(dx, dy);
      pan.x = p.x;
      pan.y = p.y;
      return;
    }
    if (this.mode === 'idle' && e.pointerType === 'mouse') {
      this.canvas.classList.toggle('hover', hitTest(this.view, this.state, p.x, p.y, performance.now()) !== null);
    }
  }

  private onPointerUp(e: PointerEvent): void {
    this.dirty = true;
    const p = this.local(e);
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (this.mode === 'spawn-drag' && this.spawn) {
      this.mode = 'spawn-goal';
      this.hint('Now click the goal — right-click to let the server choose one along the lanes. Esc cancels.');
      this.updateSpawnReadout(this.spawn);
      return;
    }
    const pan = this.pan;
    if (pan && pan.id === e.pointerId) {
      this.pan = null;
      this.canvas.classList.remove('panning');
      if (!pan.moved && pan.button === 0 && e.type === 'pointerup') this.select(hitTest(this.view, this.state, p.x, p.y, performance.now()));
    }
  }

  // ---- for tests and the curious: window.__vils ----

  debugHandle() {
    const stats = (list: number[]) => {
      const s = [...list].sort((a, b) => a - b);
      const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN);
      return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / (s.length || 1), p50: q(0.5), p95: q(0.95), max: s[s.length - 1] ?? NaN };
    };
    return {
      mapToScreen: (x: number, y: number) => this.view.toScreen(x, y),
      /** page coordinates (for synthetic mouse events) of a map point */
      mapToPage: (x: number, y: number) => {
        const r = this.canvas.getBoundingClientRect();
        const p = this.view.toScreen(x, y);
        return { x: p.x + r.left, y: p.y + r.top };
      },
      /** the canvas pixel [r, g, b] under a map point */
      pixelAt: (x: number, y: number) => {
        const p = this.view.toScreen(x, y);
        const d = this.ctx.getImageData(Math.round(p.x * this.dpr), Math.round(p.y * this.dpr), 1, 1).data;
        return [d[0], d[1], d[2]];
      },
      screenToMap: (x: number, y: number) => this.view.toMap(x, y),
      view: () => ({ cx: this.view.cx, cy: this.view.cy, scale: this.view.scale, width: this.view.width, height: this.view.height }),
      setView: (cx: number, cy: number, scale: number) => {
        this.follow = null;
        this.view.set(cx, cy, scale);
      },
      resetStats: () => {
        this.frameTimes.length = 0;
        this.drawTimes.length = 0;
        this.lastRaf = 0;
      },
      stats: () => ({ frame: stats(this.frameTimes), draw: stats(this.drawTimes), mapRenders: this.layer?.renders ?? 0, mapRenderMs: this.layer?.lastRenderMs ?? 0, frames: this.state.frames }),
      frameTimes: () => [...this.frameTimes],
      mapLoaded: () => this.layer !== null,
      mapCounts: () => this.mapReply?.counts ?? null,
      signalsShown: () => this.signals && this.signalLayer !== null,
      hasSignalLayer: () => this.signalLayer !== null,
      mode: () => this.mode,
      connection: () => this.conn.kind,
      lastFrame: () => this.state.frame,
    };
  }
}
