/**
 * No stranger drives a scenario's simulated ego (issue 26, item 1): the comms link of `vils serve --scenario` and
 * `vils run` (rt_comms) gets `vils realtime`'s protections for its VDS1 command ports, from its comms file — they
 * bind 127.0.0.1 unless the file says `bind:`, a bind beyond loopback needs `allow:` (refused at load naming the
 * key), beyond loopback only allowed sources are taken (others dropped before decoding and counted), and no CMD
 * adds a STATE subscriber (STATE goes to the channels' `to` only: the auto-subscriber cap is 0).
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { loadCommsFile } from '../../src/cosim/comms/config.js';
import { RealtimeServer } from '../../src/cosim/realtime.js';
import { EgoCommsLink } from '../../src/scenario/comms-link.js';
import { loadScenario } from '../../src/scenario/index.js';
import { SimEgo } from '../../src/scenario/sim-ego.js';
import { specCmd } from '../cosim/helpers/spec-vectors.js';
import { UdpPeer, freePort, vehicleSpec, world } from '../cosim/helpers/udp.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const CONFIGS = join(PROJECT_ROOT, 'configs');
const dir = mkdtempSync(join(tmpdir(), 'vils-comms-exposure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** This machine's first IPv4 address that is not loopback (a source the allow-list must name), or null. */
function externalIpv4(): string | null {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return null;
}

let n = 0;
/** configs/comms/sim_ego.yaml on free ports with `extra` top-level keys, and demo_lap_comms.yaml using it. */
async function files(cmdPort: number, statePort: number, extra: Record<string, unknown> = {}): Promise<{ comms: string; scenario: string }> {
  const doc = parseYaml(readFileSync(join(CONFIGS, 'comms', 'sim_ego.yaml'), 'utf8')) as { channels: Array<Record<string, any>> } & Record<string, unknown>;
  doc.channels = doc.channels.filter((ch) => ch.template !== 'nmea_gga');
  for (const ch of doc.channels) {
    if (ch.direction === 'in') ch.listen = { port: cmdPort };
    else ch.to = [{ ip: '127.0.0.1', port: statePort }];
  }
  const comms = join(dir, `comms-${++n}.yaml`);
  writeFileSync(comms, stringify({ ...doc, ...extra }));
  const scn = parseYaml(readFileSync(join(CONFIGS, 'scenarios', 'demo_lap_comms.yaml'), 'utf8')) as Record<string, any>;
  scn.run.comms = comms;
  const scenario = join(dir, `scenario-${n}.yaml`);
  writeFileSync(scenario, stringify(scn));
  return { comms, scenario };
}

/** The scenario's comms link, as `vils serve --scenario` opens it. */
async function link(scenarioFile: string, bindAddress?: string): Promise<{ link: EgoCommsLink; ego: SimEgo }> {
  const s = await loadScenario(scenarioFile);
  const ego = new SimEgo(s.egos[0], { ground: s.map.ground, line: s.map.line, cmdTimeoutS: 0.1, record: false });
  const l = await EgoCommsLink.open([ego], s.run.mode === 'rt_comms' ? s.run.comms : null, { now: () => 0, bindAddress });
  open.push(l);
  return { link: l, ego };
}

describe('comms file: bind and allow', () => {
  it('are checked at load, naming the file and the key; a bind beyond loopback needs allow', async () => {
    const f = async (extra: Record<string, unknown>) => loadCommsFile((await files(7001, 7002, extra)).comms);
    await expect(f({ allow: ['somehost'] })).rejects.toThrow(/comms-\d+\.yaml: key 'allow\[0\]': "somehost" is not an IPv4 address or a\.b\.c\.d\/n block/);
    await expect(f({ allow: '10.0.0.0/24' })).rejects.toThrow(/key 'allow': expected a list of IPv4 addresses or a\.b\.c\.d\/n blocks/);
    await expect(f({ allow: ['10.0.0.0/33'] })).rejects.toThrow(/key 'allow\[0\]': "10\.0\.0\.0\/33" is not/);
    await expect(f({ bind: 'anywhere' })).rejects.toThrow(/key 'bind': expected an IPv4 address/);
    await expect(f({ bind: '0.0.0.0' })).rejects.toThrow(/key 'bind': binding 0\.0\.0\.0 answers other machines: name the addresses whose commands are taken in allow/);
    expect(await f({ bind: '0.0.0.0', allow: ['192.168.1.20', '10.0.0.0/24'] })).toMatchObject({ bind: '0.0.0.0', allow: ['192.168.1.20', '10.0.0.0/24'] });
    expect(await f({})).toMatchObject({ bind: undefined, allow: [] });
    expect((await f({})).warnings).toEqual([]);
  });
});

describe('the scenario comms link (vils serve --scenario, vils run rt_comms)', () => {
  it('binds 127.0.0.1 by default; a CMD is taken and no STATE goes back to its sender (no auto-subscribers)', async () => {
    const state = await UdpPeer.open();
    open.push(state);
    const { scenario } = await files(await freePort(), state.port);
    const { link: l, ego } = await link(scenario);
    expect((l as unknown as { sockets: Array<{ address(): { address: string } }> }).sockets[0].address().address).toBe('127.0.0.1');
    expect(l.exposure()).toEqual({ bind: '127.0.0.1', allow: [], refused_sources: 0, max_auto_subscribers: 0 });
    expect(l.dataPort).toBeDefined();
    const ctl = await UdpPeer.open();
    open.push(ctl);
    await ctl.send(specCmd({ seq: 1, vehicleId: 0 }, { steer: 0, throttle: 0.4, brake: 0 }), l.cmdPorts[0]);
    await ctl.waitFor(() => ego.vehicle.cmdsAccepted === 1, 20_000, 'the CMD taken');
    // STATE of a plant tick goes to the channel's `to` only, never to the CMD's sender
    l.afterTick(ego, 0.005);
    await state.waitFor(() => state.messages.length >= 1, 20_000, 'STATE to the configured port');
    await new Promise((r) => setTimeout(r, 50));
    expect(ctl.messages).toEqual([]);
  });

  it('a bind beyond loopback without allow is refused when it opens (a bind given by the caller, not the file)', async () => {
    const { scenario } = await files(await freePort(), 9);
    await expect(link(scenario, '0.0.0.0')).rejects.toThrow(/binding 0\.0\.0\.0 answers other machines: name the addresses whose commands are taken in allow/);
  });

  it('bound beyond loopback: a source outside allow is dropped before decoding and counted; one inside is taken', async () => {
    const ext = externalIpv4();
    expect(ext, 'this machine has an IPv4 address besides loopback (the test sends from it)').not.toBeNull();
    const sock = createSocket('udp4');
    open.push({ close: () => new Promise<void>((r) => sock.close(() => r())) });
    await new Promise<void>((r) => sock.bind(0, ext!, () => r()));
    const send = (port: number, seq: number) => new Promise<void>((r, j) => sock.send(specCmd({ seq, vehicleId: 0 }, { steer: 0, throttle: 0.5, brake: 0 }), port, ext!, (e) => (e ? j(e) : r())));
    const waitFor = async (pred: () => boolean, what: string) => {
      for (const end = Date.now() + 20_000; !pred(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };

    const refused = await link((await files(await freePort(), 9, { bind: ext!, allow: ['203.0.113.0/24'] })).scenario);
    expect(refused.link.bind).toBe(ext);
    await send(refused.link.cmdPorts[0], 1);
    await waitFor(() => refused.link.exposure().refused_sources === 1, 'the datagram refused');
    expect(refused.ego.vehicle.cmdsAccepted).toBe(0);
    expect(refused.link.handlerErrors).toBe(0);

    const allowed = await link((await files(await freePort(), 9, { bind: ext!, allow: [ext!] })).scenario);
    await send(allowed.link.cmdPorts[0], 1);
    await waitFor(() => allowed.ego.vehicle.cmdsAccepted === 1, 'the command taken');
    expect(allowed.link.exposure()).toMatchObject({ bind: ext, allow: [ext], refused_sources: 0, max_auto_subscribers: 0 });
    expect(allowed.link.exposure().warning).toBeUndefined();
  });

  it('an allow of every address is taken but said: the exposure (GET /api/status cmd_exposure) carries the warning (issue 44)', async () => {
    const { link: l } = await link((await files(await freePort(), 9, { bind: '0.0.0.0', allow: ['0.0.0.0/0'] })).scenario);
    expect(l.exposure()).toMatchObject({ bind: '0.0.0.0', allow: ['0.0.0.0/0'], warning: expect.stringMatching(/comms-\d+\.yaml: allow 0\.0\.0\.0\/0 takes VDS1 commands from EVERY address/) });
  });
});

describe('vils realtime reads the same keys', () => {
  it("a comms file's bind stands in for no --bind, its allow adds to --allow", async () => {
    const comms = await loadCommsFile((await files(await freePort(), 9, { bind: '0.0.0.0', allow: ['10.0.0.0/24'] })).comms);
    const s = await RealtimeServer.create({ world: world([vehicleSpec(0)], comms), dt: 0.005, cmdTimeoutS: 5, allowSources: ['192.168.1.20'] });
    open.push(s);
    expect(s.commsInfo()).toMatchObject({ mode: 'comms', bind: '0.0.0.0', allow: ['192.168.1.20', '10.0.0.0/24'], sources_refused: 0 });
    const loopback = await loadCommsFile((await files(await freePort(), 9)).comms);
    const t = await RealtimeServer.create({ world: world([vehicleSpec(0)], loopback), dt: 0.005, cmdTimeoutS: 5 });
    open.push(t);
    expect(t.commsInfo()).toMatchObject({ bind: '127.0.0.1', allow: [] });
  });
});
