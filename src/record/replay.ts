/**
 * Exact replay: a recorded session made again from its scene-call log, on simulation time, against a fresh
 * scene built from the recorded map, settings and model (checked by sha256), with the policy in the
 * recorded (deterministic) mode. The calls are made again through the session's input log
 * (src/session/inputs.ts), the one place where the live side makes them too; the recorded advances are the
 * world's steps and time moves the live session took, so no conductor runs here. Each recorded frame is compared with the replayed scene's snapshot at the
 * same simulation time, every NPC state field bit for bit (float64 patterns) and every signal group's state
 * (code, source, time to change); each call's result and refusal are compared too (live signal inputs and plan
 * changes are scene calls like the others). The first difference is reported with where it happened. A
 * recording made before signal states and NPC holds were recorded (frame format 1) replays with a note: those
 * are then not compared.
 *
 * The replay re-runs the current code: a recording made before a behaviour change replays with differences,
 * which is what it is for (did this change alter what the NPCs do?).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseMapJson, type LoadedMap } from '../map/scene-json.js';
import { resolvePolicyModel } from '../policy/model-files.js';
import { PolicySession, type ActionMode } from '../policy/session.js';
import { LiveScene, type EgoState, type SceneConfig, type SceneSnapshot } from '../scene/index.js';
import {
  NPC_FLAGS_V1_MASK, NPC_FLAGS_V2_MASK, base64ToF64, describeNpcFlags, describeSignalValue, firstNpcDifference, firstSignalDifference, fromExactNum, packNpcs,
  packSignals, unpackNpcs, unpackSignals, type NpcDifference, type SignalDifference, type SignalGroupInfo,
} from './exact.js';
import { SceneInputs } from '../session/inputs.js';
import { decodeCall, type FrameRecord, type SceneCallRecord } from './log.js';
import { decodeJson, readSession, sessionSegments, type ReadEnd } from './reader.js';

export interface SessionInfo {
  format: string;
  scene: string;
  sessionId: string;
  startedAt: string;
  modelPath: string;
  modelSha256: string;
  mode: ActionMode;
  intraOpThreads: number;
  mapLabel: string;
  mapSha256: string;
  origin: { lat: number; lon: number };
  sceneConfig: SceneConfig;
  raw: Record<string, string>;
}

export function parseSessionInfo(m: Map<string, string>): SessionInfo {
  const g = (k: string) => {
    const v = m.get(k);
    if (v === undefined) throw new Error(`recording metadata vils.session lacks "${k}"`);
    return v;
  };
  return {
    format: g('format'), scene: g('scene'), sessionId: g('session_id'), startedAt: g('started_at'),
    modelPath: g('model_path'), modelSha256: g('model_sha256'), mode: JSON.parse(g('policy_mode')) as ActionMode,
    intraOpThreads: Number(g('intra_op_threads')), mapLabel: g('map_label'), mapSha256: g('map_sha256'),
    origin: JSON.parse(g('origin')) as { lat: number; lon: number }, sceneConfig: JSON.parse(g('scene_config')) as SceneConfig,
    raw: Object.fromEntries(m),
  };
}

export interface ReplayOptions {
  /** the ONNX model (default: the recorded path if it exists, else the project's model) */
  modelPath?: string;
  /** replay with a model whose sha256 differs from the recorded one (the comparison will then say how much it matters) */
  allowModelMismatch?: boolean;
  /** keep going after the first difference, counting them */
  all?: boolean;
  onProgress?: (p: { frames: number; simTimeS: number }) => void;
  /** what the replay could not compare and why (default: written to stderr as "note: …"); also in the result */
  onNote?: (note: string) => void;
}

export interface ReplayDifference {
  what: 'npc' | 'npc_count' | 'signal' | 'signal_count' | 'step' | 'call_result' | 'call_error' | 'call_step' | 'call_gap' | 'frame_order';
  /** frame number and simulation time where it was found */
  frame: number | null;
  simTimeS: number;
  step: number;
  /** scene-call number, for call differences */
  call: number | null;
  npc: NpcDifference | null;
  /** for signal differences (absent otherwise) */
  signal?: SignalDifference | null;
  message: string;
}

export interface ReplayResult {
  files: string[];
  session: SessionInfo;
  calls: number;
  frames: number;
  /** NPC states compared (one per NPC per frame) */
  npcStates: number;
  /** signal group states compared (one per group per frame) */
  signalStates: number;
  /** what could not be compared and why (a recording made before signals were recorded, …) */
  notes: string[];
  /** policy steps replayed (across resets) */
  steps: number;
  /** simulation time replayed: steps × 0.1 s */
  simTimeS: number;
  wallS: number;
  /** simulation seconds replayed per wall-clock second */
  speed: number;
  differences: number;
  first: ReplayDifference | null;
  /** files read to their end that were cut short (no footer; the bytes of an unfinished record left over) */
  partial: Array<{ file: string; trailingBytes: number }>;
}

const sha256File = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const fmt = (v: number) => (Object.is(v, -0) ? '-0' : String(v));

export function describeDifference(d: ReplayDifference): string {
  const where = `${d.frame !== null ? `frame ${d.frame}, ` : ''}${d.call !== null ? `call ${d.call}, ` : ''}sim time ${d.simTimeS.toFixed(3)} s, step ${d.step}`;
  return `${where}: ${d.message}`;
}

interface Loaded {
  session: SessionInfo;
  map: LoadedMap;
}

/** Replays a recording (any segment of it names the session); resolves with what it compared and found. */
export async function replayRecording(path: string, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const files = sessionSegments(path);
  const partial: ReplayResult['partial'] = [];
  const t0 = performance.now();
  let loaded: Loaded | null = null;
  let sessionMeta: Map<string, string> | null = null;
  let mapBytes: Uint8Array | null = null;
  let scene: LiveScene | null = null;
  /** the session's input log over the replayed scene: every recorded call is made again through it */
  let inputs: SceneInputs | null = null;
  let policy: PolicySession | null = null;
  let nextCall = 0;
  /** policy steps run by the replay, across resets */
  let totalSteps = 0;
  let frames = 0;
  let npcStates = 0;
  let signalStates = 0;
  const notes: string[] = [];
  const note = (n: string) => {
    if (notes.includes(n)) return;
    notes.push(n);
    (opts.onNote ?? ((m: string) => process.stderr.write(`note: ${m}\n`)))(n);
  };
  let groupIds: Map<number, string> | null = null;
  const groupName = (numericId: number) => {
    groupIds ??= new Map((scene as LiveScene).control.layout.groups.map((g) => [g.numericId, g.id]));
    return groupIds.get(numericId) ?? `#${numericId}`;
  };
  let differences = 0;
  let first: ReplayDifference | null = null;
  let stopped = false;

  const differ = (d: ReplayDifference) => {
    differences++;
    first ??= d;
    if (!opts.all) stopped = true;
  };

  const build = async (): Promise<LiveScene> => {
    if (!sessionMeta) throw new Error(`${files[0]}: no vils.session metadata before the first call (not a VILS recording?)`);
    if (!mapBytes) throw new Error(`${files[0]}: the map (attachment map.json) is missing`);
    const session = parseSessionInfo(sessionMeta);
    const map = parseMapJson(JSON.parse(Buffer.from(mapBytes).toString('utf8')), session.mapLabel);
    loaded = { session, map };
    const modelPath = opts.modelPath ?? (existsSync(session.modelPath) ? session.modelPath : resolvePolicyModel());
    const sha = sha256File(modelPath);
    if (sha !== session.modelSha256 && !opts.allowModelMismatch) {
      throw new Error(`model ${modelPath} (sha256 ${sha.slice(0, 12)}…) is not the recorded one (${session.modelSha256.slice(0, 12)}…, ${session.modelPath}); give --model, or --allow-model-mismatch`);
    }
    policy = await PolicySession.load(modelPath, { intraOpThreads: session.intraOpThreads || 1, mode: session.mode });
    // the scene's signal options as recorded (a scenario's plans, signals on every junction); none in older recordings
    const control = session.raw.control_options !== undefined ? JSON.parse(session.raw.control_options) as LiveScene['controlOptions'] : {};
    const replayed = new LiveScene(map, policy, session.sceneConfig, control);
    const plans = session.raw.signal_plans;
    if (plans !== undefined && plans !== JSON.stringify(replayed.control.controller.plans)) {
      note('the signal plans this code derives for the map at the start differ from the recorded ones (the plan generator changed since the recording): signal states will differ');
    }
    return replayed;
  };

  try {
    const onEnd = (file: string, end: ReadEnd) => {
      if (!end.complete) partial.push({ file, trailingBytes: end.trailingBytes });
    };
    for await (const item of readSession(files, { topics: new Set(['/vils/calls', '/vils/frame']) }, onEnd)) {
      if (stopped) break;
      if (item.type === 'metadata') {
        if (item.name === 'vils.session' && item.segment === 0) sessionMeta = item.metadata;
        continue;
      }
      if (item.type === 'attachment') {
        if (item.name === 'map.json' && item.segment === 0) mapBytes = item.data;
        continue;
      }
      const msg = item.message;
      scene ??= await build();
      inputs ??= new SceneInputs(scene);
      if (msg.topic === '/vils/calls') {
        const rec = decodeJson<SceneCallRecord>(msg.data);
        if (rec.n !== nextCall) {
          differ({ what: 'call_gap', frame: null, simTimeS: scene.time, step: scene.steps, call: nextCall, npc: null, message: `the call log jumps from call ${nextCall - 1} to ${rec.n}: calls were lost while recording, exact replay stops here` });
          stopped = true;
          break;
        }
        nextCall++;
        const call = decodeCall(rec);
        // a call's step is logged as it stood after the call: the same as before it, but for a step or a reset
        if (call.kind !== 'advance' && call.kind !== 'reset' && scene.steps !== rec.at_step) {
          differ({ what: 'call_step', frame: null, simTimeS: scene.time, step: scene.steps, call: rec.n, npc: null, message: `${rec.kind} was made after step ${rec.at_step}, replay is at step ${scene.steps}` });
        }
        const before = scene.steps;
        const out = inputs.apply(call);
        if (call.kind === 'advance') totalSteps += scene.steps - before;
        if (out.error !== rec.error) {
          differ({ what: 'call_error', frame: null, simTimeS: scene.time, step: scene.steps, call: rec.n, npc: null, message: `${rec.kind}: recorded ${rec.error === null ? 'success' : `refusal "${rec.error}"`}, replay ${out.error === null ? 'succeeded' : `refused: "${out.error}"`}` });
        } else if (out.result !== rec.result) {
          differ({ what: rec.kind === 'advance' ? 'step' : 'call_result', frame: null, simTimeS: scene.time, step: scene.steps, call: rec.n, npc: null, message: `${rec.kind}: recorded result ${JSON.stringify(rec.result)}, replay ${JSON.stringify(out.result)}` });
        }
        continue;
      }
      // a frame
      const rec = decodeJson<FrameRecord>(msg.data);
      const t = fromExactNum(rec.t, 'frame t');
      if (rec.calls !== nextCall) {
        differ({ what: 'frame_order', frame: rec.f, simTimeS: t, step: scene.steps, call: nextCall, npc: null, message: `frame taken after ${rec.calls} calls, replay has made ${nextCall}` });
        continue;
      }
      frames++;
      const snap = scene.snapshot(t);
      if (snap.step !== rec.step) {
        differ({ what: 'step', frame: rec.f, simTimeS: t, step: snap.step, call: null, npc: null, message: `recorded step ${rec.step}, replay at step ${snap.step}` });
        continue;
      }
      // frame format 2 holds the signal states and every NPC's hold; an older recording is compared without them
      const v2 = (rec.v ?? 1) >= 2;
      if (!v2) note('this recording was made before signal states and NPC holds were recorded (frame format 1): NPC states are compared without their hold, signal states not at all');
      const expected = base64ToF64(rec.npcs);
      const actual = packNpcs(snap.npcs);
      npcStates += snap.npcs.length;
      // frame format 3 adds each NPC's kind: an older recording is compared without it
      const v3 = (rec.v ?? 1) >= 3;
      if (v2 && !v3) note('this recording was made before NPC kinds were recorded (frame format 2): NPC states are compared without their kind');
      const d = firstNpcDifference(expected, actual, v3 ? undefined : v2 ? NPC_FLAGS_V2_MASK : NPC_FLAGS_V1_MASK);
      if (d) {
        const message = d.field === 'count'
          ? `recorded ${d.expected} NPCs, replay has ${d.actual}`
          : d.field === 'flags'
            ? `NPC ${d.id} (#${d.index}) flags: recorded ${fmt(d.expected)} (${describeNpcFlags(d.expected)}), replay ${fmt(d.actual)} (${describeNpcFlags(d.actual)})`
            : `NPC ${d.id} (#${d.index}) ${d.field}: recorded ${fmt(d.expected)}, replay ${fmt(d.actual)}`;
        differ({ what: d.field === 'count' ? 'npc_count' : 'npc', frame: rec.f, simTimeS: t, step: snap.step, call: null, npc: d, message });
      }
      if (v2 && !stopped) {
        const se = base64ToF64(rec.signals ?? '');
        const sa = packSignals(snap.signals);
        signalStates += snap.signals.length;
        const sd = firstSignalDifference(se, sa);
        if (sd) {
          const message = sd.field === 'count'
            ? `recorded ${sd.expected} signal groups, replay has ${sd.actual}`
            : `signal group ${groupName(sd.numeric_id)} (#${sd.index}) ${sd.field}: recorded ${describeSignalValue(sd.field, sd.expected)}, replay ${describeSignalValue(sd.field, sd.actual)}`;
          differ({ what: sd.field === 'count' ? 'signal_count' : 'signal', frame: rec.f, simTimeS: t, step: snap.step, call: null, npc: null, signal: sd, message });
        }
      }
      if (opts.onProgress && frames % 500 === 0) opts.onProgress({ frames, simTimeS: t });
    }
  } finally {
    await (policy as PolicySession | null)?.release();
  }
  if (!loaded) throw new Error(`${files[0]}: no scene calls recorded (an empty or truncated recording)`);
  const wallS = (performance.now() - t0) / 1000;
  const simTimeS = totalSteps * 0.1;
  return {
    files, session: (loaded as Loaded).session, calls: nextCall, frames, npcStates, signalStates, notes, steps: totalSteps, simTimeS, wallS,
    speed: wallS > 0 ? simTimeS / wallS : 0, differences, first, partial,
  };
}

/** The signal groups a recording names (session metadata `signal_groups`), by numeric id; empty for older recordings. */
export function recordedSignalGroups(session: SessionInfo): Map<number, SignalGroupInfo> {
  const text = session.raw.signal_groups;
  if (!text) return new Map();
  try {
    const list = JSON.parse(text) as SignalGroupInfo[];
    return new Map(list.map((g) => [g.numeric_id, g]));
  } catch {
    return new Map();
  }
}

/**
 * A recorded frame as a snapshot (for playback): exact NPC states (with their holds), the recorded egos, timings
 * and signal states (none in a recording made before signals were recorded); `groups` names the signal groups.
 */
export function frameSnapshot(rec: FrameRecord, groups?: ReadonlyMap<number, SignalGroupInfo>): SceneSnapshot {
  return {
    time: fromExactNum(rec.t, 'frame t'), step: rec.step, npcs: unpackNpcs(base64ToF64(rec.npcs)),
    egos: rec.egos as unknown as EgoState[], timings: rec.timings as SceneSnapshot['timings'],
    signals: rec.signals ? unpackSignals(base64ToF64(rec.signals), groups) : [],
  };
}
