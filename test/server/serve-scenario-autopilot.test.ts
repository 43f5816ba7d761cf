/**
 * `vils serve --scenario` (issue 13), continued from serve-scenario.test.ts: the built-in autopilot driving
 * configs/scenarios/demo_lap.yaml's simulated ego among its 30 NPCs (in-process, through startServe as the CLI
 * starts it), and one smoke test of the command itself in a real process (the sources as Node runs them in
 * production): the scenario's ego answers VDS1 on its comms ports and SIGTERM stops it cleanly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { loadScenario } from '../../src/scenario/config.js';
import { type DrivingLine, project } from '../../src/scenario/line.js';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { readSpecState, specCmd } from '../cosim/helpers/spec-vectors.js';
import { UdpPeer, freePort } from '../cosim/helpers/udp.js';
import { PacedClock } from '../helpers/paced-clock.js';
import { TestClient, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const CONFIGS = join(PROJECT_ROOT, 'configs');

async function get(url: string): Promise<any> {
  const r = await fetch(url);
  expect(r.status).toBe(200);
  return r.json();
}

describe('vils serve --scenario demo_lap: the built-in autopilot', () => {
  let serve: ServeHandle;
  let url: string;
  let line: DrivingLine;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    const file = join(CONFIGS, 'scenarios', 'demo_lap.yaml');
    line = (await loadScenario(file)).map.line!;
    // on a paced clock (test/helpers/paced-clock.ts): the plant steps in-process with the scene and no tick is ever
    // late, so what the autopilot does is the code's, not the machine's (on the system clock the plant runs in a
    // thread of its own that a loaded machine keeps behind: serve-scenario.test.ts covers that path)
    const clock = new PacedClock();
    serve = await startServe(['--scenario', file, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'], { clock, epochNow: () => 1.7e9 + clock.now() });
    url = serve.address;
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await serve?.server.close();
  });

  it('drives the ego along the driving line among the NPCs: it moves, stays on the line, touches no NPC', async () => {
    const st = (await get(`${url}/api/status`)).sim_egos;
    expect(st).toMatchObject({ scenario: 'demo_lap', mode: 'api', cmd_ports: [], egos: [{ ego_id: 'sim1', driver: 'autopilot', level: 'L2' }] });
    const c = new TestClient(`${url.replace(/^http/, 'ws')}/ws/vils/stream`);
    clients.push(c);
    await c.opened();
    const first = await c.next((m) => m.type === 'npc_states' && m.egos.some((e: { ego_id: string }) => e.ego_id === 'sim1'), 15_000);
    const e0 = first.egos.find((e: { ego_id: string }) => e.ego_id === 'sim1');
    const s0 = project(line, e0.x, e0.y).s;
    // 4 simulated seconds later: along the line (starting at 8 m/s), close to it
    const later = await c.next((m) => m.type === 'npc_states' && m.sim_time_s > first.sim_time_s + 4 && m.egos.some((e: { ego_id: string }) => e.ego_id === 'sim1'), 20_000);
    const e1 = later.egos.find((e: { ego_id: string }) => e.ego_id === 'sim1');
    const p1 = project(line, e1.x, e1.y);
    expect(p1.s - s0).toBeGreaterThan(15);
    expect(Math.abs(p1.cte)).toBeLessThan(1);
    expect(e1.speed).toBeGreaterThan(2);
    expect(e1.collided).toBe(false);
    expect(later.npcs.length).toBe(30);
    expect(serve.server.host.scene.egoCollisionSteps).toBe(0);
    // and the plant's time follows the scene's (in its own thread, which a loaded machine may keep a tick or two
    // behind: it gets there, as its status says)
    let row = (await get(`${url}/api/status`)).sim_egos.egos[0];
    for (const end = Date.now() + 20_000; !(row.t > 4) && Date.now() < end; row = (await get(`${url}/api/status`)).sim_egos.egos[0]) await new Promise((r) => setTimeout(r, 50));
    expect(row.t).toBeGreaterThan(4);
    expect(row.failsafe).toBe(false);
  });
});

describe('vils serve --scenario in a real process', () => {
  let tx: Transpiled;
  let dir: string;
  beforeAll(() => {
    tx = transpile(['src/cli/vils.ts']);
    dir = mkdtempSync(join(tmpdir(), 'vils-serve-scenario-cli-'));
  }, 60_000);
  afterAll(() => {
    tx?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tcpPort = () => new Promise<number>((resolve) => {
    const s = createTcpServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

  it('demo_lap_comms: logs its ego and CMD port, sends STATE, takes a CMD, and SIGTERM stops it (exit 0, port released)', async () => {
    const stateRx = await UdpPeer.open();
    const cmdPort = await freePort();
    const httpPort = await tcpPort();
    // configs/scenarios/demo_lap_comms.yaml with its comms (configs/comms/sim_ego.yaml) on this test's ports
    const comms = parseYaml(readFileSync(join(CONFIGS, 'comms', 'sim_ego.yaml'), 'utf8')) as { channels: Array<Record<string, any>> };
    comms.channels = comms.channels.filter((ch) => ch.template !== 'nmea_gga');
    for (const ch of comms.channels) {
      if (ch.direction === 'in') ch.listen = { port: cmdPort };
      else ch.to = [{ ip: '127.0.0.1', port: stateRx.port }];
    }
    writeFileSync(join(dir, 'comms.yaml'), stringify(comms));
    const doc = parseYaml(readFileSync(join(CONFIGS, 'scenarios', 'demo_lap_comms.yaml'), 'utf8')) as Record<string, any>;
    doc.run.comms = join(dir, 'comms.yaml');
    writeFileSync(join(dir, 'demo_lap_comms.yaml'), stringify(doc));

    const lines: string[] = [];
    const child: ChildProcess = spawn(process.execPath, [join(tx.dir, 'src', 'cli', 'vils.js'), 'serve', '--scenario', join(dir, 'demo_lap_comms.yaml'), '--port', String(httpPort), '--host', '127.0.0.1', '--no-record', '--log-format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VILS_MODEL: testModel() },
    });
    child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const waitLine = async (re: RegExp, ms = 30_000) => {
      const end = Date.now() + ms;
      for (;;) {
        const l = lines.find((x) => re.test(x));
        if (l) return l;
        if (Date.now() > end) throw new Error(`no line matching ${re} within ${ms} ms:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitLine(new RegExp(`scenario demo_lap_comms: simulated egos sim1 \\(L2, external\\); VDS1 CMD on ${cmdPort}; JSON data port /api/io`));
      await waitLine(/VILS ready/);
      await stateRx.waitFor(() => stateRx.messages.length >= 20, 20_000, 'STATE from the served ego');
      const ctl = await UdpPeer.open();
      let seq = 0;
      const timer = setInterval(() => void ctl.send(specCmd({ seq: ++seq, vehicleId: 0 }, { steer: 0, throttle: 0.5, brake: 0 }), cmdPort).catch(() => undefined), 20);
      try {
        const end = Date.now() + 20_000;
        let st: any;
        do {
          await new Promise((r) => setTimeout(r, 100));
          st = (await get(`http://127.0.0.1:${httpPort}/api/status`)).sim_egos;
        } while (!(st.egos[0].cmds > 0 && readSpecState(stateRx.messages[stateRx.messages.length - 1].buf).fields.throttle_applied > 0.2) && Date.now() < end);
        expect(st).toMatchObject({ scenario: 'demo_lap_comms', mode: 'rt_comms', cmd_ports: [cmdPort], egos: [{ ego_id: 'sim1', failsafe: false }] });
        expect(st.egos[0].cmds).toBeGreaterThan(0);
      } finally {
        clearInterval(timer);
        await ctl.close();
      }
    } finally {
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      await stateRx.close();
    }
    // the CMD port is free again
    const again = await UdpPeer.open(cmdPort);
    await again.close();
  }, 60_000);
});
