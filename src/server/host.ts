/**
 * One hosted scene: a session (src/session: the scene, its inputs, its time conductor) and the runner that
 * paces it, with what serving it needs — its WebSocket clients, the frames' encodings, the signal desk, the real
 * cars' clocks, and the settings the REST API shows and changes. The fastify plugins of a scene take one of
 * these. Its other jobs are rooms of their own: the frame encoding (frame-encoder.ts), the status
 * (host-status.ts), the log lines (src/session/log.ts).
 */
import { EgoClocks } from './ego-clocks.js';
import type { GeoFrame } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import type { PolicySession } from '../policy/session.js';
import { checkSettings, DEFAULT_SCENE_CONFIG, InputError, settingDefaults, type LiveScene, type SceneConfig, type SceneSetup } from '../scene/index.js';
import type { Clock } from '../time/clock.js';
import { defaultTimeSettings, type TimeSettings } from '../time/index.js';
import { ClientRegistry } from './clients.js';
import type { SceneInputs } from '../session/inputs.js';
import { FrameEncoder } from './frame-encoder.js';
import { logSceneEvent, logTimeEvent, type Logger } from '../session/log.js';
import { sceneStatus } from './host-status.js';
import { SceneRunner, type PublishedFrame } from '../session/runner.js';
import { SceneSession } from '../session/scene-session.js';
import type { SceneTime } from '../session/scene-time.js';
import type { ServedSession, SessionAttachment } from '../session/served.js';
import { SERVING_SETTINGS, SESSION_SETTINGS, type ServingConfig } from './settings.js';

export type { ServingConfig } from './settings.js';
import { SignalDesk } from './signals.js';
import type { StoryDesk } from '../session/story-desk.js';
import { stopLinesOf, type StopLines } from '../record/foxglove-messages.js';
import type { SignalEntry } from '../scene/signals/signal-entries.js';

export type { Logger } from '../session/log.js';

export const DEFAULT_SERVING_CONFIG: Readonly<ServingConfig> = settingDefaults(SERVING_SETTINGS) as unknown as ServingConfig;

/** Everything GET/PUT /api/config shows and takes. */
export type SessionConfig = SceneConfig & ServingConfig;

export const DEFAULT_CONFIG: Readonly<SessionConfig> = { ...DEFAULT_SCENE_CONFIG, ...DEFAULT_SERVING_CONFIG };

export interface WsCounters {
  messages: number;
  errors: number;
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
export type HostAttachment = SessionAttachment;

export class SceneHost implements ServedSession {
  readonly name: string;
  readonly scene: LiveScene;
  readonly geo: GeoFrame;
  readonly map: LoadedMap;
  readonly policy: PolicySession;
  readonly runner: SceneRunner;
  readonly clients: ClientRegistry;
  readonly serving: ServingConfig;
  readonly counters: WsCounters = { messages: 0, errors: 0 };
  /** the frames' wire forms and encodings, once per frame for every consumer; the clients' broadcast */
  readonly frames: FrameEncoder;
  /** what runs the scene: its inputs and time conductor, advanced once per tick by the runner */
  readonly session: SceneSession;
  /** every input that changes the scene goes through here (logged for recording and exact replay) */
  readonly inputs: SceneInputs;
  /** the time conductor: the world, simulated egos and external simulators as assets */
  readonly time: SceneTime;
  /** junctions and signal groups: what the API shows, live signal input and plan changes (through `inputs`) */
  readonly signals: SignalDesk;
  /** each signal group's stop line by group id (Foxglove draws them in the group's colour) */
  readonly stopLines: StopLines;
  /** the recorder, the Foxglove channels: shown in the status, closed with the host */
  readonly attachments = new Map<string, HostAttachment>();
  /** a served test case (`vils serve --scenario <case.yaml>` with a story), null otherwise */
  story: StoryDesk | null = null;
  /** the real cars' clocks: where each stamped fix belongs on the server's clock (the stream plugin feeds them) */
  readonly egoClocks: EgoClocks;
  private readonly logger?: Logger;

  constructor(private readonly setup: SceneSetup, opts: HostOptions) {
    this.name = opts.name;
    this.scene = setup.scene;
    this.geo = setup.geo;
    this.map = setup.map;
    this.policy = setup.policy;
    this.logger = opts.logger;
    this.serving = { ...DEFAULT_SERVING_CONFIG, ...opts.serving };
    this.clients = new ClientRegistry(() => this.serving.max_queue);
    this.egoClocks = new EgoClocks(() => ({ assumedOffsetS: this.serving.clock_offset_s, maxLatencyS: this.scene.config.ego_timeout_s }));
    const log = this.logger;
    this.session = new SceneSession(this.scene, {
      time: opts.time ?? defaultTimeSettings('realtime'), clock: opts.clock, periodS: () => 1 / this.serving.publish_hz,
      onTimeEvent: (e) => log && logTimeEvent(log, this.name, e),
      onListenerError: (err) => this.logger?.error({ err, scene: this.name }, 'input listener failed'),
    });
    this.inputs = this.session.inputs;
    this.time = this.session.conductor;
    this.runner = new SceneRunner(this.session, {
      publishHz: this.serving.publish_hz,
      clock: opts.clock,
      epochNow: opts.epochNow,
      maxCatchUpS: () => this.serving.max_catch_up_s,
      onError: (err) => this.logger?.error({ err, scene: this.name }, 'simulation step failed'),
    });
    this.frames = new FrameEncoder(this.geo, this.clients);
    this.runner.addSink(this.frames);
    this.signals = new SignalDesk(this.scene, this.inputs, () => this.runner.simNow());
    this.stopLines = stopLinesOf(this.scene.control.layout.groups);
    if (log) this.scene.on((e) => logSceneEvent(log, this.name, e));
  }

  /** the latest frame published */
  get lastFrame(): PublishedFrame | null {
    return this.frames.lastFrame;
  }

  /** The npc_states JSON of a frame, encoded once for every consumer (clients, recorder, Foxglove). */
  frameText(frame: PublishedFrame): string {
    return this.frames.frameText(frame);
  }

  /** The signal group states of a frame as the JSON frame carries them. */
  frameSignals(frame: PublishedFrame): SignalEntry[] {
    return this.frames.frameSignals(frame);
  }

  /** A settings change as an input (logged; made between policy steps), all or nothing. */
  async changeConfig(patch: Partial<SessionConfig>): Promise<SessionConfig> {
    const { publish_hz, max_queue, clock_offset_s, max_catch_up_s, ...scenePatch } = patch;
    void publish_hz;
    void max_queue;
    void clock_offset_s;
    void max_catch_up_s;
    // the whole table's ranges, up front: a refused patch changes nothing
    checkSettings(patch, SESSION_SETTINGS);
    return this.inputs.configure(scenePatch, () => this.configure(patch));
  }

  config(): SessionConfig {
    return { ...this.scene.config, ...this.serving };
  }

  /** Applies a settings patch all or nothing: a refused setting leaves every other one as it was. */
  configure(patch: Partial<SessionConfig>): SessionConfig {
    const { publish_hz, max_queue, clock_offset_s, max_catch_up_s, ...scenePatch } = patch;
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
    if (max_catch_up_s !== undefined) this.serving.max_catch_up_s = max_catch_up_s;
    return this.config();
  }

  status(): Record<string, unknown> {
    return sceneStatus(this);
  }

  async close(): Promise<void> {
    await this.runner.close();
    await this.session.close();
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
