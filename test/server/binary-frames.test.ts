/**
 * Compact frames: a stream client that connects with ?format=binary gets npc_states as binary messages
 * (src/server/wire-binary.ts) that decode to exactly the JSON frame other clients get; everything else it
 * receives stays JSON text, and JSON stays the default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { BINARY_HEADER_BYTES, BINARY_NPC_BYTES, decodeNpcStatesBinary, encodeNpcStatesBinary } from '../../src/server/wire-binary.js';
import type { NpcStatesFrame } from '../../src/server/wire.js';
import { startServer } from '../helpers/server-fixture.js';

let server: VilsServer;
let wsUrl: string;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  ({ server, wsUrl } = await startServer({ config: { npc_target: 40, publish_hz: 20 } }));
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.close();
});

interface Received {
  text: Array<Record<string, any>>;
  binary: Buffer[];
  bytes: number[];
}

async function connect(query = ''): Promise<{ ws: WebSocket; got: Received }> {
  const ws = new WebSocket(wsUrl + query);
  sockets.push(ws);
  const got: Received = { text: [], binary: [], bytes: [] };
  ws.on('message', (data: Buffer, isBinary) => {
    got.bytes.push(data.length);
    if (isBinary) got.binary.push(data);
    else got.text.push(JSON.parse(data.toString()) as Record<string, any>);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, got };
}

const until = async (cond: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('binary npc_states', () => {
  it('decodes to exactly the JSON frame of the same instant; replies stay JSON text', async () => {
    const json = await connect();
    const bin = await connect('?format=binary');
    await until(() => bin.got.binary.length >= 10 && json.got.text.length >= 10);
    // an ego, so frames carry one (with its client timestamp)
    bin.ws.send(JSON.stringify({ type: 'ego_state', ego_id: 'car-é', timestamp: Date.now() / 1000, data: { lat: 37.3645, lon: 126.7239, heading: 30, speed: 4 } }));
    bin.ws.send(JSON.stringify({ type: 'ping' }));
    bin.ws.send('not json');
    await until(() => bin.got.text.some((m) => m.type === 'pong') && bin.got.text.some((m) => m.type === 'error'));
    await until(() => bin.got.binary.some((b) => decodeNpcStatesBinary(b).egos.length > 0));
    expect(bin.got.text.every((m) => m.type !== 'npc_states')).toBe(true);
    expect(json.got.text.every((m) => m.type !== 'signal_states')).toBe(true);
    expect(json.got.binary).toHaveLength(0);
    const decoded = bin.got.binary.map(decodeNpcStatesBinary);
    let matched = 0;
    for (const f of decoded) {
      const found = json.got.text.find((m) => m.type === 'npc_states' && m.timestamp === f.timestamp);
      if (!found) continue;
      // binary frames carry NPCs and egos; the signal states come as signal_states text messages, and the
      // egos' heading_source and what is known of their fixes' timing only in JSON (GET /api/egos)
      const { signals, ...same } = found;
      expect(signals).toEqual(expect.any(Array));
      const JSON_ONLY = ['accel', 'yaw_rate', 'fix_time_s', 'latency_s', 'clock_offset_s', 'clock_source', 'out_of_order', 'clock_jumps'];
      same.egos = same.egos.map(({ heading_source: hs, ...e }: { heading_source?: string } & Record<string, unknown>) => {
        expect(hs).toBe('reported');
        expect(e.clock_source).toBe('synced');
        return Object.fromEntries(Object.entries(e).filter(([k]) => !JSON_ONLY.includes(k)));
      });
      expect(JSON.stringify(f)).toBe(JSON.stringify(same));
      matched++;
    }
    expect(matched).toBeGreaterThan(5);
    expect(decoded.some((f) => f.egos.some((e) => e.ego_id === 'car-é' && e.timestamp !== null))).toBe(true);
    // about a fifth of the bytes
    const last = decoded[decoded.length - 1];
    const binBytes = bin.got.binary[bin.got.binary.length - 1].length;
    expect(binBytes).toBe(BINARY_HEADER_BYTES + last.npcs.length * BINARY_NPC_BYTES + last.egos.reduce((a, e) => a + 29 + Buffer.byteLength(e.ego_id), 0));
    expect(binBytes * 4).toBeLessThan(JSON.stringify(last).length);
  });

  it('refuses an unknown format with 1008', async () => {
    const ws = new WebSocket(`${wsUrl}?format=xml`);
    sockets.push(ws);
    const code = await new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    expect(code).toBe(1008);
  });

  it('round-trips the JSON rounding of every field, signs and limits included', () => {
    const frame: NpcStatesFrame = {
      type: 'npc_states', timestamp: 1712345678.123456, sim_time_s: 12.3, step: 123, state: 'paused',
      npcs: [
        { id: 1, x: -1234.567, y: 0.001, lat: 37.3645123, lon: 126.7239876, yaw: -3.141, heading: 359.999, speed: 0, vx: -0.001, vy: 13.9, length: 4.5, width: 2, collided: true, offroad: false, kind: 'vehicle' },
        { id: 63, x: 2000000.5, y: -0.5, lat: -33.8688, lon: -179.9999999, yaw: 3.142, heading: -0.001, speed: 40.123, vx: 40.123, vy: 0, length: 30, width: 10, collided: false, offroad: true, kind: 'vehicle' },
        // why an NPC is held rides in the record too (byte 43)
        { id: 7, x: 1, y: 2, lat: 37.1, lon: 126.1, yaw: 0, heading: 90, speed: 0, vx: 0, vy: 0, length: 4.5, width: 2, collided: false, offroad: false, kind: 'vehicle', hold: 'red' },
        { id: 8, x: 1, y: 2, lat: 37.1, lon: 126.1, yaw: 0, heading: 90, speed: 0.5, vx: 0.5, vy: 0, length: 4.5, width: 2, collided: false, offroad: false, kind: 'vehicle', hold: 'queue' },
        // and what it is (bits 3–4 of the flags byte), beside the other flags and the hold
        { id: 2000001, x: 3, y: 4, lat: 37.1, lon: 126.1, yaw: 1.571, heading: 0, speed: 1.4, vx: 0, vy: 1.4, length: 0.5, width: 0.5, collided: true, offroad: true, kind: 'pedestrian', hold: 'red' },
        { id: 1000002, x: 5, y: 6, lat: 37.1, lon: 126.1, yaw: -1.571, heading: 180, speed: 4.2, vx: 0, vy: -4.2, length: 1.8, width: 0.6, collided: false, offroad: false, kind: 'cyclist' },
      ],
      metrics: { sim_time_ms: 1.234, policy_time_ms: 0, total_time_ms: 1234.567, num_active_npcs: 6 },
      egos: [
        { ego_id: 'ego', x: 1.5, y: -2.25, yaw: 0.785, speed: 5.5, length: 4.5, width: 2, stale: false, collided: true, timestamp: 1712345678.1 },
        { ego_id: '車', x: 0, y: 0, yaw: 0, speed: 0, length: 4.5, width: 2, stale: true, collided: false, timestamp: null },
      ],
    };
    expect(JSON.stringify(decodeNpcStatesBinary(encodeNpcStatesBinary(frame)))).toBe(JSON.stringify(frame));
    // the kind sits in the flags byte's bits 3–4: 1 pedestrian, 2 cyclist; the other flags stay where they were
    const buf = encodeNpcStatesBinary(frame);
    const flagsOf = (k: number) => buf[BINARY_HEADER_BYTES + k * BINARY_NPC_BYTES + 42];
    expect([0, 1, 2, 3, 4, 5].map(flagsOf)).toEqual([1, 2, 0, 0, 8 | 1 | 2, 16]);
    // a frame from a server before kinds (those bits 0) reads as vehicles
    buf[BINARY_HEADER_BYTES + 4 * BINARY_NPC_BYTES + 42] &= 7;
    expect(decodeNpcStatesBinary(buf).npcs[4]).toMatchObject({ kind: 'vehicle', collided: true, offroad: true, hold: 'red' });
    const empty: NpcStatesFrame = { ...frame, state: 'running', npcs: [], egos: [], metrics: { ...frame.metrics, num_active_npcs: 0 } };
    expect(encodeNpcStatesBinary(empty)).toHaveLength(BINARY_HEADER_BYTES);
    expect(decodeNpcStatesBinary(encodeNpcStatesBinary(empty))).toEqual(empty);
    expect(() => decodeNpcStatesBinary(Buffer.from('{"type":"npc_states"}'))).toThrow(/not a binary/);
  });
});
