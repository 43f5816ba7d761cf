/**
 * Signals in recordings: a real server on a fast clock records a session with live signal inputs (REST and a
 * roadside unit's stream of signal_input messages), a refused one, a plan change and a release; the recording
 * holds the signal states of every frame (/vils/frame exactly, /vils/signals for Foxglove) and the inputs as
 * scene calls, and `replayRecording` makes it again with 0 differences in NPC states (their holds included)
 * and signal states. A tampered copy is reported at the tampered frame, and a copy in the older frame format
 * (no signals, no holds) replays with a note instead of a crash.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  RecordingWriter, base64ToF64, decodeJson, describeDifference, f64ToBase64, readRecording, replayRecording, unpackSignals, NPC_HOLDS,
  type FrameRecord, type RecordItem, type SceneCallRecord,
} from '../../src/record/index.js';
import { FastClock } from './fast-clock.js';
import { startServer } from '../helpers/server-fixture.js';


const SIM_SECONDS = 45;
let dir: string;
let file: string;
const replies: Record<string, number[]> = { live: [], refused: [], plan: [], release: [] };
let acks = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vils-sigrec-'));
  const clock = new FastClock(0);
  const { server, url, wsUrl } = await startServer({
    config: { npc_target: 10, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(),
    recording: { dir, maxFileMb: 512, maxTotalMb: 0, foxgloveHz: 2 },
  });
  const host = server.host;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.status;
  };
  // a roadside unit: one signal_input per frame (10 Hz of simulation time) from 12 s to 18 s
  const rsu = new WebSocket(wsUrl);
  await new Promise((r) => rsu.once('open', r));
  rsu.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { type: string; sim_time_s?: number };
    if (m.type === 'signal_ack') acks++;
    if (m.type !== 'npc_states' || m.sim_time_s === undefined) return;
    if (m.sim_time_s >= 12 && m.sim_time_s < 18) rsu.send(JSON.stringify({ type: 'signal_input', data: { junction: 'J1', phase: 3, timeout_s: 1 } }));
  });
  const script: Array<[number, () => Promise<void>]> = [
    [3, async () => { replies.live.push(await call('PUT', '/api/signals/J1', { states: { 'J1.A': 'G' }, timeout_s: 6 })); }],
    [5, async () => { replies.refused.push(await call('PUT', '/api/signals/J1', { states: { 'J1.A': 'G', 'J1.B': 'G' } })); }],
    [20, async () => { replies.plan.push(await call('PUT', '/api/signals/J1/plan', { green_s: [15, 20], offset_s: 3 })); }],
    [24, async () => { replies.live.push(await call('PUT', '/api/signals/J1', { phase: 0, timeout_s: 60 })); }],
    [30, async () => { replies.release.push(await call('DELETE', '/api/signals/J1')); }],
    // vehicle-actuated from here: the greens follow the NPCs detected, which replay must make again exactly
    [34, async () => { replies.plan.push(await call('PUT', '/api/signals/J1/plan', { actuated: true })); }],
  ];
  while (host.runner.simNow() < SIM_SECONDS) {
    if (script.length && host.runner.simNow() >= script[0][0]) await script.shift()![1]();
    await new Promise((r) => setTimeout(r, 2));
  }
  rsu.close();
  await server.close();
  const files = readdirSync(dir).filter((n) => n.endsWith('.mcap'));
  expect(files).toHaveLength(1);
  file = join(dir, files[0]);
}, 120_000);

async function all(path: string): Promise<RecordItem[]> {
  const out: RecordItem[] = [];
  for await (const item of readRecording(path)) out.push(item);
  return out;
}

/** A copy of a recording with its calls, frames, metadata and map, each frame passed through `edit`. */
async function rewrite(src: string, name: string, edit: (f: FrameRecord) => FrameRecord): Promise<string> {
  const items = await all(src);
  const meta = items.filter((i) => i.type === 'metadata');
  const attachments = items.filter((i) => i.type === 'attachment');
  const writer = await RecordingWriter.open({
    dir, baseName: name, maxFileBytes: 1 << 30, maxTotalBytes: 0, zstdLevel: 1,
    metadata: meta.map((m) => ({ name: m.type === 'metadata' ? m.name : '', metadata: Object.fromEntries(m.type === 'metadata' ? m.metadata : []) })),
    attachments: attachments.map((a) => (a.type === 'attachment' ? { name: a.name, mediaType: a.mediaType, data: a.data, logTime: 0n } : (null as never))),
  }, ['/vils/calls', '/vils/frame'].map((topic) => ({ topic, messageEncoding: 'json', schema: null })));
  for (const i of items) {
    if (i.type !== 'message' || (i.message.topic !== '/vils/calls' && i.message.topic !== '/vils/frame')) continue;
    const text = i.message.topic === '/vils/frame' ? JSON.stringify(edit(decodeJson<FrameRecord>(i.message.data))) : i.message.data;
    writer.write(writer.channel(i.message.topic), i.message.logTime, text);
  }
  const [out] = await writer.close();
  return out;
}

describe('signals in recordings', () => {
  it('records the live inputs, the plan change and the release as scene calls, and the signal states of every frame', async () => {
    expect(replies).toEqual({ live: [200, 200], refused: [400], plan: [200, 200], release: [200] });
    const items = await all(file);
    const calls = items.flatMap((i) => (i.type === 'message' && i.message.topic === '/vils/calls' ? [decodeJson<SceneCallRecord>(i.message.data)] : []));
    const live = calls.filter((c) => c.kind === 'signal_live');
    // 2 by REST, 1 refused, and the roadside unit's 60 or so (one per frame for 6 s of simulation time)
    expect(live.filter((c) => c.error === null).length).toBeGreaterThanOrEqual(2 + 50);
    expect(live.filter((c) => c.error !== null)).toEqual([expect.objectContaining({ error: expect.stringMatching(/J1\.[AB] \(green\) and J1\.[AB] \(green\) conflict/), result: null })]);
    // each acknowledged (a reply is dropped only when four are waiting on the socket)
    expect(acks).toBeGreaterThan((live.length - 3) * 0.9);
    expect(acks).toBeLessThanOrEqual(live.length - 3);
    expect(calls.filter((c) => c.kind === 'signal_plan')).toEqual([
      expect.objectContaining({ result: 46, error: null, args: expect.objectContaining({ junction: 'J1', green_s: [15, 20], offset_s: 3 }) }),
      expect.objectContaining({ error: null, args: expect.objectContaining({ junction: 'J1', actuated: true }) }),
    ]);
    expect(calls.filter((c) => c.kind === 'signal_release')).toEqual([expect.objectContaining({ result: true, error: null })]);
    // the REST commands as received, with their replies, and the stream's messages with what became of them
    const rest = items.flatMap((i) => (i.type === 'message' && i.message.topic === '/vils/inputs/rest' ? [decodeJson<{ method: string; url: string; status: number }>(i.message.data)] : []));
    expect(rest.filter((r) => r.url.startsWith('/api/signals')).map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
      'PUT /api/signals/J1 200', 'PUT /api/signals/J1 400', 'PUT /api/signals/J1/plan 200', 'PUT /api/signals/J1 200', 'DELETE /api/signals/J1 200', 'PUT /api/signals/J1/plan 200',
    ]);
    const stream = items.flatMap((i) => (i.type === 'message' && i.message.topic === '/vils/inputs/stream' ? [decodeJson<{ message: string; outcome: string }>(i.message.data)] : []));
    expect(stream.length).toBe(live.length - 3);
    expect(stream.every((m) => m.outcome === 'ok' && JSON.parse(m.message).type === 'signal_input')).toBe(true);
    const session = items.find((i) => i.type === 'metadata' && i.name === 'vils.session');
    const groups = JSON.parse((session as { metadata: Map<string, string> }).metadata.get('signal_groups')!) as Array<{ id: string; stop_line: number[][] }>;
    expect(groups.map((g) => g.id)).toEqual(['J1.A', 'J1.B']);
    expect(groups.every((g) => g.stop_line.length >= 2)).toBe(true);
    const frames = items.flatMap((i) => (i.type === 'message' && i.message.topic === '/vils/frame' ? [decodeJson<FrameRecord>(i.message.data)] : []));
    const signals = items.filter((i) => i.type === 'message' && i.message.topic === '/vils/signals');
    expect(frames.length).toBeGreaterThan(400);
    expect(signals.length).toBe(frames.length);
    // frame format 3: format 2 (signals, holds) and each NPC's kind
    expect(frames.every((f) => f.v === 3 && typeof f.signals === 'string')).toBe(true);
    const sources = new Set(frames.flatMap((f) => unpackSignals(base64ToF64(f.signals!)).map((g) => g.source)));
    expect([...sources].sort()).toEqual(['live', 'plan', 'transition']);
    // NPCs held at the red light are in the record too
    const holds = new Set(frames.flatMap((f) => {
      const cols = base64ToF64(f.npcs);
      const n = cols.length / 12;
      return Array.from(cols.subarray(11 * n), (flags) => NPC_HOLDS[(flags >> 3) & 7]);
    }));
    expect(holds.has('none')).toBe(true);
    expect(holds.size).toBeGreaterThan(1);
  });

  it('replays it with 0 differences in NPC states and signal states', async () => {
    const notes: string[] = [];
    const r = await replayRecording(file, { onNote: (n) => notes.push(n) });
    if (r.first) throw new Error(describeDifference(r.first));
    expect(r.differences).toBe(0);
    expect(notes).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.frames).toBeGreaterThan(400);
    expect(r.signalStates).toBe(2 * r.frames);
    expect(r.npcStates).toBeGreaterThan(1000);
  }, 60_000);

  it('reports a tampered signal state at its frame, naming the group', async () => {
    let target = -1;
    const tampered = await rewrite(file, 'tampered', (f) => {
      if (target >= 0 || f.f < 200 || !f.signals) return f;
      const cols = base64ToF64(f.signals);
      // J1.A's code: red becomes green, anything else red
      cols[2] = cols[2] === 'r'.charCodeAt(0) ? 'G'.charCodeAt(0) : 'r'.charCodeAt(0);
      target = f.f;
      return { ...f, signals: f64ToBase64(cols) };
    });
    const r = await replayRecording(tampered, { onNote: () => {} });
    expect(r.differences).toBe(1);
    expect(r.first).toMatchObject({ what: 'signal', frame: target, signal: { field: 'code', numeric_id: 1 } });
    expect(describeDifference(r.first!)).toMatch(new RegExp(`^frame ${target}, sim time [0-9.]+ s, step \\d+: signal group J1\\.A \\(#0\\) code: recorded [Gr], replay [Ggyro]$`));
  }, 60_000);

  it('reports a tampered NPC hold, and replays a recording of the older format (no signals, no holds) with a note', async () => {
    let target = -1;
    const hold = await rewrite(file, 'tampered-hold', (f) => {
      const cols = base64ToF64(f.npcs);
      const n = cols.length / 12;
      if (target >= 0 || f.f < 100 || n === 0) return f;
      cols[11 * n] = (cols[11 * n] & 7) | (NPC_HOLDS.indexOf('box') << 3);
      target = f.f;
      return { ...f, npcs: f64ToBase64(cols) };
    });
    const h = await replayRecording(hold, { onNote: () => {} });
    expect(h.first).toMatchObject({ what: 'npc', frame: target, npc: { field: 'flags' } });
    expect(h.first!.message).toMatch(/flags: recorded \d+ \(.*hold box\), replay \d+ \(.*hold \w+\)/);
    const old = await rewrite(file, 'format-1', (f) => {
      const cols = base64ToF64(f.npcs);
      const n = cols.length / 12;
      for (let i = 0; i < n; i++) cols[11 * n + i] = cols[11 * n + i] & 7;
      const { v: _v, signals: _s, ...rest } = f;
      return { ...rest, npcs: f64ToBase64(cols) };
    });
    const notes: string[] = [];
    const r = await replayRecording(old, { onNote: (m) => notes.push(m) });
    if (r.first) throw new Error(describeDifference(r.first));
    expect(r.differences).toBe(0);
    expect(r.signalStates).toBe(0);
    expect(notes).toEqual([expect.stringMatching(/made before signal states and NPC holds were recorded .*compared without their hold, signal states not at all/)]);
    expect(r.notes).toEqual(notes);
    // frame format 2 (before kinds): compared without them, with a note
    const v2 = await rewrite(file, 'format-2', (f) => {
      const cols = base64ToF64(f.npcs);
      const n = cols.length / 12;
      for (let i = 0; i < n; i++) cols[11 * n + i] = cols[11 * n + i] & 63;
      return { ...f, v: 2, npcs: f64ToBase64(cols) };
    });
    const notes2: string[] = [];
    const r2 = await replayRecording(v2, { onNote: (m) => notes2.push(m) });
    if (r2.first) throw new Error(describeDifference(r2.first));
    expect(r2.signalStates).toBeGreaterThan(0);
    expect(notes2).toEqual([expect.stringMatching(/made before NPC kinds were recorded \(frame format 2\)/)]);
  }, 60_000);
});
