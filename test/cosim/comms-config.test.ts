import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCommsFile, parseComms, type TxChannelSpec } from '../../src/cosim/comms/config.js';
import { CommsRouter } from '../../src/cosim/comms/router.js';
import { loadTemplates } from '../../src/cosim/comms/templates/registry.js';
import { CosimVehicle } from '../../src/cosim/vehicle.js';
import { FlatGround, sensorParams, tireParams, vehicleParams } from '../../src/plant/index.js';
import { sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-comms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await loadTemplates();
});

function fleet(ids = [0, 1]): CosimVehicle[] {
  return ids.map((id) => {
    const sensors = sensorParams({ enabled: true });
    if (id === 0) sensors.declarations = [{ id: 'gnss_roof', type: 'gnss', mountPos: [0, 0, 0], mountRpy: [0, 0, 0], rateHz: 10, params: {} }, { id: 'cam', type: 'camera', mountPos: [0, 0, 0], mountRpy: [0, 0, 0], rateHz: 30, params: {} }];
    const spec = { id, level: 'L2' as const, vehicle: vehicleParams(), tires: [tireParams(), tireParams(), tireParams(), tireParams()] as const, x0: 0, y0: 0, z0: 0, yaw0: 0, vx0: 0, control: 'external' as const, sensors, pathLookahead: 8, label: 'test' };
    return new CosimVehicle(spec, new FlatGround(1), { dt: 0.005, sensorDelayS: 0, watchdog: {}, now: 0 });
  });
}

const parse = (doc: unknown) => parseComms(doc, 'test.yaml');
const out = (source: string, template: string, extra: object = {}) => ({ name: 't', channels: [{ source, template, to: [{ ip: '127.0.0.1', port: 9000 }], ...extra }] });

describe.skipIf(!have('shared'))("VDSim's comms files load unchanged", () => {
  it('comms_vds1_loopback.yaml: vehicle 0 state fan-out to 2, one VDS1 CMD fan-in port', async () => {
    const c = await loadCommsFile(sharedPath('data', 'vdsim', 'comms_vds1_loopback.yaml'));
    expect(c.name).toBe('vds1_loopback');
    const tx = c.channels[0] as TxChannelSpec;
    expect([tx.direction, tx.source.text, tx.template.name, tx.to]).toEqual(['out', '0.state', 'vds1_state', [{ ip: '127.0.0.1', port: 7100 }, { ip: '127.0.0.1', port: 7101 }]]);
    expect(c.channels[1]).toMatchObject({ direction: 'in', port: 7001 });
    const r = new CommsRouter(c, fleet(), 5);
    expect([r.tx.length, r.rx]).toEqual([1, [{ port: 7001, defaultVehicleId: 0, keys: ['channels[1]'] }]]);
  });
  it('comms_json_nmea.yaml: json + nmea_gga with an origin', async () => {
    const c = await loadCommsFile(sharedPath('data', 'vdsim', 'comms_json_nmea.yaml'));
    const [json, gga] = c.channels as TxChannelSpec[];
    expect([json.template.name, gga.template.name, gga.origin]).toEqual(['json', 'nmea_gga', { lat: 37.5665, lon: 126.978, alt: 38 }]);
    expect(new CommsRouter(c, fleet(), 5).tx.map((t) => t.template.name)).toEqual(['json', 'nmea_gga']);
  });
  it('comms_example_python_router.yaml: ego.state json, ego.sensor.gnss as nmea_gga (the sensor id is its type)', async () => {
    const c = await loadCommsFile(sharedPath('data', 'vdsim', 'comms_example_python_router.yaml'));
    const r = new CommsRouter(c, fleet(), 5);
    expect(r.tx.map((t) => [t.source, t.template.name, t.vehicle.id, t.sensorType])).toEqual([['ego.state', 'json', 0, ''], ['ego.sensor.gnss', 'nmea_gga', 0, 'gnss']]);
  });
});

describe('comms config errors name the file and the key', () => {
  it('unknown template, unknown source, template that cannot carry the source', () => {
    expect(() => parse(out('ego.state', 'protobuf'))).toThrow("test.yaml: key 'channels[0].template': unknown template 'protobuf' (known: imu, imu_raw, json, nmea_gga, nmea_rmc, vds1_cmd, vds1_state)");
    expect(() => parse(out('ego.lidar', 'json'))).toThrow(/key 'channels\[0\].source': unknown source 'ego.lidar'/);
    expect(() => parse(out('car.state', 'json'))).toThrow(/key 'channels\[0\].source': unknown source 'car.state': the vehicle must be 'ego' or a fleet id/);
    expect(() => parse(out('ego.cmd', 'json'))).toThrow(/key 'channels\[0\].template': template 'json' cannot carry a cmd source \('ego.cmd'\); for that use vds1_cmd/);
    expect(() => parse(out('ego.state', 'vds1_cmd'))).toThrow(/cannot carry a state source/);
    expect(() => parse({ channels: [{ template: 'json', to: [] }] })).toThrow(/key 'channels\[0\].source': missing/);
  });
  it('addresses, ports, keys, directions', () => {
    expect(() => parse(out('ego.state', 'json', { to: [{ ip: 'example.org', port: 9000 }] }))).toThrow(/key 'channels\[0\].to\[0\].ip': expected an IPv4 address/);
    expect(() => parse(out('ego.state', 'json', { to: [{ ip: '127.0.0.1', port: 70000 }] }))).toThrow(/key 'channels\[0\].to\[0\].port': expected a UDP port/);
    expect(() => parse(out('ego.state', 'json', { tos: [] }))).toThrow(/key 'channels\[0\].tos': unknown channel key/);
    expect(() => parse(out('ego.state', 'json', { transport: 'tcp' }))).toThrow(/key 'channels\[0\].transport': only 'udp'/);
    expect(() => parse(out('ego.state', 'nmea_gga', { origin: { lat: 95, lon: 0 } }))).toThrow(/key 'channels\[0\].origin.lat': must be within ±90/);
    expect(() => parse({ channels: [{ direction: 'in', template: 'json', listen: { port: 7001 } }] })).toThrow(/template 'json' cannot receive; a direction: in channel takes vds1_cmd/);
    expect(() => parse({ channels: [{ direction: 'in', template: 'vds1', listen: { port: 0 } }] })).toThrow(/key 'channels\[0\].listen.port': expected a UDP port/);
    expect(() => parse({ channels: 'none' })).toThrow(/key 'channels': expected a list/);
    // VDSim's `vds1` alias is fine on an in channel (C++ accepts vds1 / vds1_cmd)
    expect(parse({ channels: [{ direction: 'in', template: 'vds1', listen: { port: 7001 } }] }).channels[0].template.name).toBe('vds1_cmd');
  });
  it('a file on disk: YAML errors and keys are reported with its path', async () => {
    const p = join(dir, 'bad.yaml');
    writeFileSync(p, 'name: x\nchannels:\n  - source: 0.state\n    template: nmea_gpgsv\n    to: [{ip: 127.0.0.1, port: 9}]\n');
    await expect(loadCommsFile(p)).rejects.toThrow(`${p}: key 'channels[0].template': unknown template 'nmea_gpgsv'`);
  });
  it('binding to a fleet refuses unknown vehicles and sensors, and sensors the template cannot carry', () => {
    expect(() => new CommsRouter(parse(out('5.state', 'json')), fleet(), 5)).toThrow("test.yaml: key 'channels[0].source': source '5.state': no vehicle 5 in the fleet (ids: 0, 1)");
    expect(() => new CommsRouter(parse(out('0.sensor.radar', 'nmea_gga')), fleet(), 5)).toThrow(/vehicle 0 has no sensor 'radar' \(declared: gnss_roof, cam/);
    expect(() => new CommsRouter(parse(out('0.sensor.cam', 'nmea_gga')), fleet(), 5)).toThrow(/template 'nmea_gga' cannot carry a camera sensor/);
    const r = new CommsRouter(parse(out('0.sensor.gnss_roof', 'nmea_rmc')), fleet(), 5);
    expect(r.tx[0].sensorType).toBe('gnss');
    expect(() => new CommsRouter(parse(out('1.sensor.gnss', 'imu')), fleet(), 5)).toThrow(/template 'imu' cannot carry a gnss sensor/);
  });
  it('duplicate listen ports are bound once; `source: <id>.cmd` on an in channel sets the v1–v3 target', () => {
    const spec = parse({ channels: [{ direction: 'in', listen: { port: 7001 } }, { direction: 'in', template: 'vds1_cmd', listen: { port: 7001 } }, { direction: 'in', source: '1.cmd', listen: { port: 7002 } }] });
    expect(new CommsRouter(spec, fleet(), 5).rx).toEqual([{ port: 7001, defaultVehicleId: 0, keys: ['channels[0]', 'channels[1]'] }, { port: 7002, defaultVehicleId: 1, keys: ['channels[2]'] }]);
  });
});
