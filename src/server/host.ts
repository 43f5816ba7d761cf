/**
 * One hosted scene: the scene and its set-up, the runner that paces it, its WebSocket clients (a frame
 * sink) and the settings and status the REST API shows. The fastify plugins of a scene take one of these.
 */
import type { GeoFrame } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import type { PolicySession } from '../policy/session.js';
import { checkSettings, DEFAULT_SCENE_CONFIG, InputError, settingDefaults, type LiveScene, type SceneConfig, type SceneEvent, type SceneSetup } from '../scene/index.js';
import type { Clock } from '../time/clock.js';
import { defaultTimeSettings, type RunnerEvent, type TimeSettings } from '../time/index.js';
import { ClientRegistry } from './clients.js';
import { SceneInputs } from './inputs.js';
import { RollingStats } from './rolling-stats.js';
import { SceneRunner, type FrameSink, type PublishedFrame } from './runner.js';
import { SceneTime } from './scene-time.js';
import { SERVING_SETTINGS, SESSION_SETTINGS, type ServingConfig } from './settings.js';

export type { ServingConfig } from './settings.js';
import { SignalDesk } from './signals.js';
import { stopLinesOf, type StopLines } from '../record/foxglove-messages.js';
import { egoEntry, NpcFrameBuilder, type NpcStatesFrame, type SignalEntry } from './wire.js';
import { encodeNpcStatesBinary } from './wire-binary.js';

export const DEFAULT_SERVING_CONFIG: Readonly<ServingConfig> = settingDefaults(SERVING_SETTINGS) as unknown as ServingConfig;

/** Everything GET/PUT /api/config shows and takes. */
export type SessionConfig = SceneConfig & ServingConfig;

export const DEFAULT_CONFIG: Readonly<SessionConfig> = { ...DEFAULT_SCENE_CONFIG, ...DEFAULT_SERVING_CONFIG };

export interface WsCounters {
  messages: number;
  errors: number;
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface HostOptions {
  name: string;
  serving?: Partial<ServingConfig>;
  logger?: Logger;
  version?: string;
  /** the runner's clock (default: the system clock); a VirtualClock runs the scene as fast as it can */
  clock?: Clock;
  /** the runner's epoch time source, for a virtual clock */
  epochNow?: () => number;
  /** the time conductor (default: realtime, dmax 100 ms, no external-asset port) */
  time?: TimeSettings;
}

/** Something attached to a host that reports status and is closed with it (the recorder, the Foxglove channels). */
export interface HostAttachment {
  status(): Record<string, unknown>;
  close(): Promise<void>;
}

export class SceneHost implements FrameSink {
  readonly name: string;
  readonly scene: LiveScene;
  readonly geo: GeoFrame;
  readonly map: LoadedMap;
  readonly policy: PolicySession;
  readonly runner: SceneRunner;
  readonly clients: ClientRegistry;
  readonly serving: ServingConfig;
  readonly counters: WsCounters = { messages: 0, errors: 0 };
  readonly encodeMs = new RollingStats(600);
  readonly broadcastMs = new RollingStats(600);
  /** per policy step (from the frames; a batch of steps shows its last): inference and the whole step [ms] */
  readonly inferenceMs = new RollingStats(600);
  readonly stepMs = new RollingStats(600);
  private lastTimings: unknown = null;
  lastFrame: PublishedFrame | null = null;
  /** every input that changes the scene goes through here (logged for recording and exact replay) */
  readonly inputs: SceneInputs;
  /** the time conductor: the world, simulated egos and external simulators as assets (the runner's step driver) */
  readonly time: SceneTime;
  /** junctions and signal groups: what the API shows, live signal input and plan changes (through `inputs`) */
  readonly signals: SignalDesk;
  /** each signal group's stop line by group id (Foxglove draws them in the group's colour) */
  readonly stopLines: StopLines;
  /** the recorder, the Foxglove channels: shown in the status, closed with the host */
  readonly attachments = new Map<string, HostAttachment>();
  private readonly logger?: Logger;
  private textFrame: PublishedFrame | null = null;
  private text = '';
  private wireFrame: PublishedFrame | null = null;
  private wire: NpcStatesFrame | null = null;
  /** the frames' NPC entries (reused) and their projections (once per NPC and position) */
  private readonly frameBuilder = new NpcFrameBuilder();
  private binaryFrame: PublishedFrame | null = null;
  private binary: Buffer = Buffer.alloc(0);

  constructor(private readonly setup: SceneSetup, opts: HostOptions) {
    this.name = opts.name;
    this.scene = setup.scene;
    this.geo = setup.geo;
    this.map = setup.map;
    this.policy = setup.policy;
    this.logger = opts.logger;
    this.serving = { ...DEFAULT_SERVING_CONFIG, ...opts.serving };
    this.clients = new ClientRegistry(() => this.serving.max_queue);
    this.inputs = new SceneInputs(this.scene, (err) => this.logger?.error({ err, scene: this.name }, 'input listener failed'));
    this.time = new SceneTime(this.scene, { settings: opts.time ?? defaultTimeSettings('realtime'), clock: opts.clock, periodS: () => 1 / this.serving.publish_hz, onEvent: (e) => this.logTime(e) });
    this.inputs.driver = this.time;
    this.runner = new SceneRunner(this.inputs.runnerView(), {
      publishHz: this.serving.publish_hz,
      clock: opts.clock,
      epochNow: opts.epochNow,
      onError: (err) => this.logger?.error({ err, scene: this.name }, 'simulation step failed'),
    });
    this.runner.addSink(this);
    this.signals = new SignalDesk(this.scene, this.inputs, () => this.runner.simNow());
    this.stopLines = stopLinesOf(this.scene.control.layout.groups);
    this.scene.on((e) => this.logEvent(e));
  }

  /** The WebSocket sink: one JSON encoding per frame for every client (one binary one for those that asked). */
  publish(frame: PublishedFrame): void {
    this.lastFrame = frame;
    const timings = frame.snapshot.timings;
    if (timings && timings !== this.lastTimings) {
      this.lastTimings = timings;
      this.inferenceMs.push(timings.inference_ms);
      this.stepMs.push(timings.scene_ms);
    }
    if (this.clients.size === 0) return;
    const t0 = performance.now();
    const text = this.frameText(frame);
    const t1 = performance.now();
    this.clients.broadcast(text, () => this.frameBinary(frame));
    this.encodeMs.push(t1 - t0);
    this.broadcastMs.push(performance.now() - t0);
  }

  /** The npc_states JSON of a frame, encoded once for every consumer (clients, recorder, Foxglove). */
  frameText(frame: PublishedFrame): string {
    if (this.textFrame !== frame) {
      this.text = JSON.stringify(this.wireFrameOf(frame));
      this.textFrame = frame;
    }
    return this.text;
  }

  /** The binary npc_states of a frame (wire-binary.ts), encoded once for every client that asked for it. */
  frameBinary(frame: PublishedFrame): Buffer {
    if (this.binaryFrame !== frame) {
      this.binary = encodeNpcStatesBinary(this.wireFrameOf(frame));
      this.binaryFrame = frame;
    }
    return this.binary;
  }

  /** The signal group states of a frame as the JSON frame carries them. */
  frameSignals(frame: PublishedFrame): SignalEntry[] {
    return this.wireFrameOf(frame).signals ?? [];
  }

  /** The wire form of a frame, built once for its JSON and binary encodings (its NPC entries are reused by the next frame's). */
  private wireFrameOf(frame: PublishedFrame): NpcStatesFrame {
    if (this.wireFrame !== frame || !this.wire) {
      this.wire = this.frameBuilder.build(this.geo, frame.snapshot, frame.state, frame.wallTimeS);
      this.wireFrame = frame;
    }
    return this.wire;
  }

  /** A settings change as an input (logged; made between policy steps), all or nothing. */
  async changeConfig(patch: Partial<SessionConfig>): Promise<SessionConfig> {
    const { publish_hz, max_queue, clock_offset_s, ...scenePatch } = patch;
    void publish_hz;
    void max_queue;
    void clock_offset_s;
    // the whole table's ranges, up front: a refused patch changes nothing
    checkSettings(patch, SESSION_SETTINGS);
    return this.inputs.configure(scenePatch, () => this.configure(patch));
  }

  config(): SessionConfig {
    return { ...this.scene.config, ...this.serving };
  }

  /** Applies a settings patch all or nothing: a refused setting leaves every other one as it was. */
  configure(patch: Partial<SessionConfig>): SessionConfig {
    const { publish_hz, max_queue, clock_offset_s, ...scenePatch } = patch;
    this.scene.configure(scenePatch);
    if (publish_hz !== undefined && publish_hz !== this.serving.publish_hz) {
      try {
        this.runner.setPublishHz(publish_hz);
      } catch (err) {
        throw new InputError((err as Error).message);
      }
      this.serving.publish_hz = publish_hz;
    }
    if (max_queue !== undefined) this.serving.max_queue = max_queue;
    if (clock_offset_s !== undefined) this.serving.clock_offset_s = clock_offset_s;
    return this.config();
  }

  status(): Record<string, unknown> {
    const scene = this.scene;
    const stats = this.runner.stats;
    return {
      scene: this.name,
      state: this.runner.state,
      step: scene.steps,
      sim_time_s: Math.round(scene.time * 1000) / 1000,
      publish_hz: this.serving.publish_hz,
      map: this.map.label,
      origin: this.geo.origin,
      convergence_deg: this.geo.originConvergenceDeg,
      policy: this.policy.metadata.source_file ?? this.policy.modelPath,
      egos: scene.snapshot().egos.map(egoEntry),
      npcs: scene.npcCount,
      clients: this.clients.size,
      timings: scene.timings ? roundTimings(scene.timings) : null,
      loop: stats,
      dropped_frames: this.clients.dropped(),
      encode_ms: this.encodeMs.summary(),
      broadcast_ms: this.broadcastMs.summary(),
      inference_ms: this.inferenceMs.summary(),
      step_ms: this.stepMs.summary(),
      ws_messages: this.counters.messages,
      ws_errors: this.counters.errors,
      ego_collision_steps: scene.egoCollisionSteps,
      quality: scene.quality.summary(),
      junctions: scene.control.metrics.summary(),
      time: this.time.status(),
      rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
      ...Object.fromEntries([...this.attachments].map(([k, a]) => [k, a.status()])),
    };
  }

  private logEvent(e: SceneEvent): void {
    const log = this.logger;
    if (!log) return;
    const ctx = { scene: this.name, ego_id: e.egoId, sim_time_s: Math.round(e.t * 1000) / 1000 };
    switch (e.type) {
      case 'ego_connected': return log.info(ctx, `ego ${e.egoId} connected`);
      case 'ego_resumed': return log.info(ctx, `ego ${e.egoId} is live again`);
      case 'ego_stale': return log.warn({ ...ctx, age_s: e.ageS }, `ego ${e.egoId} is stale (no update for ${e.ageS.toFixed(1)} s): NPCs no longer see it`);
      case 'ego_forgotten': return log.info({ ...ctx, reason: e.reason }, `ego ${e.egoId} forgotten (${e.reason})`);
      case 'ego_collided': return log.warn({ ...ctx, npcs: e.npcIds }, `ego ${e.egoId} collided${e.npcIds.length ? ` with NPC ${e.npcIds.join(', ')}` : ''}`);
      case 'ego_ran_red': return log.warn({ ...ctx, junction: e.junction, group: e.group }, `ego ${e.egoId} crossed the stop line of ${e.group} on red`);
    }
  }

  private logTime(e: RunnerEvent): void {
    const log = this.logger;
    if (!log) return;
    const ctx = { scene: this.name, asset: 'name' in e ? e.name : undefined };
    switch (e.type) {
      case 'joined': return log.info({ ...ctx, step_ms: e.status.stepUs / 1000 }, `time asset ${e.name} joined (step ${e.status.stepUs / 1000} ms)`);
      case 'left': return e.reason === 'replaced' ? undefined : log.info({ ...ctx, reason: e.reason }, `time asset ${e.name} left (${e.reason})`);
      case 'lagging': return log.warn({ ...ctx, skew_ms: e.skewUs / 1000 }, `time asset ${e.name} is ${(e.skewUs / 1000).toFixed(0)} ms behind Tc (more than dmax): its outputs are stale; the scene does not wait for it`);
      case 'in_sync': return log.info(ctx, `time asset ${e.name} is in sync again`);
      case 'violation': return log.error({ scene: this.name, invariant: e.violation.invariant }, `time invariant ${e.violation.invariant} broken: ${e.violation.detail}`);
      case 'refused': return; // counted per asset in the status; a burst of them would flood the log
    }
  }

  async close(): Promise<void> {
    await this.runner.close();
    await this.time.close();
    for (const [name, a] of this.attachments) {
      try {
        await a.close();
      } catch (err) {
        this.logger?.error({ err, scene: this.name }, `closing the ${name} failed`);
      }
    }
    this.clients.closeAll();
    await this.setup.release();
  }
}

function roundTimings(t: NonNullable<LiveScene['timings']>) {
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { obs_ms: r(t.obs_ms), inference_ms: r(t.inference_ms), dynamics_ms: r(t.dynamics_ms), engine_ms: r(t.total_ms), scene_ms: r(t.scene_ms), npcs: t.npcs };
}
