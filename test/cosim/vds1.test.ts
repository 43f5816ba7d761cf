import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/cosim/crc32.js';
import {
  CMD_BYTES,
  CmdFields,
  STATE_FIELDS,
  StateFields,
  Vds1CmdReceiver,
  decodeCmd,
  decodeState,
  encodeCmd,
  encodeState,
  stateBytes,
} from '../../src/cosim/vds1.js';
import { STATE_SIZE, STATE_TABLE, distinctFields, readSpecState, specCmd, specState, zlibCrc32 } from './helpers/spec-vectors.js';

const VERSIONS = [1, 2, 3, 4, 5];

function stateFrom(fields: Record<string, number>, seq: number, vehicleId: number, timestamp: number): StateFields {
  const s = new StateFields();
  s.seq = seq;
  s.vehicleId = vehicleId;
  s.timestamp = timestamp;
  STATE_FIELDS.forEach((name, i) => (s.v[i] = fields[name] ?? 0));
  return s;
}

describe('CRC-32 (IEEE 802.3 / zlib)', () => {
  it('check value CRC32("123456789") = 0xCBF43926, and agrees with zlib on sub-ranges', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const buf = Buffer.alloc(600);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 131 + 7) & 0xff;
    for (const [a, b] of [[0, 0], [0, 1], [3, 76], [10, 600], [0, 448]]) expect(crc32(buf, a, b)).toBe(zlibCrc32(buf.subarray(a, b)));
  });
});

describe('STATE layout (spec §1.5–1.6)', () => {
  it('sizes: v1 220, v2 372, v3 436, v4 436, v5 452; the codec field list matches the table names in order', () => {
    for (const v of VERSIONS) expect(stateBytes(v)).toBe(STATE_SIZE[v]);
    expect([...STATE_FIELDS]).toEqual(STATE_TABLE.map((f) => f.name));
    expect(() => stateBytes(6)).toThrow(RangeError);
  });
  for (const v of VERSIONS) {
    it(`v${v}: encodeState writes exactly the bytes the spec table gives, and decodes the table-built datagram`, () => {
      const fields = distinctFields(10 * v);
      const expected = specState({ version: v, seq: 4242, vehicleId: 7, timestamp: 12.5 }, fields);
      const out = Buffer.alloc(512, 0xee);
      const n = encodeState(out, stateFrom(fields, 4242, 7, 12.5), v);
      expect(n).toBe(STATE_SIZE[v]);
      expect(out.subarray(0, n).equals(expected)).toBe(true);
      // header bytes 12..15 are vehicle_id from v4, `_pad` (0) before
      expect(readSpecState(out.subarray(0, n)).header.vehicleId).toBe(v >= 4 ? 7 : 0);

      const back = new StateFields();
      expect(decodeState(expected, expected.length, v, back)).toBeNull();
      expect([back.seq, back.vehicleId, back.timestamp]).toEqual([4242, v >= 4 ? 7 : 0, 12.5]);
      for (const f of STATE_TABLE) expect(back.get(f.name as (typeof STATE_FIELDS)[number])).toBe(f.since <= v ? fields[f.name] : 0);
      expect(decodeState(expected, expected.length, 'any', back)).toBeNull();
    });
  }
  it('the encoder reuses the caller buffer at an offset and writes nothing past the frame', () => {
    const out = Buffer.alloc(600, 0xab);
    const n = encodeState(out, stateFrom(distinctFields(), 1, 0, 0), 5, 100);
    expect(out.subarray(0, 100).every((b) => b === 0xab)).toBe(true);
    expect(out.subarray(100 + n).every((b) => b === 0xab)).toBe(true);
    expect(out.subarray(100, 100 + n).equals(specState({ version: 5, seq: 1 }, distinctFields()))).toBe(true);
  });
});

describe('STATE decoding rules (Python decode_state: exact length, CRC first)', () => {
  const good = specState({ version: 5, seq: 9 }, distinctFields());
  const out = new StateFields();
  it('rejects a wrong length, a bad CRC, then magic / version / type (with a valid CRC)', () => {
    expect(decodeState(good, 451, 5, out)).toBe('short');
    expect(decodeState(Buffer.concat([good, Buffer.alloc(1)]), 453, 5, out)).toBe('length');
    expect(decodeState(good, good.length, 3, out)).toBe('length');
    const flipped = Buffer.from(good);
    flipped[200] ^= 1;
    expect(decodeState(flipped, flipped.length, 5, out)).toBe('crc');
    const reseal = (mut: (b: Buffer) => void) => {
      const b = Buffer.from(good);
      mut(b);
      b.writeUInt32LE(zlibCrc32(b.subarray(0, 448)), 448);
      return b;
    };
    expect(decodeState(reseal((b) => b.writeUInt32LE(0x12345678, 0)), 452, 5, out)).toBe('magic');
    expect(decodeState(reseal((b) => b.writeUInt16LE(4, 4)), 452, 5, out)).toBe('version');
    expect(decodeState(reseal((b) => b.writeUInt16LE(1, 6)), 452, 5, out)).toBe('type');
    expect(decodeState(Buffer.alloc(10), 10, 'any', out)).toBe('short');
  });
});

describe('CMD (spec §1.4, 76 B)', () => {
  it('encodeCmd writes exactly the table bytes; decodeCmd reads a table-built datagram', () => {
    for (const v of VERSIONS) {
      const spec = specCmd({ version: v, seq: 77, vehicleId: 3, timestamp: 1.25 }, { steer: -0.125, throttle: 0.4, brake: 0.05, gear: -1, handbrake: 1, auxAccel: Number.NaN, auxSpeed: 13.5 });
      const c = new CmdFields();
      Object.assign(c, { seq: 77, vehicleId: 3, timestamp: 1.25, steer: -0.125, throttle: 0.4, brake: 0.05, gear: -1, handbrake: 1, auxAccel: Number.NaN, auxSpeed: 13.5 });
      const out = Buffer.alloc(CMD_BYTES);
      expect(encodeCmd(out, c, v)).toBe(76);
      expect(out.equals(spec)).toBe(true);
      const back = new CmdFields();
      expect(decodeCmd(spec, spec.length, v, back)).toBeNull();
      expect({ ...back, auxAccel: String(back.auxAccel) }).toEqual({ seq: 77, vehicleId: v >= 4 ? 3 : 0, timestamp: 1.25, steer: -0.125, throttle: 0.4, brake: 0.05, gear: -1, handbrake: 1, auxAccel: 'NaN', auxSpeed: 13.5 });
    }
  });
  it('rejects in the C++ order: short, magic, version, type, CRC; accepts longer datagrams (first 76 bytes)', () => {
    const c = new CmdFields();
    const good = specCmd({ seq: 1 }, { steer: 0, throttle: 0.1, brake: 0 });
    expect(decodeCmd(good, 75, 5, c)).toBe('short');
    expect(decodeCmd(good.subarray(0, 40), 40, 5, c)).toBe('short');
    const bad = (mut: (b: Buffer) => void, reseal = true) => {
      const b = Buffer.from(good);
      mut(b);
      if (reseal) b.writeUInt32LE(zlibCrc32(b.subarray(0, 72)), 72);
      return b;
    };
    expect(decodeCmd(bad((b) => (b[0] = 0x32)), 76, 5, c)).toBe('magic');
    expect(decodeCmd(bad((b) => b.writeUInt16LE(4, 4)), 76, 5, c)).toBe('version');
    expect(decodeCmd(bad((b) => b.writeUInt16LE(2, 6)), 76, 5, c)).toBe('type');
    expect(decodeCmd(bad((b) => (b[40] ^= 0x10), false), 76, 5, c)).toBe('crc');
    expect(decodeCmd(bad((b) => (b[73] ^= 0x01), false), 76, 5, c)).toBe('crc');
    // a wrong magic with a wrong CRC is reported as magic (magic is checked first, as in decode_cmd)
    expect(decodeCmd(bad((b) => (b[1] = 0), false), 76, 5, c)).toBe('magic');
    const longer = Buffer.concat([good, Buffer.from('trailing junk')]);
    expect(decodeCmd(longer, longer.length, 5, c)).toBeNull();
    expect(c.throttle).toBe(0.1);
  });
});

describe('CMD receiver: vehicle routing and seq rules (spec §1.8)', () => {
  const make = (version = 5) => {
    const vehicles = new Map([[0, { lastSeq: 0 }], [4, { lastSeq: 0 }]]);
    return { vehicles, rx: new Vds1CmdReceiver(version, (id) => vehicles.get(id)) };
  };
  const cmd = (seq: number, vehicleId = 0, version = 5) => specCmd({ seq, vehicleId, version }, { steer: 0.01 * seq, throttle: 0.2, brake: 0 });
  it('drops stale and duplicate seq per vehicle, always accepts seq 0, and counts every drop by reason', () => {
    const { vehicles, rx } = make();
    expect(rx.receive(cmd(5))).toBe(vehicles.get(0));
    expect(rx.cmd.steer).toBeCloseTo(0.05, 12);
    expect(rx.receive(cmd(5))).toBeNull();
    expect(rx.lastReject).toBe('stale_seq');
    expect(rx.receive(cmd(3))).toBeNull();
    expect(rx.receive(cmd(1, 4))).toBe(vehicles.get(4)); // seq is per target vehicle
    expect(rx.receive(cmd(6))).toBe(vehicles.get(0));
    expect(rx.receive(cmd(0))).toBe(vehicles.get(0)); // unsequenced: always accepted, and it resets last_seq (VDSim)
    expect(vehicles.get(0)!.lastSeq).toBe(0);
    expect(rx.receive(cmd(2))).toBe(vehicles.get(0));
    expect(rx.receive(cmd(9, 99))).toBeNull();
    expect(rx.lastReject).toBe('unknown_vehicle');
    expect(rx.receive(Buffer.alloc(10))).toBeNull();
    expect(rx.drops).toEqual({ short: 1, magic: 0, version: 0, type: 0, length: 0, crc: 0, bad_value: 0, stale_seq: 2, unknown_vehicle: 1 });
    expect([rx.received, rx.accepted, rx.dropped]).toEqual([9, 5, 4]);
  });
  it('before v4 the header vehicle_id is padding: every CMD goes to the default vehicle', () => {
    const { vehicles, rx } = make(3);
    expect(rx.receive(cmd(1, 4, 3))).toBe(vehicles.get(0));
    expect(rx.receive(cmd(2, 0, 5))).toBeNull();
    expect(rx.lastReject).toBe('version');
  });
});
