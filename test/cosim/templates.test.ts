import { beforeAll, describe, expect, it } from 'vitest';
import { findTemplate, listTemplates, loadTemplates, type TemplateVehicle, type TxContext } from '../../src/cosim/comms/templates/registry.js';
import { printfFixed } from '../../src/cosim/format.js';
import { enuToGeodetic } from '../../src/cosim/geodetic.js';
import { SI, StateFields } from '../../src/cosim/vds1.js';
import { SensorMeasurement } from '../../src/plant/sensors/measurement.js';
import { neutralCommand } from '../../src/plant/types.js';
import { STATE_TABLE, zlibCrc32 } from './helpers/spec-vectors.js';

beforeAll(async () => {
  await loadTemplates();
});

function vehicle(): TemplateVehicle & { frame: StateFields; sensors: SensorMeasurement } {
  const frame = new StateFields();
  const sensors = new SensorMeasurement();
  const command = neutralCommand();
  return { id: 3, frame, sensors, command };
}

function ctx(v: TemplateVehicle, extra: Partial<TxContext> = {}): TxContext {
  return { vehicle: v, seq: 41, timestamp: 12.3456, utcMs: Date.UTC(2024, 0, 1, 12, 34, 56, 780), version: 5, origin: { lat: 37.5665, lon: 126.978, alt: 38 }, sensorType: '', ...extra };
}

function encode(name: string, c: TxContext, size = 512): Buffer {
  const t = findTemplate(name);
  if (!t?.tx) throw new Error(`no tx template ${name}`);
  const out = Buffer.alloc(size);
  const n = t.tx.encode(c, out);
  return n < 0 ? Buffer.alloc(0) : out.subarray(0, n);
}

/** Independent NMEA checksum: XOR between '$' and '*'. */
function checksum(sentence: string): string {
  const body = sentence.slice(1, sentence.indexOf('*'));
  let x = 0;
  for (const ch of body) x ^= ch.charCodeAt(0);
  return x.toString(16).toUpperCase().padStart(2, '0');
}

describe('template registry', () => {
  it('every template file in the folder registered itself; VDSim aliases resolve', () => {
    expect(listTemplates().map((t) => t.name)).toEqual(['imu', 'imu_raw', 'json', 'nmea_gga', 'nmea_rmc', 'vds1_cmd', 'vds1_state']);
    expect(findTemplate('vds1')?.name).toBe('vds1_state');
    expect(findTemplate('')?.name).toBe('vds1_state');
    expect(findTemplate('vds1_cmd')?.rx).toBe(true);
    expect(findTemplate('json')?.rx).toBeFalsy();
  });
});

describe('printf %.Nf', () => {
  it('rounds exact binary ties to even, keeps the sign of zero, prints huge values in full', () => {
    const cases: [number, number, string][] = [
      [0.125, 2, '0.12'], [0.375, 2, '0.38'], [2.5, 0, '2'], [3.5, 0, '4'], [4086.5, 0, '4086'], [-0, 2, '-0.00'], [-0.001, 2, '-0.00'],
      [0.015, 2, '0.01'], [0.00005, 4, '0.0001'], [12.3456, 3, '12.346'], [1e21, 1, '1000000000000000000000.0'],
    ];
    for (const [x, d, s] of cases) expect(printfFixed(x, d), `${x} %.${d}f`).toBe(s);
  });
});

describe('json (VDSim encode_state_json)', () => {
  it('fixed key order and precisions, non-finite as null', () => {
    const v = vehicle();
    const f = v.frame.v;
    Object.assign(f, { [SI.x]: -45.678, [SI.y]: 3.14159, [SI.yaw]: 0.785398, [SI.vx]: 15.25, [SI.vy]: -0.333, [SI.yawRate]: 0.0123456, [SI.ax]: 1.005, [SI.ay]: Number.NaN });
    f.set([4086.5, 4000.4, 3268.9, -0], SI.Fz);
    f.set([0.0123, -0.03456, 0.00005, 1.23456], SI.slipAngle);
    f.set([-0.5, 0.25, 0.1, 0.0001], SI.slipRatio);
    const text = encode('json', ctx(v)).toString('latin1');
    expect(text).toBe(
      '{"id":3,"t":12.346,"x":-45.68,"y":3.14,"yaw":0.7854,"vx":15.25,"vy":-0.33,"r":0.0123,"ax":1.00,"ay":null,' +
        '"Fz":[4086,4000,3269,-0],"alpha":[0.0123,-0.0346,0.0001,1.2346],"kappa":[-0.5000,0.2500,0.1000,0.0001]}',
    );
    expect(() => JSON.parse(text)).not.toThrow();
  });
  it('a frame that does not fit the 512-byte buffer is dropped, never truncated', () => {
    const v = vehicle();
    v.frame.v.fill(1e200);
    expect(findTemplate('json')!.tx!.encode(ctx(v), Buffer.alloc(512))).toBe(-1);
  });
});

describe('nmea_gga (spec §5.2 vectors)', () => {
  it('origin (37.5665, 126.9780, 38.0), zero offset, 12:34:56.78 UTC', () => {
    const v = vehicle();
    expect(encode('nmea_gga', ctx(v)).toString('latin1')).toBe('$GPGGA,123456.78,3733.9900,N,12658.6800,E,1,12,0.9,38.0,M,0.0,M,,*67\r\n');
  });
  it('no fix (non-finite measured position) at the same time', () => {
    const v = vehicle();
    v.frame.v[SI.mGnssX] = Number.NaN;
    expect(encode('nmea_gga', ctx(v)).toString('latin1')).toBe('$GPGGA,123456.78,,,,,0,00,99.9,,M,,M,,*57\r\n');
    v.frame.v[SI.mGnssX] = 0;
    v.frame.v[SI.z] = -6.36e6; // inside the evolute: four answers, no fix
    expect(encode('nmea_gga', ctx(v)).toString('latin1')).toMatch(/^\$GPGGA,123456\.78,,,,,0,00,99\.9,/);
  });
  it('follows the measured GNSS channel (east = m_gnss_x, north = m_gnss_y) and carries 59.995 s into the minute', () => {
    const v = vehicle();
    v.frame.v[SI.mGnssY] = 1000; // 1 km north ≈ 0.009 deg ≈ 0.54 min of latitude
    const s = encode('nmea_gga', ctx(v, { utcMs: Date.UTC(2024, 0, 1, 23, 59, 59, 996) })).toString('latin1');
    const f = s.split(',');
    expect(f[1]).toBe('000000.00');
    expect(Number(f[2].slice(2)) - 33.99).toBeCloseTo((1000 / 111_000) * 60, 1);
    expect(s.slice(s.indexOf('*') + 1, s.indexOf('*') + 3)).toBe(checksum(s));
  });
});

describe('nmea_rmc', () => {
  it('position, speed [kn] and course [deg] from the measured GNSS channels, UTC date; valid checksum', () => {
    const v = vehicle();
    v.sensors.gnssVx = 3; // east
    v.sensors.gnssVy = 4; // north
    const s = encode('nmea_rmc', ctx(v)).toString('latin1');
    const body = 'GPRMC,123456.78,A,3733.9900,N,12658.6800,E,9.72,36.9,010124,,,A';
    expect(s).toBe(`$${body}*${checksum(`$${body}*`)}\r\n`);
    v.frame.v[SI.mGnssY] = Number.POSITIVE_INFINITY;
    expect(encode('nmea_rmc', ctx(v)).toString('latin1')).toMatch(/^\$GPRMC,123456\.78,V,,,,,,,010124,,,N\*/);
  });
});

describe('geodetic inverse', () => {
  it('round-trips the datum, moves north by metres, refuses points inside the evolute', () => {
    const g = { ok: false, lat: 0, lon: 0, alt: 0 };
    enuToGeodetic(0, 0, 0, { lat: 37.5665, lon: 126.978, alt: 38 }, g);
    expect(g.ok).toBe(true);
    expect(g.lat).toBeCloseTo(37.5665, 10);
    expect(g.lon).toBeCloseTo(126.978, 10);
    expect(g.alt).toBeCloseTo(38, 6);
    enuToGeodetic(0, 0, -6.36e6, { lat: 0, lon: 0, alt: 0 }, g);
    expect(g.ok).toBe(false);
    enuToGeodetic(0, 0, 0, { lat: 90, lon: 10, alt: 0 }, g);
    expect([g.ok, g.lat]).toEqual([true, 90]);
  });
});

describe('binary templates', () => {
  it('imu: the documented 76-byte layout with a zlib CRC', () => {
    const v = vehicle();
    Object.assign(v.sensors, { ax: 0.5, ay: -1.25, az: 9.81, wx: 0.01, wy: -0.02, wz: 0.3 });
    const b = encode('imu', ctx(v));
    expect(b.length).toBe(76);
    const dv = new DataView(b.buffer, b.byteOffset, b.length);
    expect(b.subarray(0, 4).toString('latin1')).toBe('IMU1');
    expect([dv.getUint16(4, true), dv.getUint32(8, true), dv.getUint32(12, true), dv.getFloat64(16, true)]).toEqual([1, 41, 3, 12.3456]);
    expect([24, 32, 40, 48, 56, 64].map((o) => dv.getFloat64(o, true))).toEqual([0.5, -1.25, 9.81, 0.01, -0.02, 0.3]);
    expect(dv.getUint32(72, true)).toBe(zlibCrc32(b.subarray(0, 72)));
  });
  it("imu_raw: the Python router's <dddd (ax, ay, wz, 0.0)", () => {
    const v = vehicle();
    Object.assign(v.sensors, { ax: 0.5, ay: -1.25, wz: 0.3 });
    const b = encode('imu_raw', ctx(v));
    expect([0, 8, 16, 24].map((o) => b.readDoubleLE(o))).toEqual([0.5, -1.25, 0.3, 0]);
  });
  it('vds1_state and vds1_cmd write the VDS1 layouts with the shared seq and the vehicle id', () => {
    const v = vehicle();
    STATE_TABLE.forEach((_f, i) => (v.frame.v[i] = i + 0.5));
    const s = encode('vds1_state', ctx(v, { version: 4 }));
    expect(s.length).toBe(436);
    expect([s.readUInt32LE(8), s.readUInt32LE(12), s.readDoubleLE(16), s.readDoubleLE(120)]).toEqual([41, 3, 12.3456, 12.5]);
    Object.assign(v.command, { steer: -0.1, throttle: 0.2, brake: 0.3, gear: -1, handbrake: true });
    const c = encode('vds1_cmd', ctx(v));
    expect(c.length).toBe(76);
    expect([c.readUInt16LE(6), c.readDoubleLE(24), c.readDoubleLE(32), c.readDoubleLE(40), c.readInt32LE(48), c[52]]).toEqual([1, -0.1, 0.2, 0.3, -1, 1]);
    expect(c.readUInt32LE(72)).toBe(zlibCrc32(c.subarray(0, 72)));
  });
});
