/** The JSON data port plugin on bare fastify instances with the body policy (HTTP via inject), over a real fleet's ports. */
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTemplates } from '../../src/cosim/comms/templates/registry.js';
import { RealtimeServer } from '../../src/cosim/realtime.js';
import { SourceFilter } from '../../src/cosim/sources.js';
import { ioPlugin } from '../../src/server/io-plugin.js';
import { installBodyPolicy } from '../../src/server/plugins/body-policy.js';
import { freePort, vehicleSpec, world } from './helpers/udp.js';

let server: RealtimeServer;
beforeAll(async () => {
  await loadTemplates();
  server = await RealtimeServer.create({ world: world([vehicleSpec(0), vehicleSpec(5, { y0: 3 })]), dt: 0.005, cmdTimeoutS: 0.1, cmdPort: 0, statePort: await freePort() });
});
afterAll(async () => {
  await server.close();
});

async function app(prefix?: string) {
  const a = Fastify({ logger: false });
  installBodyPolicy(a);
  await a.register(swagger, { openapi: { info: { title: 't', version: '1' } } });
  await a.register(ioPlugin, { ports: server.dataPort, prefix });
  await a.ready();
  return a;
}

describe('JSON data port over HTTP (spec §4)', () => {
  it('POST /api/io routes {vehicle, throttle, brake, steer} to that vehicle and returns the state snapshot', async () => {
    const a = await app();
    const r = await a.inject({ method: 'POST', url: '/api/io', payload: { vehicle: 5, throttle: 0.4, steer: -0.02 } });
    expect(r.statusCode).toBe(200);
    const body = r.json() as Record<string, unknown>;
    expect(body).toMatchObject({ vehicle: 0, live_vid: 0, vehicles: [0, 5], source: 'cosim', comms: { protocol: 'VDS1', protocol_version: 5, mode: 'legacy' } });
    expect((body.fleet as Record<string, Record<string, unknown>>)['5']).toMatchObject({ vehicle: 5, driver: false, cmd_in: { throttle: 0.4, brake: 0, steer: -0.02 }, y: 3 });
    expect(server.vehicles[1].session.latchedCommand).toMatchObject({ throttle: 0.4, steer: -0.02, brake: 0 });
    expect(server.vehicles[0].session.latchedCommand.throttle).toBe(0);
    // keys not given keep their value
    await a.inject({ method: 'POST', url: '/api/io', payload: { vehicle: 5, brake: 0.1 } });
    expect(server.vehicles[1].session.latchedCommand).toMatchObject({ throttle: 0.4, steer: -0.02, brake: 0.1 });
    await a.close();
  });
  it('a vehicle outside the fleet, an unknown key and bad types are a 400 naming them, and change nothing (VDSim answered 200 with the error inside, issue 44)', async () => {
    const a = await app();
    const before = { ...server.vehicles[0].session.latchedCommand };
    for (const [payload, why] of [
      [{ vehicle: 9, throttle: 1 }, /^body\/vehicle must be one of 0, 5$/],
      [{ vehicle: 4294967295, throttle: 1 }, /^body\/vehicle must be one of 0, 5$/],
      [{ throttle: 1, gear: 2 }, /^body\/gear: unknown key/],
      [{ throttle: 'full' }, /^body\/throttle must be number$/],
      [{ vehicle: -1 }, /^body\/vehicle must be/],
    ] as const) {
      const r = await a.inject({ method: 'POST', url: '/api/io', payload });
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(r.json().message).toMatch(why);
    }
    expect(server.vehicles[0].session.latchedCommand).toEqual(before);
    expect((await a.inject({ method: 'GET', url: '/api/io' })).json()).toMatchObject({ running: false, vehicles: [0, 5] });
    await a.close();
  });
  it('GET / PUT (and VDSim POST) /api/io/targets', async () => {
    const a = await app();
    const g = await a.inject({ method: 'GET', url: '/api/io/targets' });
    expect(g.json()).toEqual({ vehicles: [0, 5], live: 0, configs: { 0: { tx: { enabled: false, rate: 50, send_state: true, send_cmd: true }, targets: [] }, 5: { tx: { enabled: false, rate: 50, send_state: true, send_cmd: true }, targets: [] } } });
    const p = await a.inject({ method: 'PUT', url: '/api/io/targets', payload: { vehicle: 5, enabled: true, rate: 200, targets: [{ ip: '127.0.0.1', port: 9100 }] } });
    expect(p.json()).toMatchObject({ ok: true, configs: { 5: { tx: { enabled: true, rate: 200 }, targets: [{ ip: '127.0.0.1', port: 9100 }] } } });
    const q = await a.inject({ method: 'POST', url: '/api/io/targets', payload: { vehicle: 5, rate: 1, send_cmd: false } });
    expect(q.json()).toMatchObject({ ok: true, configs: { 5: { tx: { rate: 1, send_cmd: false } } } });
    // a rate outside [1, 200] Hz is refused (VDSim clamped it), as are a vehicle outside the fleet and bad types
    for (const [payload, why] of [
      [{ vehicle: 5, rate: 500 }, /^body\/rate must be <= 200$/],
      [{ vehicle: 5, rate: 0.1 }, /^body\/rate must be >= 1$/],
      [{ vehicle: 8 }, /^body\/vehicle must be one of 0, 5$/],
      [{ enabled: 'yes' }, /^body\/enabled must be boolean$/],
      [{ vehicle: 5, targets: [{ ip: '127.0.0.1', port: 9100, extra: 1 }] }, /^body\/targets\/0\/extra: unknown key/],
    ] as const) {
      const r = await a.inject({ method: 'PUT', url: '/api/io/targets', payload });
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(r.json().message).toMatch(why);
    }
    expect(server.dataPort.targets().configs[5].tx).toMatchObject({ rate: 1, send_cmd: false });
    server.dataPort.setTargets({ vehicle: 5, enabled: false, targets: [] });
    await a.close();
  });
  it('no open relay (issue 26): targets outside loopback need the allow-list; bad ips and ports and out-of-range commands are a 400 naming the field, and change nothing', async () => {
    const a = await app();
    const put = (targets: unknown) => a.inject({ method: 'PUT', url: '/api/io/targets', payload: { vehicle: 5, enabled: true, targets } });
    const refused: Array<[unknown, RegExp]> = [
      [[{ ip: '8.8.8.8', port: 9100 }], /body\/targets\/0\/ip 8\.8\.8\.8 is outside loopback and not in this server's allow-list/],
      [[{ ip: '127.0.0.1', port: 9100 }, { ip: '255.255.255.255', port: 9100 }], /body\/targets\/1\/ip 255\.255\.255\.255 is outside loopback/],
      [[{ ip: 'example.com', port: 9100 }], /body\/targets\/0\/ip must be an IPv4 address/],
      [[{ ip: '', port: 9100 }], /body\/targets\/0\/ip must be an IPv4 address/],
      [[{ ip: '127.0.0.1', port: 0 }], /body\/targets\/0\/port must be >= 1/],
      [[{ ip: '127.0.0.1', port: 70000 }], /body\/targets\/0\/port must be <= 65535/],
      [[{ ip: '127.0.0.1' }], /body\/targets\/0 must have required property 'port'/],
    ];
    for (const [targets, why] of refused) {
      const r = await put(targets);
      expect(r.statusCode, JSON.stringify(targets)).toBe(400);
      expect(r.json().message).toMatch(why);
    }
    // nothing was half-applied
    expect(server.dataPort.targets().configs[5]).toMatchObject({ tx: { enabled: false }, targets: [] });
    for (const [body, why] of [
      [{ throttle: 1e308 }, /body\/throttle must be <= 1/],
      [{ brake: -0.5 }, /body\/brake must be >= 0/],
      [{ steer: 100 }, /body\/steer must be <= 6\.28/],
    ] as const) {
      const r = await a.inject({ method: 'POST', url: '/api/io', payload: body });
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().message).toMatch(why);
    }
    await a.close();
    // with an allow-list, a listed machine is a target
    const b = Fastify({ logger: false });
    installBodyPolicy(b);
    await b.register(ioPlugin, { ports: server.dataPort, allowTargets: new SourceFilter(['192.168.7.0/24']) });
    const ok = await b.inject({ method: 'PUT', url: '/api/io/targets', payload: { vehicle: 5, targets: [{ ip: '192.168.7.20', port: 9100 }] } });
    expect(ok.json()).toMatchObject({ ok: true, configs: { 5: { targets: [{ ip: '192.168.7.20', port: 9100 }] } } });
    expect((await b.inject({ method: 'PUT', url: '/api/io/targets', payload: { vehicle: 5, targets: [{ ip: '192.168.8.20', port: 9100 }] } })).json().message).toMatch(/not in this server's allow-list \(192\.168\.7\.0\/24\)/);
    server.dataPort.setTargets({ vehicle: 5, enabled: false, targets: [] });
    await b.close();
  });
  it('documents its routes in OpenAPI and works under a prefix on any instance', async () => {
    const a = await app('/v2');
    const doc = a.swagger() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths).sort()).toEqual(['/v2/api/io', '/v2/api/io/targets']);
    expect(Object.keys(doc.paths['/v2/api/io']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v2/api/io/targets']).sort()).toEqual(['get', 'post', 'put']);
    expect((await a.inject({ method: 'GET', url: '/v2/api/io' })).statusCode).toBe(200);
    await a.close();
  });
  it('refuses to register on an app without the body policy (its routes could not be bounded)', async () => {
    const bare = Fastify({ logger: false });
    await expect(bare.register(ioPlugin, { ports: server.dataPort }).ready()).rejects.toThrow(/install the body policy/);
  });
});
