/**
 * The web map: a live view of one scene and its controls, the seed's pygame window (§6.2) in a page.
 * Reads the roads once (GET /api/map), the scene from the stream (never sending on it), the NPC goals and
 * the server's figures by polling the REST API once a second; every action is a REST call whose refusal
 * is shown with the server's own words. WebMap puts the parts together and holds what they share: the
 * scene, the view and the selection.
 */
import { Actions } from './actions.js';
import { Api } from './api.js';
import { Connection } from './connection.js';
import { $, setText } from './dom.js';
import type { Hit } from './draw.js';
import { Input } from './input.js';
import { updateInspector } from './inspector.js';
import type { MapHandle } from './map-handle.js';
import { MapCanvas } from './map-canvas.js';
import { SceneState } from './scene-state.js';
import { ServerData } from './server-data.js';
import { SignalView } from './signal-view.js';
import { SpawnGesture } from './spawn.js';
import { StoryPanel } from './story-panel.js';
import { updateStatusBar } from './status-bar.js';
import type { MapReply, RunState } from './types.js';
import { View } from './view.js';

export class WebMap implements MapHandle {
  readonly api: Api;
  readonly state = new SceneState();
  readonly view = new View();
  readonly canvas: MapCanvas;
  readonly data: ServerData;
  readonly signals: SignalView;
  /** the test case the scene serves, if any */
  readonly story: StoryPanel;
  readonly spawn: SpawnGesture;
  readonly actions: Actions;
  readonly input: Input;
  readonly connection: Connection;
  selected: Hit | null = null;

  constructor(readonly base: string) {
    this.api = new Api(base);
    this.canvas = new MapCanvas(this);
    this.data = new ServerData(this);
    this.signals = new SignalView(() => (this.canvas.dirty = true));
    this.story = new StoryPanel(this);
    this.spawn = new SpawnGesture(this);
    this.actions = new Actions(this);
    this.input = new Input(this);
    this.connection = new Connection(this);
  }

  start(): void {
    const { data } = this;
    this.input.bind();
    this.story.bind();
    this.canvas.resize();
    new ResizeObserver(() => this.canvas.resize()).observe($('stage'));
    void data.loadMap();
    void data.loadConfig();
    this.connection.start();
    window.setInterval(() => void data.pollStatus(), 1000);
    window.setInterval(() => void data.pollDetails(false), 1000);
    void data.pollStatus();
    requestAnimationFrame(this.canvas.tick);
  }

  /** A map reply came (`same`: the map already shown): roads, signals, the map's name. */
  showMap(m: MapReply, same: boolean): void {
    this.canvas.setMap(m, same);
    this.signals.setMap(m);
    setText($('map-name'), `${m.name} · ${(m.bounds.max_x - m.bounds.min_x).toFixed(0)} × ${(m.bounds.max_y - m.bounds.min_y).toFixed(0)} m`);
  }

  runState(): RunState | null {
    return this.state.frame?.state ?? this.data.status?.state ?? null;
  }

  select(hit: Hit | null): void {
    this.canvas.dirty = true;
    this.selected = hit;
    if (hit?.kind === 'npc') void this.data.pollDetails(true);
    updateInspector(this);
  }

  /** The page's words, four times a second. */
  updateDom(now: number): void {
    updateStatusBar(this, now);
    updateInspector(this);
    this.connection.updateBanner();
  }
}
