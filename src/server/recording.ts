/**
 * Recording a hosted scene to MCAP (on by default, into recordings/): a frame sink and an input listener
 * that hand JSON messages to a RecordingWriter (src/record), whose thread compresses and writes them.
 *
 * Channels (JSON encoding; schemas from @foxglove/schemas for the foxglove.* ones, so the file opens in
 * Foxglove as is):
 *   /vils/calls          vils.SceneCall        the scene-call log: what replay makes again (essential)
 *   /vils/frame          vils.Frame            every frame: exact NPC states (float64, with each NPC's hold), signal
 *                                              states (float64), egos, timings
 *   /vils/signals        vils.signals          every frame's signal group states (as the Foxglove channel)
 *   /vils/npc_states     vils.npc_states       every frame as sent to the WebSocket clients
 *   /vils/inputs/stream  vils.StreamInput      every message received on the stream, with its arrival time
 *   /vils/inputs/rest    vils.RestCommand      every REST command (not reads), with its reply
 *   /vils/config         vils.Config           the settings at the start and after every change (latched)
 *   /vils/events         vils.SceneEvent       egos connecting, going stale, colliding, …
 *   /vils/scene /vils/map /vils/fix /vils/fixes /vils/tf   Foxglove views (record-foxglove-hz, default 10;
 *                        /vils/fix for the egos only, every NPC's LocationFix is in /vils/fixes)
 * Metadata `vils.session`: the model (path, sha256, its own metadata), the map (path, sha256; the file
 * itself is attached to the first segment), the origin, the scene settings at the start, the session id, the
 * signal groups (ids, junctions, lanes, stop lines) and the signal plans at the start. Live signal inputs and
 * plan changes are scene calls (/vils/calls), so replay makes them again at the same step.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { exactNum, f64ToBase64, packNpcs, packSignals, type SignalGroupInfo } from '../record/exact.js';
import { FOXGLOVE_SCHEMAS, SIGNALS_SCHEMA, egoTransforms, locationFixes, mapUpdate, sceneUpdate, signalsMessage, timeToNs } from '../record/foxglove-messages.js';
import { encodeCallArgs, type FrameRecord, type SceneCallRecord } from '../record/log.js';
import { DEFAULT_FLUSH_S, RecordingWriter, type ChannelSpec } from '../record/writer.js';
import type { SceneEvent } from '../scene/index.js';
import { projectRoot } from '../util/project-root.js';
import type { HostAttachment, SceneHost } from './host.js';
import type { RawInput, SceneCallEvent } from '../session/inputs.js';
import type { FrameSink, PublishedFrame } from '../session/runner.js';
import { npcStatesSchema } from './schemas.js';

export const RECORDING_FORMAT = 'vils-recording/1';
/** the /vils/frame record format: 2 adds the signal states and each NPC's hold, 3 each NPC's kind (log.ts FrameRecord) */
export const FRAME_FORMAT = 3;

export interface RecordingSettings {
  enabled: boolean;
  /** folder (relative to the project folder unless absolute) */
  dir: string;
  /** a segment is finished and the next one started past this size */
  maxFileMb: number;
  /** the oldest recordings in the folder are deleted past this total (0: never) */
  maxTotalMb: number;
  /** Foxglove views (/vils/scene, /vils/fix, …) are recorded this often (0: not at all); the rest at every frame */
  foxgloveHz: number;
  zstdLevel: number;
  /**
   * a chunk is written once it holds this much wall-clock or simulation time [s] — about what a killed process
   * loses; 0: when it passes 1 MB only (the old policy: up to 2.3 s of 20 NPCs at 10 Hz). Default
   * DEFAULT_FLUSH_S (0.25), or VILS_RECORD_FLUSH_S from the environment.
   */
  flushS?: number;
}

/** The flush interval: the setting, else VILS_RECORD_FLUSH_S (seconds, 0 = by size only), else 0.25 s. */
export function recordFlushS(settings: Pick<RecordingSettings, 'flushS'>, env: NodeJS.ProcessEnv = process.env): number {
  if (settings.flushS !== undefined) return settings.flushS;
  const v = env.VILS_RECORD_FLUSH_S;
  if (v === undefined || v.trim() === '') return DEFAULT_FLUSH_S;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`VILS_RECORD_FLUSH_S=${v}: give seconds (0 closes chunks by size only)`);
  return n;
}

export const DEFAULT_RECORDING: Readonly<RecordingSettings> = {
  enabled: true, dir: 'recordings', maxFileMb: 512, maxTotalMb: 8192, foxgloveHz: 10, zstdLevel: 1,
};

export interface RecorderContext {
  mapPath: string;
  intraOpThreads: number;
  version: string;
}

const obj = (properties: Record<string, unknown>, description: string) => ({ type: 'object', description, properties });
const num = { type: 'number' };
const str = { type: 'string' };
const any = {};

const VILS_SCHEMAS: Record<string, object> = {
  'vils.SceneCall': obj({ n: num, kind: str, at_step: num, wall_time: num, args: { type: ['object', 'null'] }, result: any, error: { type: ['string', 'null'] }, unrecorded: str }, 'A call that changed the scene (replay makes it again)'),
  'vils.Frame': obj({
    f: num, calls: num, t: any, step: num, state: str, wall_time: num,
    npcs: { type: 'string', description: 'float64 columns id,x,y,yaw,vx,vy,speed,length,width,goalX,goalY,flags (base64); flags: 1 collided, 2 off-road, 4 auto, bits 3-5 the hold (none, red, yellow, stop_sign, give_way, box, queue)' },
    egos: { type: 'array' }, timings: any, v: { type: 'integer', description: 'frame format (2)' },
    signals: { type: 'string', description: 'float64 columns numeric_id, code (character code), source (0 plan, 1 live, 2 transition), time_to_change_s (NaN: none) (base64)' },
  }, 'A frame with the exact NPC and signal states'),
  'vils.signals': SIGNALS_SCHEMA,
  'vils.npc_states': npcStatesSchema,
  'vils.StreamInput': obj({ client: num, arrival_wall: num, sim_time: num, outcome: str, message: str }, 'A message received on /ws/vils/stream'),
  'vils.RestCommand': obj({ method: str, url: str, body: any, status: num, reply: str, arrival_wall: num, sim_time: num, body_unrecorded: str }, 'A REST command'),
  'vils.Config': obj({ config: { type: 'object' }, run_state: str }, 'The session settings'),
  'vils.SceneEvent': obj({ type: str, ego_id: str, t: num }, 'A scene event'),
};

/** The channels of a recording (exported for tests that write one by hand). */
export function channelSpecs(): ChannelSpec[] {
  const vils = (topic: string, name: string, extra: Partial<ChannelSpec> = {}): ChannelSpec => ({
    topic, messageEncoding: 'json', schema: { name, encoding: 'jsonschema', data: JSON.stringify(VILS_SCHEMAS[name]) }, ...extra,
  });
  const fox = (topic: string, name: string, extra: Partial<ChannelSpec> = {}): ChannelSpec => ({
    topic, messageEncoding: 'json', schema: { name, encoding: 'jsonschema', data: FOXGLOVE_SCHEMAS[name] }, ...extra,
  });
  return [
    vils('/vils/calls', 'vils.SceneCall', { essential: true }),
    vils('/vils/config', 'vils.Config', { latched: true, essential: true }),
    vils('/vils/frame', 'vils.Frame'),
    vils('/vils/npc_states', 'vils.npc_states'),
    vils('/vils/signals', 'vils.signals'),
    vils('/vils/inputs/stream', 'vils.StreamInput'),
    vils('/vils/inputs/rest', 'vils.RestCommand'),
    vils('/vils/events', 'vils.SceneEvent'),
    fox('/vils/map', 'foxglove.SceneUpdate', { latched: true }),
    fox('/vils/scene', 'foxglove.SceneUpdate'),
    fox('/vils/fix', 'foxglove.LocationFix'),
    fox('/vils/fixes', 'foxglove.LocationFixes'),
    fox('/vils/tf', 'foxglove.FrameTransforms'),
  ];
}

/** JSON text of a record, or the error that stopped it (a value nested too deeply overflows the stack). */
function jsonOf(make: () => unknown): { text: string } | { error: string } {
  try {
    return { text: JSON.stringify(make()) };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const nowS = () => (performance.timeOrigin + performance.now()) / 1000;

function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export function recordingDir(settings: Pick<RecordingSettings, 'dir'>): string {
  return isAbsolute(settings.dir) ? settings.dir : join(projectRoot(), settings.dir);
}

export class SceneRecorder implements FrameSink, HostAttachment {
  private readonly ch: Record<string, number> = {};
  private frames = 0;
  private lastVizT = -Infinity;
  private lastVizStep = -1;
  private readonly detach: Array<() => void> = [];
  private closed = false;
  /** scene calls whose arguments could not be encoded (recorded without them: replay stops there) */
  private unencoded = 0;

  private constructor(private readonly host: SceneHost, readonly writer: RecordingWriter, readonly sessionId: string, private readonly settings: RecordingSettings) {
    for (const c of writer.channels) this.ch[c.topic] = writer.channel(c.topic);
  }

  /** Starts recording a host from now on; call it before the host's first reset (createServer does). */
  static async start(host: SceneHost, settings: RecordingSettings, ctx: RecorderContext): Promise<SceneRecorder> {
    const mapBytes = readFileSync(ctx.mapPath);
    const modelBytes = readFileSync(host.policy.modelPath);
    const sessionId = randomBytes(4).toString('hex');
    const startedAt = new Date();
    const session: Record<string, string> = {
      format: RECORDING_FORMAT,
      vils_version: ctx.version,
      scene: host.name,
      session_id: sessionId,
      started_at: startedAt.toISOString(),
      model_path: host.policy.modelPath,
      model_sha256: sha256(modelBytes),
      model_metadata: JSON.stringify(host.policy.metadata),
      policy_mode: JSON.stringify(host.policy.mode),
      intra_op_threads: String(ctx.intraOpThreads),
      map_label: host.map.label,
      map_path: ctx.mapPath,
      map_sha256: sha256(mapBytes),
      origin: JSON.stringify(host.geo.origin),
      scene_config: JSON.stringify(host.scene.config),
      serving_config: JSON.stringify(host.serving),
      node: process.version,
      signal_groups: JSON.stringify(host.scene.control.layout.groups.map((g): SignalGroupInfo => ({
        id: g.id, numeric_id: g.numericId, junction: host.scene.control.layout.junctions[g.junction].junction.id, left: g.left,
        lanes: [...g.lanes], stop_line: g.stopLine.map((p) => [p.x, p.y]),
      }))),
      signal_plans: JSON.stringify(host.scene.control.controller.plans),
      control_options: JSON.stringify(host.scene.controlOptions),
    };
    const writer = await RecordingWriter.open({
      dir: recordingDir(settings),
      baseName: `vils-${host.name}-${stamp(startedAt)}-${sessionId}`,
      maxFileBytes: settings.maxFileMb * 1024 * 1024,
      maxTotalBytes: settings.maxTotalMb * 1024 * 1024,
      zstdLevel: settings.zstdLevel,
      flushS: recordFlushS(settings),
      profile: '',
      metadata: [{ name: 'vils.session', metadata: session }],
      attachments: [{ name: 'map.json', mediaType: 'application/json', data: mapBytes, logTime: timeToNs(startedAt.getTime() / 1000) }],
    }, channelSpecs());
    const rec = new SceneRecorder(host, writer, sessionId, settings);
    rec.attach();
    return rec;
  }

  private attach(): void {
    const host = this.host;
    const t = timeToNs(nowS());
    this.writer.write(this.ch['/vils/map'], t, JSON.stringify(mapUpdate(host.map, nowS())));
    this.writeConfig();
    this.detach.push(host.inputs.onCall((e) => this.onCall(e)));
    this.detach.push(host.inputs.onRaw((e) => this.onRaw(e)));
    host.scene.on((e) => this.onEvent(e));
    host.runner.addSink(this);
    this.detach.push(() => host.runner.removeSink(this));
    host.attachments.set('recording', this);
  }

  private writeConfig(): void {
    this.writer.write(this.ch['/vils/config'], timeToNs(nowS()), JSON.stringify({ config: this.host.config(), run_state: this.host.runner.state }));
  }

  // Every input is recorded, whatever it holds: a record that cannot be encoded whole (the REST edge refuses bodies
  // nested too deeply, so only a path around it could bring one) is recorded without the part that failed, saying
  // why, rather than lost to an exception in a listener.

  private onCall(e: SceneCallEvent): void {
    const head = { n: this.host.inputs.calls - 1, kind: e.call.kind, at_step: e.atStep, wall_time: e.wallTime };
    let json = jsonOf((): SceneCallRecord => ({ ...head, args: encodeCallArgs(e.call), result: e.result, error: e.error }));
    if ('error' in json) {
      // the call is in the log (its number, kind, step, result) but cannot be made again: the recording says so
      this.unencoded++;
      json = { text: JSON.stringify({ ...head, args: null, result: e.result, error: e.error, unrecorded: `arguments not recorded (${json.error})` }) };
    }
    this.writer.write(this.ch['/vils/calls'], timeToNs(e.wallTime), json.text);
    if (e.call.kind === 'configure' || e.call.kind === 'reset') this.writeConfig();
  }

  private onRaw(e: RawInput): void {
    if (e.kind === 'stream') {
      this.writer.write(this.ch['/vils/inputs/stream'], timeToNs(e.arrivalWall), JSON.stringify({
        client: e.client, arrival_wall: e.arrivalWall, sim_time: e.simTime, outcome: e.outcome,
        message: e.text.length > 8192 ? `${e.text.slice(0, 8192)}…` : e.text,
      }));
    } else {
      const rec = { method: e.method, url: e.url, body: e.body, status: e.status, reply: e.reply, arrival_wall: e.arrivalWall, sim_time: e.simTime };
      const json = jsonOf(() => rec);
      this.writer.write(this.ch['/vils/inputs/rest'], timeToNs(e.arrivalWall), 'text' in json ? json.text : JSON.stringify({ ...rec, body: null, body_unrecorded: json.error }));
      // start/pause and serving-only settings never reach the call log: the config channel shows them
      if (e.status < 400) this.writeConfig();
    }
  }

  private onEvent(e: SceneEvent): void {
    if (this.closed) return;
    this.writer.write(this.ch['/vils/events'], timeToNs(nowS()), JSON.stringify('egoId' in e ? { ...e, ego_id: e.egoId } : { ...e, npc_id: e.npcId }));
  }

  publish(frame: PublishedFrame): void {
    const s = frame.snapshot;
    const wall = frame.wallTimeS;
    const t = timeToNs(wall);
    const rec: FrameRecord = {
      f: this.frames++, calls: this.host.inputs.calls, t: exactNum(s.time), step: s.step, state: frame.state, wall_time: wall,
      npcs: f64ToBase64(packNpcs(s.npcs)), egos: s.egos.map((e) => ({ ...e })), timings: s.timings ? { ...s.timings } : null,
      v: FRAME_FORMAT, signals: f64ToBase64(packSignals(s.signals)),
    };
    const w = this.writer;
    w.simTime(s.time);
    w.write(this.ch['/vils/frame'], t, JSON.stringify(rec));
    w.write(this.ch['/vils/npc_states'], t, this.host.frameText(frame));
    w.write(this.ch['/vils/signals'], t, JSON.stringify(signalsMessage(s, wall)));
    const hz = this.settings.foxgloveHz;
    if (hz > 0 && (s.time < this.lastVizT || s.time - this.lastVizT >= 1 / hz - 1e-6 || (frame.state !== 'running' && s.step !== this.lastVizStep))) {
      this.lastVizT = s.time;
      this.lastVizStep = s.step;
      w.write(this.ch['/vils/scene'], t, JSON.stringify(sceneUpdate(s, wall, this.host.stopLines)));
      const fixes = locationFixes(s, wall, this.host.geo);
      // one LocationFix message per ego; every NPC's LocationFix is in /vils/fixes (63 messages a frame
      // more would cost a fifth of the file for the same positions)
      for (const fix of fixes.slice(0, s.egos.length)) w.write(this.ch['/vils/fix'], t, JSON.stringify(fix));
      w.write(this.ch['/vils/fixes'], t, JSON.stringify({ fixes }));
      w.write(this.ch['/vils/tf'], t, JSON.stringify(egoTransforms(s, wall)));
    }
  }

  status(): Record<string, unknown> {
    const st = this.writer.stats;
    return {
      enabled: true,
      session_id: this.sessionId,
      file: st.files[st.files.length - 1] ?? null,
      segments: st.files.length,
      frames: this.frames,
      messages: st.messages,
      bytes_written: st.bytesWritten,
      pending_bytes: st.pendingBytes,
      chunks: st.chunks,
      write_calls: st.writeCalls,
      dropped: st.dropped,
      // the writer thread's own heap, which rss_mb includes and the main thread's heap figures do not
      thread_heap_mb: st.threadHeap ? { used: mb(st.threadHeap.used), total: mb(st.threadHeap.total), external: mb(st.threadHeap.external) } : null,
      replayable: !st.lostEssential && st.error === null && this.unencoded === 0,
      unencoded_calls: this.unencoded,
      error: st.error,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const d of this.detach) d();
    await this.writer.close();
  }

  /** Closes and deletes what was written: a server that could not start recorded no session (vils serve). */
  async discard(): Promise<void> {
    await this.close();
    for (const f of this.writer.stats.files) rmSync(f, { force: true });
  }
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
