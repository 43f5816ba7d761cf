/**
 * A recording server killed with SIGKILL loses at most 0.5 s of simulation data (issue 26, item 5; it lost about
 * 2.1 s, a whole 1 MB chunk). A real `vils serve` process (the CLI's startServe, transpiled as Node runs it, with
 * its writer thread) records a scene in real time; a sink added after the recorder prints the simulation time of
 * every frame the moment the recorder has taken it, so the last line the process printed is exactly the latest
 * simulation time it had handed to the recorder (a pipe keeps what was written before the kill). The test kills
 * it at a moment of its choosing (a simulation time drawn at random) and reads the file on disk: its last frame
 * is within 0.5 s of that. The file is cut short, so the reader says so and `vils replay` calls it PARTIAL (exit 3)
 * with 0 differences for what it holds. Nothing here depends on the machine's speed: the figures compared are
 * simulation times the process itself wrote down; the time limits only guard against a hang.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replayCommand } from '../../src/cli/replay.js';
import { fromExactNum } from '../../src/record/exact.js';
import type { FrameRecord } from '../../src/record/log.js';
import { decodeJson, readRecording, type ReadEnd } from '../../src/record/reader.js';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { testModel } from '../helpers/server-fixture.js';

const MAX_LOSS_S = 0.5;

let tx: Transpiled;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  tx = transpile(['src/cli/serve.ts']);
  dir = mkdtempSync(join(tmpdir(), 'vils-sigkill-'));
}, 60_000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  tx?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const PROBE = `
import { startServe } from './src/cli/serve.js';
const h = await startServe(process.argv.slice(2));
// after the recorder's sink: a frame printed here is a frame the recorder has taken (stdout to a pipe is synchronous on Linux)
h.server.host.runner.addSink({ publish(f) { process.stdout.write('SIM ' + f.snapshot.time + ' ' + f.state + '\\n'); } });
process.stdout.write('PROBE ready\\n');
`;

interface Killed {
  /** the latest simulation time the process had handed to the recorder */
  handed: number;
  /** the last frame in the file */
  recorded: number | null;
  frames: number;
  end: ReadEnd;
  file: string;
  log: string;
}

/** Serves a scene recording into its own folder, SIGKILLs it once it has handed over `killAt` s of simulation time. */
async function recordAndKill(name: string, killAt: number, env: NodeJS.ProcessEnv = {}): Promise<Killed> {
  const rec = join(dir, name);
  const cfg = join(dir, `${name}.json`);
  // the default scene of `vils serve` (the fewest bytes a second, so the longest 1 MB chunks: 2.3 s)
  writeFileSync(cfg, JSON.stringify({ npc_target: 20, publish_hz: 10 }));
  const probe = tx.probe(`probe-${name}.mjs`, PROBE);
  const child = spawn(process.execPath, [probe, '--port', '0', '--host', '127.0.0.1', '--config', cfg, '--record-dir', rec, '--log-format', 'json', '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VILS_MODEL: testModel(), VILS_PARENT_WATCH: 'off', ...env },
  });
  children.push(child);
  const other: string[] = [];
  let handed = -Infinity;
  let pending = '';
  let killed = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const guard = setTimeout(() => {
    if (!killed) child.kill('SIGKILL');
  }, 120_000);
  child.stderr!.on('data', (d: Buffer) => other.push(d.toString()));
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const m = /^SIM (\S+) (\w+)$/.exec(line);
      if (!m) {
        other.push(line);
        continue;
      }
      handed = Math.max(handed, Number(m[1]));
      if (!killed && handed >= killAt) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  });
  await closed; // every line the process wrote before it died has been read
  clearTimeout(guard);
  const log = other.join('\n');
  if (!killed) throw new Error(`the server ended before reaching ${killAt} s of simulation time (hang guard 120 s):\n${log}`);
  expect(child.signalCode, log).toBe('SIGKILL');
  const files = readdirSync(rec).filter((n) => n.endsWith('.mcap'));
  expect(files, log).toHaveLength(1);
  const file = join(rec, files[0]);
  const end: ReadEnd = { complete: false, trailingBytes: 0 };
  let recorded: number | null = null;
  let frames = 0;
  for await (const item of readRecording(file, { topics: new Set(['/vils/frame']) }, end)) {
    if (item.type !== 'message') continue;
    recorded = fromExactNum(decodeJson<FrameRecord>(item.message.data).t);
    frames++;
  }
  return { handed, recorded, frames, end, file, log };
}

describe('a recording server killed with SIGKILL', () => {
  it(`loses at most ${MAX_LOSS_S} s of simulation data: the file's last frame against the latest the process handed to the recorder`, async () => {
    // a moment the test does not choose to suit the writer: anywhere in two and a half seconds of recording
    const killAt = 3 + Math.random() * 2.5;
    const k = await recordAndKill('realtime', killAt);
    const loss = k.handed - (k.recorded ?? 0);
    console.log(`killed at ${k.handed.toFixed(2)} s of simulation time; the file's last frame ${k.recorded?.toFixed(2)} s (${k.frames} frames): lost ${loss.toFixed(3)} s`);
    expect(k.handed).toBeGreaterThanOrEqual(killAt);
    expect(k.recorded, k.log).not.toBeNull();
    expect(loss, k.log).toBeGreaterThanOrEqual(0);
    expect(loss, k.log).toBeLessThanOrEqual(MAX_LOSS_S);
    // cut short: no footer; the reader reads up to the last whole chunk
    expect(k.end.complete).toBe(false);

    // vils replay: PARTIAL, exit 3, and what it holds replays with 0 differences
    const err: string[] = [];
    const out: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
    vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    let code: number;
    try {
      code = await replayCommand.run([k.file, '--model', testModel()]);
    } finally {
      vi.restoreAllMocks();
    }
    expect(code, err.join('\n')).toBe(3);
    expect(err.join('\n')).toMatch(/is PARTIAL/);
    expect(out.join('\n')).toMatch(/\b0 differences/);
  }, 240_000);
});
