/**
 * `vils serve --scenario` as a user runs it (issue 13): the server started in-process through the function the
 * CLI uses (startServe, src/cli/serve.ts) with configs/scenarios/demo_lap_comms.yaml — its comms file pointed at
 * free loopback ports, nothing else changed — and its simulated ego driven from outside: by VDS1 CMD datagrams
 * through the comms router (real UDP sockets; CMD built from the spec's table, STATE read by it, not by the
 * codec under test), and by the JSON data port (POST /api/io). What a user expects: the ego is in
 * npc_states.egos and moves as commanded (throttle → faster, brake → slower, steer → yaw), STATE comes back to
 * the configured port with increasing seq, an NPC behind it does not drive into it, no stream client can move
 * it, and it brakes (the fail-safe) after cmd_timeout without a CMD. The autopilot case serves
 * configs/scenarios/demo_lap.yaml unchanged. Everything waits on conditions (a loaded 2-core machine).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { loadScenario } from '../../src/scenario/config.js';
import { type DrivingLine, pointAt, project } from '../../src/scenario/line.js';
import { MAGIC, STATE_SIZE, readSpecState, specCmd, zlibCrc32 } from '../cosim/helpers/spec-vectors.js';
import { UdpPeer, freePort } from '../cosim/helpers/udp.js';
import { TestClient, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const CONFIGS = join(PROJECT_ROOT, 'configs');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `pred` every 20 ms until it holds; fails after timeoutMs saying what it waited for and what it saw. */
async function until<T>(what: string, pred: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, seen: () => unknown = () => ''): Promise<T> {
  timeoutMs = Math.max(timeoutMs, 30_000); // a hang guard, never a speed test
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(seen())}`);
    await sleep(20);
  }
}

const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));

async function get(url: string): Promise<any> {
  const r = await fetch(url);
  expect(r.status).toBe(200);
  return r.json();
}

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

const serveArgs = (scenario: string) => ['--scenario', scenario, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'];

/** A controller: VDS1 CMD (v5, vehicle 0) at 50 Hz while started, from the socket STATE arrives on (as a bridge does). */
class Controller {
  cmd = { steer: 0, throttle: 0, brake: 0 };
  sent = 0;
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly peer: UdpPeer, private readonly port: () => number) {}

  set(c: Partial<Controller['cmd']>): void {
    this.cmd = { steer: 0, throttle: 0, brake: 0, ...c };
  }

  once(): Promise<void> {
    this.sent++;
    return this.peer.send(specCmd({ seq: ++this.seq, vehicleId: 0, timestamp: Date.now() / 1000 }, this.cmd), this.port());
  }

  start(c: Partial<Controller['cmd']>): void {
    this.set(c);
    if (!this.timer) this.timer = setInterval(() => void this.once().catch(() => undefined), 20);
    void this.once();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

describe('vils serve --scenario demo_lap_comms: the simulated ego driven over VDS1 and the JSON data port', () => {
  let dir: string;
  let serve: ServeHandle;
  let url: string;
  let line: DrivingLine;
  let stateRx: UdpPeer;
  let ctl: Controller;
  let cmdPort = 0;
  let start: { x: number; y: number; heading: number };
  let startS = 0;
  const clients: TestClient[] = [];

  /** The STATE datagrams received so far, read by the spec's table (CRC and length checked). */
  const states = () => stateRx.messages.map((m) => ({ ...readSpecState(m.buf), len: m.buf.length, crcOk: zlibCrc32(m.buf.subarray(0, m.buf.length - 4)) === m.buf.readUInt32LE(m.buf.length - 4) }));
  const last = () => readSpecState(stateRx.messages[stateRx.messages.length - 1].buf).fields;
  const status = async () => (await get(`${url}/api/status`)).sim_egos;
  const streamClient = async () => {
    const c = new TestClient(`${url.replace(/^http/, 'ws')}/ws/vils/stream`);
    clients.push(c);
    await c.opened();
    return c;
  };
  const simEgo = (m: Record<string, any>) => (m.type === 'npc_states' ? (m.egos as Array<Record<string, any>>).find((e) => e.ego_id === 'sim1') : undefined);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vils-serve-scenario-'));
    stateRx = await UdpPeer.open();
    const cmdListen = await freePort();
    // configs/comms/sim_ego.yaml with the test's ports (7001/7002 may be taken on a shared machine)
    const comms = parseYaml(readFileSync(join(CONFIGS, 'comms', 'sim_ego.yaml'), 'utf8')) as { name: string; channels: Array<Record<string, any>> };
    for (const ch of comms.channels) {
      if (ch.direction === 'in') ch.listen = { port: cmdListen };
      else if (ch.template === 'vds1') ch.to = [{ ip: '127.0.0.1', port: stateRx.port }];
    }
    comms.channels = comms.channels.filter((ch) => ch.template !== 'nmea_gga'); // no one listens for GGA here
    writeFileSync(join(dir, 'sim_ego_test.yaml'), stringify(comms));
    const doc = parseYaml(readFileSync(join(CONFIGS, 'scenarios', 'demo_lap_comms.yaml'), 'utf8')) as Record<string, any>;
    expect(doc.run).toEqual({ mode: 'rt_comms', comms: 'sim_ego' });
    doc.run.comms = join(dir, 'sim_ego_test.yaml');
    const file = join(dir, 'demo_lap_comms.yaml');
    writeFileSync(file, stringify(doc));
    const scenario = await loadScenario(file);
    line = scenario.map.line!;
    startS = doc.egos[0].start.route_s as number;
    start = pointAt(line, startS);
    serve = await startServe(serveArgs(file));
    url = serve.address;
    ctl = new Controller(stateRx, () => cmdPort);
  }, 60_000);

  afterAll(async () => {
    ctl?.stop();
    for (const c of clients) c.close();
    await serve?.server.close();
    await stateRx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('attaches the ego: in /api/status, in npc_states.egos at its start, STATE to the comms port with increasing seq', async () => {
    const st = await status();
    expect(st).toMatchObject({ scenario: 'demo_lap_comms', mode: 'rt_comms', comms: 'sim_ego', egos: [{ ego_id: 'sim1', vehicle_id: 0, level: 'L2', driver: 'external' }] });
    expect(st.cmd_ports).toHaveLength(1);
    cmdPort = st.cmd_ports[0];
    expect(serve.sim?.cmdPorts).toEqual([cmdPort]);
    // realtime on the system clock: the plant and its sockets in a thread of their own
    expect(serve.sim?.thread?.state).toBe('running');
    expect(st.thread).toMatchObject({ state: 'running', error: null });

    const c = await streamClient();
    const frame = await c.next((m) => simEgo(m) !== undefined, 15_000);
    const e = simEgo(frame)!;
    expect(Math.hypot(e.x - start.x, e.y - start.y)).toBeLessThan(1);
    expect(Math.abs(e.speed)).toBeLessThan(0.2);
    expect(e.stale).toBe(false);
    expect(frame.npcs.length).toBeGreaterThan(0);

    await stateRx.waitFor(() => stateRx.messages.length >= 400, 20_000, '400 STATE datagrams');
    const got = states();
    for (const s of got) {
      expect(s.len).toBe(STATE_SIZE[5]);
      expect(s.crcOk).toBe(true);
      expect(s.header).toMatchObject({ magic: MAGIC, version: 5, msgType: 2, vehicleId: 0 });
    }
    // one frame per plant tick, each its own (a burst of 20 ticks per scene step once overwrote queued buffers:
    // the last 8 frames of every burst came two or three times, the others never; test/cosim/tx-ring.test.ts)
    for (let i = 1; i < got.length; i++) {
      expect(got[i].header.seq).toBeGreaterThan(got[i - 1].header.seq);
      if (got[i].header.seq === got[i - 1].header.seq + 1) expect(got[i].header.timestamp - got[i - 1].header.timestamp).toBeCloseTo(0.005, 6);
    }
    expect(new Set(got.map((g) => g.header.timestamp)).size).toBe(got.length);
    // paced at the plant's 200 Hz by its own thread, not a burst of 20 per 0.1 s scene step: the runner stays at
    // publish_hz (how evenly the frames leave on this machine is npm run bench:serve-cosim's figure)
    expect(serve.server.host.runner.tickHz).toBe(serve.server.host.serving.publish_hz);
    const f = got[got.length - 1].fields;
    expect(Math.hypot(f.x - start.x, f.y - start.y)).toBeLessThan(1);
    expect(wrap(f.yaw - start.heading)).toBeCloseTo(0, 2);
  });

  it('NPCs see it: an NPC sent along its lane from behind stops short of the standing ego (no contact)', async () => {
    const behind = pointAt(line, startS - 25);
    const goal = pointAt(line, startS + 60);
    const { status: code, body } = await post(`${url}/api/npcs`, { x: behind.x, y: behind.y, yaw: behind.heading, speed: 6, goal: { x: goal.x, y: goal.y } });
    expect(code).toBe(200);
    const id = body.id as number;
    const ego = () => serve.server.host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    let closest = Infinity;
    let npc: Record<string, any> | undefined;
    // until it has come up behind the ego and stands (or has passed it beside, in the other lane)
    await until('the NPC to stand behind the ego or pass it', async () => {
      npc = ((await get(`${url}/api/npcs`)).npcs as Array<Record<string, any>>).find((n) => n.id === id);
      if (!npc) return false;
      const e = ego();
      const d = Math.hypot(npc.x - e.x, npc.y - e.y);
      closest = Math.min(closest, d);
      const along = project(line, npc.x, npc.y).s - project(line, e.x, e.y).s;
      return (d < 15 && npc.speed < 0.3 && along < 0) || along > 5;
    }, 20_000, () => ({ npc, closest }));
    expect(npc!.collided).toBe(false);
    expect(ego().collided).toBe(false);
    expect((await get(`${url}/api/status`)).ego_collision_steps).toBe(0);
    // centre to centre: more than the two half lengths (4.5 m cars) — it did not drive into it
    expect(closest).toBeGreaterThan(4.5);
    await fetch(`${url}/api/npcs/${id}`, { method: 'DELETE' });
  });

  it('VDS1 CMD drives it: throttle speeds it up, steering turns it, brake stops it; the stream follows', async () => {
    const c = await streamClient();
    ctl.start({ throttle: 0.6 });
    await until('STATE vx > 3 m/s under throttle', () => last().vx > 3, 20_000, () => last().vx);
    const moving = await c.next((m) => (simEgo(m)?.speed ?? 0) > 2.5, 10_000);
    const e = simEgo(moving)!;
    expect(Math.hypot(e.x - start.x, e.y - start.y)).toBeGreaterThan(2);
    const st = await status();
    expect(st.egos[0].cmds).toBeGreaterThan(0);
    expect(st.egos[0].failsafe).toBe(false);
    expect(last().throttle_applied).toBeGreaterThan(0.3);

    const yaw0 = last().yaw;
    ctl.start({ throttle: 0.2, steer: 0.15 }); // road wheel angle, + left
    await until('yaw to turn left by 0.25 rad', () => wrap(last().yaw - yaw0) > 0.25, 20_000, () => wrap(last().yaw - yaw0));
    expect(last().yaw_rate).toBeGreaterThan(0);
    expect(last().steer_applied).toBeGreaterThan(0.05);

    const v0 = last().vx;
    ctl.start({ brake: 1 });
    await until('STATE vx < 0.3 m/s under brake', () => last().vx < 0.3, 20_000, () => last().vx);
    expect(v0).toBeGreaterThan(2);
    expect(last().brake_applied).toBeGreaterThan(0.5);
    await c.next((m) => Math.abs(simEgo(m)?.speed ?? 99) < 0.5, 10_000);
    ctl.stop();
  });

  it('without a CMD for cmd_timeout the fail-safe brakes it (throttle 0, brake 0.3, straight); the next CMD releases it', async () => {
    ctl.start({ throttle: 0.4 });
    await until('STATE vx > 2 m/s', () => last().vx > 2, 20_000, () => last().vx);
    ctl.stop();
    await until('the fail-safe in /api/status', async () => (await status()).egos[0].failsafe === true, 10_000);
    await until('STATE brake_applied ≈ 0.3 and no throttle', () => Math.abs(last().brake_applied - 0.3) < 0.02 && last().throttle_applied < 0.01, 10_000, () => last());
    const v = last().vx;
    await until('the ego to slow down under the fail-safe', () => last().vx < v - 0.5 || last().vx < 0.1, 10_000, () => last().vx);
    // one valid CMD releases it at once
    ctl.set({ throttle: 0.3 });
    await ctl.once();
    await until('the fail-safe released', async () => (await status()).egos[0].failsafe === false, 10_000);
  });

  it('no stream client can move it: its ego_state for sim1 is refused and the ego stays where the plant has it', async () => {
    const c = await streamClient();
    const before = serve.server.host.scene.snapshot().egos.find((e) => e.egoId === 'sim1')!;
    c.send({ type: 'ego_state', ego_id: 'sim1', timestamp: Date.now() / 1000, data: { lat: 37.3645, lon: 126.7239, heading: 0, speed: 9 } });
    expect((await c.next((m) => m.type === 'error', 10_000)).error).toMatch(/ego "sim1" is driven by the server itself \(a simulated ego\)/);
    const f = await c.next((m) => simEgo(m) !== undefined && m.sim_time_s > before.receivedAt + 0.2, 10_000);
    const e = simEgo(f)!;
    expect(Math.hypot(e.x - before.x, e.y - before.y)).toBeLessThan(3); // not teleported to the fix
    expect(e.speed).toBeLessThan(5);
    const f2 = last();
    expect(Math.hypot(e.x - f2.x, e.y - f2.y)).toBeLessThan(3);
  });

  it('the JSON data port drives it: POST /api/io throttle, steer, brake (held: no fail-safe without VDS1)', async () => {
    const io = async () => (await get(`${url}/api/io`)) as Record<string, any>;
    const r = await post(`${url}/api/io`, { vehicle: 0, throttle: 0.6, brake: 0, steer: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ vehicle: 0, driver: false, cmd_in: { throttle: 0.6, brake: 0, steer: 0 } });
    expect(r.body.fleet['0']).toBeDefined();
    await until('vx > 3 m/s from the data port', async () => (await io()).vx > 3, 20_000);
    expect((await io()).failsafe).toBe(false); // well past cmd_timeout without any VDS1 CMD
    expect((await status()).egos[0].failsafe).toBe(false);
    const yaw0 = (await io()).yaw as number;
    expect((await post(`${url}/api/io`, { throttle: 0.2, steer: -0.15 })).status).toBe(200);
    await until('yaw to turn right by 0.25 rad', async () => wrap((await io()).yaw - yaw0) < -0.25, 20_000);
    expect((await post(`${url}/api/io`, { throttle: 0, brake: 1, steer: 0 })).status).toBe(200);
    await until('vx < 0.3 m/s from the data port', async () => (await io()).vx < 0.3, 20_000);
    // the stream shows the same car, and a vehicle outside the fleet is refused by the route's schema (issue 44)
    const c = await streamClient();
    const f = await c.next((m) => simEgo(m) !== undefined, 10_000);
    const cur = await io();
    expect(Math.hypot(simEgo(f)!.x - cur.x, simEgo(f)!.y - cur.y)).toBeLessThan(2);
    expect((await post(`${url}/api/io`, { vehicle: 7, throttle: 1 })).body).toMatchObject({ statusCode: 400, message: 'body/vehicle must be one of 0' });
  });
});
