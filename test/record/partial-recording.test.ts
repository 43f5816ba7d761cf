/**
 * Honest recordings (issue 26; issue 46: a recording with no frame checked nothing, exit 4, and a folder replays its
 * newest recording that holds frames, as the README's way to pick one): a recording cut short — its process killed, so no footer and perhaps half a
 * record — is replayed as far as it goes and said to be partial; `vils replay` exits 3 unless --allow-partial.
 * (It used to exit 0 without a word.) The complete file replays with exit 0 and no such word.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replayCommand } from '../../src/cli/replay.js';
import { createPlayback } from '../../src/server/playback.js';
import { readRecording, type ReadEnd } from '../../src/record/reader.js';
import { startServer, testModel } from '../helpers/server-fixture.js';
import { FastClock } from './fast-clock.js';
import { holdsFrames } from '../../src/record/newest.js';
import { RecordingWriter } from '../../src/record/writer.js';
import { channelSpecs } from '../../src/server/recording.js';

let dir: string;
let full: string;
let cut: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vils-partial-'));
  const rec = join(dir, 'rec');
  const clock = new FastClock(0);
  const { server } = await startServer({ config: { npc_target: 4, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir: rec } });
  for (const deadline = performance.now() + 60_000; server.host.runner.simNow() < 5; await new Promise((r) => setTimeout(r, 5))) {
    if (performance.now() > deadline) throw new Error('the recording server did not reach 5 s of simulation time in 60 s');
  }
  await server.close();
  full = join(rec, readdirSync(rec)[0]);
  // a copy cut at 80 %: what a SIGKILL leaves (the footer and the last chunk's end missing)
  const cutDir = join(dir, 'cut');
  cut = join(cutDir, 'session.mcap');
  mkdirSync(cutDir);
  copyFileSync(full, cut);
  truncateSync(cut, Math.floor(statSync(full).size * 0.8));
}, 90_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function replay(args: string[]): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
  vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
  try {
    const code = await replayCommand.run([...args, '--model', testModel(), '--allow-model-mismatch']);
    return { code, err: err.join('\n'), out: out.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

/** A copy of a recording's session with every /vils/frame message left out. */
async function withoutFrames(file: string, outDir: string): Promise<string> {
  const metadata: Array<{ name: string; metadata: Record<string, string> }> = [];
  const attachments: Array<{ name: string; mediaType: string; data: Uint8Array; logTime: bigint }> = [];
  const messages: Array<{ topic: string; logTime: bigint; data: Uint8Array }> = [];
  for await (const item of readRecording(file)) {
    if (item.type === 'metadata') metadata.push({ name: item.name, metadata: Object.fromEntries(item.metadata) });
    else if (item.type === 'attachment') attachments.push({ ...item, logTime: 0n });
    else if (item.message.topic !== '/vils/frame') messages.push(item.message);
  }
  const writer = await RecordingWriter.open({ dir: outDir, baseName: 'no-frames', maxFileBytes: 1 << 30, maxTotalBytes: 0, metadata, attachments }, channelSpecs());
  for (const m of messages) writer.write(writer.channel(m.topic), m.logTime, m.data);
  await writer.close();
  return writer.stats.files[0];
}

describe('a recording cut short', () => {
  it('the reader says where a file ended: complete with its footer, or cut short', async () => {
    const ends: ReadEnd[] = [];
    for (const f of [full, cut]) {
      const end: ReadEnd = { complete: false, trailingBytes: 0 };
      for await (const _ of readRecording(f, {}, end)) void _;
      ends.push(end);
    }
    expect(ends[0]).toEqual({ complete: true, trailingBytes: 0 });
    expect(ends[1].complete).toBe(false);
  });

  it('vils replay: the complete file exits 0; the cut one is replayed as far as it goes, said PARTIAL, exit 3; --allow-partial exits 0', async () => {
    const ok = await replay([full]);
    expect(ok.code).toBe(0);
    expect(ok.err).not.toMatch(/PARTIAL/);
    const partial = await replay([cut]);
    expect(partial.code).toBe(3);
    expect(partial.err).toMatch(/session\.mcap is PARTIAL: it ends without its footer.*\(the recording process was killed or the file cut short\); replayed what it holds, up to sim time [\d.]+ s — exit 3 \(--allow-partial accepts it\)/);
    expect(partial.out).toMatch(/0 differences/);
    const allowed = await replay([cut, '--allow-partial']);
    expect(allowed.code).toBe(0);
    expect(allowed.err).toMatch(/is PARTIAL/);
    const json = await replay([cut, '--json', '--allow-partial']);
    expect(JSON.parse(json.out).partial).toEqual([expect.objectContaining({ file: cut })]);
  }, 120_000);

  it('a recording with no frame (a server stopped before its first): vils replay says nothing was compared and exits 4', async () => {
    // the session as recorded (its metadata, map, calls and config) with its frames left out: what a server stopped
    // before its first frame leaves
    const empty = await withoutFrames(full, join(dir, 'empty'));
    expect(await holdsFrames(empty)).toBe(false);
    expect(await holdsFrames(full)).toBe(true);
    const r = await replay([empty]);
    expect(r.out).toMatch(/compared 0 frames/);
    expect(r.err).toMatch(/holds no frame \(its server stopped, or could not start, before it published one\): nothing was compared — exit 4/);
    expect(r.code).toBe(4);

    // a folder: its newest recording with frames, the newer empty one passed over and named
    const both = join(dir, 'both');
    mkdirSync(both);
    copyFileSync(full, join(both, 'a-000.mcap'));
    copyFileSync(empty, join(both, 'b-000.mcap'));
    utimesSync(join(both, 'a-000.mcap'), new Date(1e12), new Date(1e12));
    const picked = await replay([both]);
    expect(picked.err).toContain(`passing over ${join(both, 'b-000.mcap')}: it holds no frame`);
    expect(picked.err).toContain(`the newest recording with frames in ${both}: ${join(both, 'a-000.mcap')}`);
    expect(picked.out).toMatch(/0 differences/);
    expect(picked.code).toBe(0);
    const none = join(dir, 'none');
    mkdirSync(none);
    copyFileSync(empty, join(none, 'b-000.mcap'));
    await expect(replayCommand.run([none])).rejects.toThrow(/holds no recording with frames \(1 without\)/);
  }, 60_000);

  it('vils replay --play plays what the cut file holds and says it is partial (in /api/status)', async () => {
    const pb = await createPlayback(cut, { speed: 1000, logLevel: false });
    try {
      await pb.done;
      expect(pb.framesSent()).toBeGreaterThan(10);
      const status = (await pb.app.inject({ method: 'GET', url: '/api/status' })).json() as { partial: string[] };
      expect(status.partial).toEqual([cut]);
    } finally {
      await pb.close();
    }
    const whole = await createPlayback(full, { speed: 1000, logLevel: false });
    try {
      await whole.done;
      expect(((await whole.app.inject({ method: 'GET', url: '/api/status' })).json() as { partial: string[] }).partial).toEqual([]);
    } finally {
      await whole.close();
    }
  }, 120_000);
});
