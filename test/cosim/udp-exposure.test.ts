/**
 * No amplification (issue 26): VDSim's legacy rule (STATE also goes to the source of every accepted CMD) stays,
 * but the command port listens on loopback unless told otherwise, beyond loopback only allowed sources are
 * taken, the subscribers a CMD can add are capped (or none), and a CMD whose steer, throttle or brake is NaN,
 * ±Infinity or 1e308 is dropped and counted, never clamped into a full pedal.
 */
import { createSocket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/commands.js';
import { parseRealtimeArgs, startRealtime } from '../../src/cli/realtime.js';
import { RealtimeServer, type RealtimeConfig } from '../../src/cosim/realtime.js';
import { SourceFilter, SourceListError, allowAllWarning, isLoopbackAddress } from '../../src/cosim/sources.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { join } from 'node:path';
import { specCmd } from './helpers/spec-vectors.js';
import { UdpPeer, freePort, vehicleSpec, world } from './helpers/udp.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(cfg: Partial<RealtimeConfig> = {}): Promise<RealtimeServer> {
  const seed = await UdpPeer.open();
  open.push(seed);
  const server = await RealtimeServer.create({ world: world([vehicleSpec(0)]), dt: 0.005, cmdTimeoutS: 5, cmdPort: 0, statePort: seed.port, ...cfg });
  open.push(server);
  void server.run();
  return server;
}

async function peer(): Promise<UdpPeer> {
  const p = await UdpPeer.open();
  open.push(p);
  return p;
}

/** This machine's first IPv4 address that is not loopback (a source the allow-list must name), or null. */
function externalIpv4(): string | null {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return null;
}

describe('source allow-list', () => {
  it('takes loopback always, named addresses and blocks, nothing else; bad entries are refused by name', () => {
    const f = new SourceFilter(['192.168.1.20', '10.0.0.0/24']);
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '192.168.1.20', '::ffff:192.168.1.20', '10.0.0.7', '10.0.0.255'].every((a) => f.allows(a))).toBe(true);
    expect(['192.168.1.21', '10.0.1.1', '8.8.8.8', '255.255.255.255', 'fe80::1', 'example.com'].some((a) => f.allows(a))).toBe(false);
    expect(new SourceFilter([]).allows('192.168.1.20')).toBe(false);
    expect(new SourceFilter(['0.0.0.0/0']).allows('8.8.8.8')).toBe(true);
    for (const bad of ['host.example', '10.0.0.0/33', '300.1.1.1', '10.0.0/8', '']) expect(() => new SourceFilter([bad]), bad).toThrow(SourceListError);
    expect(isLoopbackAddress('192.0.2.2')).toBe(false);
  });
  it('every address (0.0.0.0/0, ::/0) is taken, and never silently: the warning says so (issue 44)', () => {
    for (const all of ['0.0.0.0/0', '::/0', '10.1.2.3/0']) {
      const f = new SourceFilter(['192.168.1.20', all]);
      expect(f.everything, all).toBe(true);
      expect(['8.8.8.8', '203.0.113.9', '::ffff:8.8.8.8'].every((a) => f.allows(a)), all).toBe(true);
      expect(allowAllWarning(f.entries), all).toMatch(new RegExp(`^--allow ${all.replace(/[./:]/g, '\\$&')} takes VDS1 commands from EVERY address: VDS1 has no authentication`));
    }
    expect(new SourceFilter(['10.0.0.0/8', '192.168.1.0/10']).everything).toBe(false);
    expect(allowAllWarning(['10.0.0.0/8', '192.168.1.0/10'])).toBeNull();
    expect(() => new SourceFilter(['::1/128'])).toThrow(SourceListError); // IPv6 blocks other than everything: not supported
  });
});

describe('vils realtime exposure', () => {
  it('binds 127.0.0.1 by default; beyond loopback it needs an allow-list (server and command line)', async () => {
    const s = await start();
    expect((s as unknown as { rxSockets: { address(): { address: string } }[] }).rxSockets[0].address().address).toBe('127.0.0.1');
    expect(s.commsInfo()).toMatchObject({ bind: '127.0.0.1', max_auto_subscribers: 4 });
    await expect(RealtimeServer.create({ world: world(), dt: 0.005, cmdTimeoutS: 0.1, cmdPort: 0, bindAddress: '0.0.0.0' })).rejects.toThrow(/binding 0\.0\.0\.0 answers other machines: name the addresses/);
    await expect(parseRealtimeArgs(['a.yaml', 'b.yaml', '--bind=0.0.0.0'])).rejects.toThrow(UsageError);
    await expect(parseRealtimeArgs(['a.yaml', 'b.yaml', '--bind=0.0.0.0'])).rejects.toThrow(/--bind=0\.0\.0\.0 answers other machines: name whose commands are taken with --allow=/);
    await expect(parseRealtimeArgs(['a.yaml', 'b.yaml', '--allow=somehost'])).rejects.toThrow(/--allow: "somehost" is not an IPv4 address or a\.b\.c\.d\/n block/);
    await expect(parseRealtimeArgs(['a.yaml', 'b.yaml', '--auto-subscribers=-1'])).rejects.toThrow(/--auto-subscribers must be an integer in \[0, 1000\]/);
  });

  it('a CMD from each of 6 addresses adds at most 4 subscribers (the rest refused, counted); with 0 none, and commands still drive', async () => {
    const s = await start();
    const peers = await Promise.all(Array.from({ length: 6 }, () => peer()));
    for (const [i, p] of peers.entries()) await p.send(specCmd({ seq: i + 1 }, { steer: 0, throttle: 0.1, brake: 0 }), s.cmdPorts[0]);
    await peers[0].waitFor(() => s.counters().accepted === 6, 20_000, 'six CMDs accepted');
    expect(s.counters().subscribers).toBe(1 + 4); // the configured state address, and 4 discovered
    expect(s.counters().subscribersRefused).toBe(2);
    expect(s.commsInfo()).toMatchObject({ subscribers_refused: 2 });
    const none = await start({ maxAutoSubscribers: 0 });
    const p = await peer();
    await p.send(specCmd({ seq: 1 }, { steer: 0, throttle: 0.3, brake: 0 }), none.cmdPorts[0]);
    await p.waitFor(() => none.vehicles[0].session.applied.throttle === 0.3, 20_000, 'the command applied');
    expect(none.counters().subscribers).toBe(1);
    expect(p.messages.length).toBe(0); // no STATE to the sender
  });

  it('bound beyond loopback with an allow-list: an address outside it is neither taken nor answered; one inside is', async () => {
    const ext = externalIpv4();
    expect(ext, 'this machine has an IPv4 address besides loopback (the test sends from it)').not.toBeNull();
    const port = await freePort();
    const refused = await start({ bindAddress: ext!, cmdPort: port, allowSources: ['203.0.113.0/24'] });
    const sock = createSocket('udp4');
    open.push({ close: () => new Promise<void>((r) => sock.close(() => r())) });
    const got: Buffer[] = [];
    sock.on('message', (b) => got.push(b));
    await new Promise<void>((r) => sock.bind(0, ext!, () => r()));
    const send = (to: number, throttle: number, seq: number) => new Promise<void>((r, j) => sock.send(specCmd({ seq }, { steer: 0, throttle, brake: 0 }), to, ext!, (e) => (e ? j(e) : r())));
    await send(port, 0.5, 1);
    const waitFor = async (pred: () => boolean, what: string) => {
      for (const end = Date.now() + 20_000; !pred(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
    await waitFor(() => refused.counters().refusedSources === 1, 'the datagram refused');
    expect(refused.counters().accepted).toBe(0);
    expect(refused.vehicles[0].session.applied.throttle).toBe(0);
    expect(refused.counters().subscribers).toBe(1);
    const port2 = await freePort();
    const allowed = await start({ bindAddress: ext!, cmdPort: port2, allowSources: [ext!] });
    await send(port2, 0.5, 1);
    await waitFor(() => allowed.vehicles[0].session.applied.throttle === 0.5 && got.length > 0, 'the command taken and STATE sent back');
    expect(allowed.counters().refusedSources).toBe(0);
  });

  it('a CMD whose steer, throttle or brake is NaN, ±Infinity or 1e308 is dropped and counted (bad_value), not clamped; NaN aux fields are fine', async () => {
    const s = await start();
    const p = await peer();
    // VDSim's Python client sends NaN in the advisory aux fields: that is a good command
    await p.send(specCmd({ seq: 1 }, { steer: 0.02, throttle: 0.2, brake: 0, auxAccel: Number.NaN, auxSpeed: Number.NaN }), s.cmdPorts[0]);
    await p.waitFor(() => s.vehicles[0].session.applied.throttle === 0.2, 20_000, 'the good command');
    let seq = 2;
    const bad = [Number.NaN, Infinity, -Infinity, 1e308, -1e308];
    for (const v of bad) {
      for (const field of ['steer', 'throttle', 'brake'] as const) {
        const c = { steer: 0, throttle: 0, brake: 0 };
        c[field] = v;
        await p.send(specCmd({ seq: seq++ }, c), s.cmdPorts[0]);
      }
    }
    await p.waitFor(() => s.counters().drops.bad_value === 15, 20_000, '15 bad values counted');
    expect(s.counters().accepted).toBe(1);
    expect(s.vehicles[0].session.applied.throttle).toBe(0.2);
    expect(s.vehicles[0].session.applied.steer).toBeCloseTo(0.02, 12);
    // a pedal a little over 1 is VDSim's to clamp, not a bad value
    await p.send(specCmd({ seq: seq++ }, { steer: 0, throttle: 1.2, brake: 0 }), s.cmdPorts[0]);
    await p.waitFor(() => s.counters().accepted === 2, 20_000, 'the over-1 pedal taken');
  });
});

describe('vils realtime tells what it refused and whom it takes commands from (issue 44)', () => {
  it('--json reports the refused subscribers; --allow=0.0.0.0/0 is a banner at start, in the data port and in the summary', async () => {
    const args = [join(PROJECT_ROOT, 'configs', 'vehicles', 'sedan.yaml'), join(PROJECT_ROOT, 'configs', 'tires', 'default_pacejka.yaml'), '--cmd-port=0', `--state-port=${await freePort()}`, '--http-port=0', '--quiet', '--json'];
    const out: string[] = [];
    const err: string[] = [];
    const h = await startRealtime([...args, '--allow=0.0.0.0/0', '--auto-subscribers=1'], { log: (l) => out.push(l), err: (l) => err.push(l) });
    open.push({ close: () => h.stop() });
    const banner = err.find((l) => l.includes('EVERY address'));
    expect(banner).toMatch(/^!{100}\nWARNING: --allow 0\.0\.0\.0\/0 takes VDS1 commands from EVERY address: VDS1 has no authentication[^\n]*\n!{100}$/);
    const io = (await h.http!.inject({ method: 'GET', url: '/api/io' })).json() as { comms: Record<string, unknown> };
    expect(io.comms).toMatchObject({ allow: ['0.0.0.0/0'], warning: expect.stringMatching(/EVERY address/) });
    // three senders, one subscriber allowed: two refused
    const peers = await Promise.all(Array.from({ length: 3 }, () => peer()));
    for (const [i, p] of peers.entries()) await p.send(specCmd({ seq: i + 1 }, { steer: 0, throttle: 0.1, brake: 0 }), h.cmdPorts[0]);
    await peers[0].waitFor(() => h.server.counters().accepted === 3, 20_000, 'three CMDs accepted');
    await h.stop();
    expect(await h.done).toBe(0);
    const summary = JSON.parse(out.at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ subscribers: 2, subscribersRefused: 2, allow_warning: expect.stringMatching(/EVERY address/) });
  });
});
