/**
 * What publishing costs the server (issue 24 item 7): 63 NPCs on the demo track framed at 50 Hz to 20 listen-only
 * viewers, as a share of one core. One `vils serve` (publish_hz 50, not recording) runs throughout; windows
 * without viewers and with the 20 connected alternate (which comes first alternates too), so the scene's own work
 * and the machine's other load fall on both alike. The server's CPU (all its threads, from /proc) over a window's
 * wall time is its share of a core; publishing costs the mean share with viewers minus the mean share without
 * (goal ≤ 10 %). Viewers connect and leave between windows, outside them. Used by bench/viewers.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServe, stopServe } from './serve-child.js';

/** publishing 63 NPCs at 50 Hz to 20 viewers: at most this share of one core */
export const PUBLISH_SHARE_GOAL = 0.1;

export interface PublishShare {
  npcs: number;
  publish_hz: number;
  viewers: number;
  format: 'json' | 'binary';
  window_s: number;
  pairs: number;
  /** the server's CPU as a share of one core, per window */
  without_viewers: number[];
  with_viewers: number[];
  /** mean with − mean without */
  publish_share: number;
  goal: number;
  frames_per_viewer_per_s: number;
  bytes_per_frame: number;
}

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 0.01; // utime, stime in USER_HZ (100) ticks
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `dir`: a scratch folder; `access`: the access file letting the viewers connect from 127.0.0.1. */
export async function measurePublishShare(dir: string, access: string, opts: { npcs?: number; hz?: number; viewers?: number; format?: 'json' | 'binary'; windowS?: number; pairs?: number; cpus?: string } = {}): Promise<PublishShare> {
  const npcs = opts.npcs ?? 63, hz = opts.hz ?? 50, viewers = opts.viewers ?? 20, format = opts.format ?? 'json';
  const windowS = opts.windowS ?? 6, pairs = opts.pairs ?? 4;
  const cfg = join(dir, `publish-${hz}.json`);
  writeFileSync(cfg, JSON.stringify({ npc_target: npcs, publish_hz: hz }));
  const { child, base } = await startServe(['--config', cfg, '--access', access, '--no-record', '--log-format', 'json'], process.env, 30000, opts.cpus);
  const url = `${base.replace('http', 'ws')}/ws/vils/stream${format === 'binary' ? '?format=binary' : ''}`;
  const without: number[] = [], withViewers: number[] = [];
  let frames = 0, bytes = 0, measuring = false, onWall = 0;
  try {
    await sleep(3000); // the scene fills up with its NPCs and the code warms up
    for (let p = 0; p < pairs; p++) {
      for (const on of p % 2 === 0 ? [false, true] : [true, false]) {
        const sockets: WebSocket[] = [];
        if (on) {
          await Promise.all(Array.from({ length: viewers }, () => new Promise((resolve, reject) => {
            const ws = new WebSocket(url, { perMessageDeflate: false });
            sockets.push(ws);
            ws.on('message', (data: Buffer) => {
              if (!measuring) return;
              frames++;
              bytes += data.length;
            });
            ws.once('open', resolve);
            ws.once('error', reject);
          })));
          await sleep(1000);
        }
        const cpu0 = cpuSeconds(child.pid!);
        const t0 = performance.now();
        measuring = on;
        await sleep(windowS * 1000);
        measuring = false;
        const wall = (performance.now() - t0) / 1000;
        const share = (cpuSeconds(child.pid!) - cpu0) / wall;
        (on ? withViewers : without).push(share);
        if (on) onWall += wall;
        for (const s of sockets) s.terminate();
        if (on) await sleep(1000);
      }
    }
  } finally {
    await stopServe(child);
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  return {
    npcs, publish_hz: hz, viewers, format, window_s: windowS, pairs,
    without_viewers: without, with_viewers: withViewers,
    publish_share: mean(withViewers) - mean(without), goal: PUBLISH_SHARE_GOAL,
    frames_per_viewer_per_s: frames / viewers / onWall, bytes_per_frame: frames ? bytes / frames : 0,
  };
}
