/**
 * examples/node-client.mjs as a user runs it: started before the server, it says it cannot reach it (one
 * line, no stack trace) and keeps trying; it connects and drives when the server comes; it reconnects when
 * the server goes away and comes back. Issue 46: it drives along the demo track's right lane, clear of the
 * crossing (its points lie on the lane), prints its own ego from the frames, `--help` prints its usage, and a
 * server that answers every fix with the same error is heard once, with a count.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { GeoFrame } from '../../src/geo/frame.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { VilsServer } from '../../src/server/app.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startServer } from '../helpers/server-fixture.js';

const freePort = () => new Promise<number>((resolve) => {
  const s = createTcpServer();
  s.listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});

const CLIENT = join(PROJECT_ROOT, 'examples', 'node-client.mjs');

interface DemoMap {
  map: { origin: { lat: number; lon: number }; lane_graph: { lanes: Array<{ id: string; road_index: number }> } };
  roads: Array<{ geometry: Array<{ x: number; y: number }> }>;
}
const demo = JSON.parse(readFileSync(join(PROJECT_ROOT, 'maps', 'demo-track.json'), 'utf8')) as DemoMap;
const geo = new GeoFrame(demo.map.origin);
const laneLine = (id: string) => demo.roads[demo.map.lane_graph.lanes.find((l) => l.id === id)!.road_index].geometry;

/** Distance [m] from a point to a polyline. */
function toLine(p: { x: number; y: number }, line: ReadonlyArray<{ x: number; y: number }>): number {
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) {
    const a = line[i], b = line[i + 1];
    const dx = b.x - a.x, dy = b.y - a.y;
    if (dx === 0 && dy === 0) continue;
    const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)));
    best = Math.min(best, Math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy));
  }
  return best;
}
/** The crossing J1 is at the origin of the demo track's frame; its stop lines are 11 m from it. */
const fromCrossing = (p: { x: number; y: number }) => Math.hypot(p.x, p.y);

let child: ChildProcess | null = null;
let server: VilsServer | null = null;
afterAll(async () => {
  child?.kill('SIGKILL');
  await server?.close();
});

describe('examples/node-client.mjs', () => {
  it('waits for the server without a stack trace, drives when it comes, reconnects when it comes back', async () => {
    const port = await freePort();
    const lines: string[] = [];
    child = spawn(process.execPath, [join(PROJECT_ROOT, 'examples', 'node-client.mjs'), `ws://127.0.0.1:${port}/ws/vils/stream`, '--ego', 'example-car'], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [child.stdout!, child.stderr!]) s.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const waitFor = async (re: RegExp, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!lines.some((l) => re.test(l))) {
        if (Date.now() > end) throw new Error(`no line matching ${re}:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitFor(/cannot reach ws:\/\/127\.0\.0\.1:\d+\/ws\/vils\/stream: ECONNREFUSED/);
    await waitFor(/reconnecting in 1\.0 s/);
    expect(lines.join('\n')).not.toMatch(/at .*\(.*:\d+:\d+\)|Error:/);
    const start = async () => {
      const s = await startServer({ config: { npc_target: 3 }, listenPort: port });
      server = s.server;
    };
    await start();
    await waitFor(/connected to ws:/);
    await waitFor(/step \d+: 3 NPCs/);
    const egoBy = Date.now() + 5000;
    while (!server!.host.scene.hasEgo('example-car') && Date.now() < egoBy) await new Promise((r) => setTimeout(r, 20));
    expect(server!.host.scene.hasEgo('example-car')).toBe(true);
    // the server goes away and comes back: the client says so and drives on
    await server!.close();
    server = null;
    await waitFor(/connection closed \(1001: server shutting down\); reconnecting in 0\.5 s|connection closed \(\d+[^)]*\); reconnecting/);
    const before = lines.length;
    await start();
    const end = Date.now() + 15_000;
    while (!lines.slice(before).some((l) => /step \d+: 3 NPCs/.test(l))) {
      if (Date.now() > end) throw new Error(`did not reconnect:\n${lines.slice(before).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(child.exitCode).toBeNull();
    expect(lines.join('\n')).not.toMatch(/at .*\(.*:\d+:\d+\)/);
  }, 60_000);

  it('--help prints its usage and exits 0; a bad address or flag says so with the usage, exit 2 (it crashed: Invalid URL: --help)', () => {
    const help = spawnSync(process.execPath, [CLIENT, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: node examples\/node-client\.mjs \[ws:\/\/localhost:8000\/ws\/vils\/stream\] \[--token <token>\] \[--ego <ego_id>\] \[--seconds <s>\]/);
    expect(help.stdout).toMatch(/--help, -h {7}this text/);
    for (const bad of [['not-a-url'], ['--speed', '3'], ['--seconds']]) {
      const r = spawnSync(process.execPath, [CLIENT, ...bad], { encoding: 'utf8' });
      expect(r.status, bad.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/\n\nusage: node examples\/node-client\.mjs/);
      expect(r.stderr).not.toMatch(/at .*\(.*:\d+:\d+\)/);
    }
  });

  it('its lane points lie on the demo track\'s right lane (R2, then R3), from 80 m before the crossing to 30 m before its stop line', () => {
    const text = readFileSync(CLIENT, 'utf8');
    const block = /const LANE = \[([\s\S]*?)\n\];/.exec(text)![1];
    const points = [...block.matchAll(/\[([\d.]+), ([\d.]+)\]/g)].map((m) => geo.toLocal(Number(m[1]), Number(m[2])));
    expect(points.length).toBeGreaterThanOrEqual(20);
    const lane = [...laneLine('R2'), ...laneLine('R3')];
    for (const p of points) expect(toLine(p, lane)).toBeLessThan(0.05);
    expect(fromCrossing(points[0])).toBeGreaterThan(75);
    expect(Math.min(...points.map(fromCrossing))).toBeGreaterThan(40); // the stop line is 11 m from the centre
    // the left lane (L2) is 3.75 m away: the car is on the right one
    expect(toLine(points[5], laneLine('L2'))).toBeGreaterThan(3);
  });

  it('drives along that lane and prints its own ego from the frames: live, no contact, heading reported, latency and clock offset', async () => {
    const s = await startServer({ config: { npc_target: 0 } });
    const lines: string[] = [];
    const car = spawn(process.execPath, [CLIENT, s.wsUrl, '--ego', 'lane-car', '--seconds', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const st of [car.stdout!, car.stderr!]) st.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const positions: Array<{ x: number; y: number }> = [];
    const watch = setInterval(() => {
      const e = s.server.host.scene.snapshot(s.server.host.runner.simNow()).egos.find((x) => x.egoId === 'lane-car');
      if (e) positions.push({ x: e.x, y: e.y });
    }, 100);
    const code = await new Promise<number | null>((r) => car.on('exit', r));
    clearInterval(watch);
    await s.server.close();
    expect(code, lines.join('\n')).toBe(0);
    expect(positions.length).toBeGreaterThan(5);
    const lane = laneLine('R2');
    for (const p of positions) expect(toLine(p, lane)).toBeLessThan(1.5);
    const first = positions[0], last = positions[positions.length - 1];
    expect(Math.hypot(last.x - first.x, last.y - first.y)).toBeGreaterThan(5); // it drove along it
    const egoLines = lines.filter((l) => /^ {2}ego lane-car: /.test(l));
    expect(egoLines.length, lines.join('\n')).toBeGreaterThan(0);
    expect(egoLines.at(-1)).toMatch(/^ {2}ego lane-car: live, no contact, \(-?[\d.]+, -?[\d.]+\) [\d.]+ m\/s, heading from reported; fix latency -?\d+ ms, clock offset -?[\d.]+ s \((probe|synced|fixes)\)$/);
    expect(lines.join('\n')).not.toMatch(/collided|COLLIDED/);
  }, 60_000);

  it('a server that answers every fix with the same error is heard once, then with a count (it printed it 10 times a second)', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    wss.on('connection', (ws) => ws.on('message', () => ws.send(JSON.stringify({ type: 'error', error: 'this server plays a recording: inputs are not taken' }))));
    const port = (wss.address() as { port: number }).port;
    const r = await new Promise<{ out: string }>((resolve) => {
      let out = '';
      const c = spawn(process.execPath, [CLIENT, `ws://127.0.0.1:${port}/ws/vils/stream`, '--seconds', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      c.on('exit', () => resolve({ out }));
    });
    wss.close();
    expect(r.out.match(/^server says: this server plays a recording/gm)?.length, r.out).toBe(1);
    const more = /\((\d+) more times: server says: this server plays a recording: inputs are not taken\)/.exec(r.out);
    expect(more, r.out).not.toBeNull();
    expect(Number(more![1])).toBeGreaterThanOrEqual(5); // about 10 a second were sent for 2 s
  }, 30_000);
});
