/**
 * What the page's parts (canvas, server data, input, actions, spawn gesture, story panel, connection, status bar,
 * inspector) reach of the page and of each other: WebMap (app.ts) implements it and hands itself to them, so they
 * depend on this, not on app.ts, which builds them.
 */
import type { Api } from './api.js';
import type { Hit } from './draw.js';
import type { SceneState } from './scene-state.js';
import type { SignalView } from './signal-view.js';
import type { MapReply, RunState, ServerConfig, ServerStatus } from './types.js';
import type { View } from './view.js';

export type SpawnMode = 'idle' | 'spawn-press' | 'spawn-drag' | 'spawn-goal';

/** An NPC being spawned: where it was pressed, and the heading and speed dragged out so far. */
export interface SpawnDraft {
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

export interface MapHandle {
  /** the scene's path prefix (one server may serve several scenes) */
  readonly base: string;
  readonly api: Api;
  readonly state: SceneState;
  readonly view: View;
  readonly signals: SignalView;
  readonly canvas: {
    readonly el: HTMLCanvasElement;
    /** redraw at the next animation frame */
    dirty: boolean;
    /** the ego the view follows, if any */
    follow: string | null;
    /** ms between frames drawn */
    readonly frameTimes: readonly number[];
    /** NPC goals and trails drawn (G, T) */
    goals: boolean;
    trails: boolean;
    fit(): void;
    toggleFollow(): void;
  };
  readonly data: {
    readonly mapReply: MapReply | null;
    readonly status: ServerStatus | null;
    readonly config: ServerConfig | null;
    loadMap(): Promise<void>;
    loadConfig(): Promise<void>;
    pollDetails(force: boolean): Promise<void>;
  };
  readonly story: {
    onStatus(st: ServerStatus | null): void;
    toggle(open?: boolean): void;
    caseName(): string | null;
  };
  readonly spawn: {
    readonly mode: SpawnMode;
    toggle(): void;
    cancel(): void;
    press(p: { x: number; y: number }, button: number): boolean;
    move(p: { x: number; y: number }): boolean;
    release(): boolean;
    draw(ctx: CanvasRenderingContext2D, v: View): void;
  };
  readonly actions: {
    toggleRun(): Promise<void>;
    clearAll(): Promise<void>;
    reset(): Promise<void>;
    init(): Promise<void>;
    deleteSelected(): Promise<void>;
    spawn(d: SpawnDraft, goal: { x: number; y: number } | null): Promise<void>;
  };
  /** the NPC or ego picked on the map (select() also redraws and asks for the details) */
  selected: Hit | null;
  select(hit: Hit | null): void;
  runState(): RunState | null;
  /** A map reply came (`same`: the map already shown). */
  showMap(m: MapReply, same: boolean): void;
  /** The page's words, four times a second. */
  updateDom(now: number): void;
}
