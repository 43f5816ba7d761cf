/**
 * Foxglove live view with the package's own client (@foxglove/ws-protocol FoxgloveClient over a real
 * WebSocket): subprotocol, channels, every message valid against its @foxglove/schemas JSON schema, and at
 * 50 Hz with 63 NPCs no frame lost; also on a port of its own.
 */
import { Ajv } from 'ajv';
import wsProtocol from '@foxglove/ws-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { startServer } from '../helpers/server-fixture.js';

const { FoxgloveClient } = wsProtocol;
type Channel = { id: number; topic: string; encoding: string; schemaName: string; schema: string; schemaEncoding?: string };

let server: VilsServer;
let url: string;

beforeAll(async () => {
  ({ server, url } = await startServer({ config: { npc_target: 63, publish_hz: 50 }, foxglove: { port: 0, host: '127.0.0.1' } }));
});
afterAll(async () => server?.close());

interface Session {
  channels: Channel[];
  messages: Map<string, unknown[]>;
  client: InstanceType<typeof FoxgloveClient>;
  ws: WebSocket;
}

async function connect(address: string, topics: string[] | 'all'): Promise<Session> {
  const ws = new WebSocket(address, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const client = new FoxgloveClient({ ws: ws as never });
  const messages = new Map<string, unknown[]>();
  const bySub = new Map<number, string>();
  const decoder = new TextDecoder();
  const session: Session = { channels: [], messages, client, ws };
  await new Promise<void>((resolve, reject) => {
    client.on('error', reject);
    client.on('advertise', (chs) => {
      session.channels.push(...(chs as Channel[]));
      for (const c of chs as Channel[]) {
        if (topics !== 'all' && !topics.includes(c.topic)) continue;
        bySub.set(client.subscribe(c.id), c.topic);
      }
      resolve();
    });
  });
  client.on('message', ({ subscriptionId, data }) => {
    const topic = bySub.get(subscriptionId)!;
    const list = messages.get(topic) ?? [];
    list.push(JSON.parse(decoder.decode(data as Uint8Array)));
    messages.set(topic, list);
  });
  return session;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Foxglove WebSocket', () => {
  it('speaks foxglove.websocket.v1 with JSON-schema channels, and every message is valid against its schema', async () => {
    const s = await connect(`${url.replace(/^http/, 'ws')}/foxglove`, 'all');
    expect(s.ws.protocol).toBe('foxglove.websocket.v1');
    const topics = s.channels.map((c) => `${c.topic} ${c.schemaName}`).sort();
    expect(topics).toEqual([
      '/vils/fix foxglove.LocationFix', '/vils/fixes foxglove.LocationFixes', '/vils/map foxglove.SceneUpdate',
      '/vils/npc_states vils.npc_states', '/vils/scene foxglove.SceneUpdate', '/vils/signals vils.signals', '/vils/tf foxglove.FrameTransforms',
    ]);
    expect(s.channels.every((c) => c.encoding === 'json' && c.schemaEncoding === 'jsonschema')).toBe(true);
    // an ego, so there are ego boxes, fixes and transforms
    const car = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/vils/stream`);
    await new Promise((r) => car.once('open', r));
    const p = server.host.geo.toLatLon(0, 0);
    car.send(JSON.stringify({ type: 'ego_state', ego_id: 'car1', data: { lat: p.lat, lon: p.lon, heading: 90, speed: 3 } }));
    // until the car is in the scene, its transform and its fix (a hang guard, not a rate: a busy machine is slower)
    const has = (topic: string, pred: (m: any) => boolean) => (s.messages.get(topic) ?? []).some(pred);
    for (let waited = 0; waited < 30_000; waited += 100) {
      if (
        has('/vils/scene', (m) => m.entities.some((e: { id: string }) => e.id === 'ego/car1')) &&
        has('/vils/tf', (m) => m.transforms.length > 0) &&
        has('/vils/fix', () => true)
      ) break;
      await wait(100);
    }
    await wait(300); // and a few messages more on every channel
    car.close();
    s.client.close();
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const c of s.channels) {
      const list = s.messages.get(c.topic) ?? [];
      expect(list.length, c.topic).toBeGreaterThan(0);
      const validate = ajv.compile(JSON.parse(c.schema) as object);
      for (const m of list) {
        if (!validate(m)) throw new Error(`${c.topic}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    const scene = s.messages.get('/vils/scene')!.at(-1) as { entities: Array<{ id: string; cubes: Array<{ color: { r: number } }> }> };
    // (the demo track does not take 63 at once: new NPCs start nowhere near the car standing in the crossing, nor
    // with any part of them in a junction, with room to stop behind the one ahead — 41–47 at the start, 51–54 a
    // second later; and one that reaches its goal leaves before a later step brings a new one)
    const npcs = scene.entities.filter((e) => e.id.startsWith('npc/')).length;
    expect(npcs).toBeGreaterThanOrEqual(40);
    expect(npcs).toBeLessThanOrEqual(63);
    expect(scene.entities.some((e) => e.id === 'ego/car1')).toBe(true);
    const map = s.messages.get('/vils/map')![0] as { entities: Array<{ id: string; lines: Array<{ points: unknown[] }> }> };
    expect(map.entities.map((e) => e.id)).toEqual(expect.arrayContaining(['map/lane', 'map/road_edge', 'map/road_line']));
    expect(map.entities.every((e) => e.lines[0].points.length >= 2)).toBe(true);
    const tf = s.messages.get('/vils/tf')!.at(-1) as { transforms: Array<{ parent_frame_id: string; child_frame_id: string }> };
    expect(tf.transforms).toEqual([expect.objectContaining({ parent_frame_id: 'map', child_frame_id: 'ego/car1' })]);
    const fixes = s.messages.get('/vils/fixes')!.at(-1) as { fixes: Array<{ frame_id: string; latitude: number }> };
    expect(fixes.fixes.length).toBeGreaterThanOrEqual(41); // the NPCs (as above) and the car
    expect(fixes.fixes[0]).toMatchObject({ frame_id: 'ego/car1' });
    expect(fixes.fixes[0].latitude).toBeCloseTo(p.lat, 3);
    expect(fixes.fixes.slice(1).every((f) => f.frame_id.startsWith('npc/'))).toBe(true);
  });

  it('loses no frame at 50 Hz with 63 NPCs, and serves the map to every subscriber', async () => {
    // the population fills over the first seconds (no NPC is started in front of a car that could not slow
    // down for it): measure with all 63 on the track
    for (let k = 0; k < 200 && server.host.scene.npcCount < 63; k++) await wait(100);
    expect(server.host.scene.npcCount).toBe(63);
    const published: number[] = [];
    const sink = { publish: (f: { snapshot: { time: number } }) => published.push(Math.round(f.snapshot.time * 1000)) };
    server.host.runner.addSink(sink as never);
    const a = await connect(`${url.replace(/^http/, 'ws')}/foxglove`, ['/vils/npc_states', '/vils/scene', '/vils/map']);
    const b = await connect(`${url.replace(/^http/, 'ws')}/foxglove`, ['/vils/npc_states', '/vils/map']);
    // 121 frames each (2.4 s at 50 Hz on a quiet machine; the deadline only guards against a hang)
    const count = (s: typeof a) => (s.messages.get('/vils/npc_states') ?? []).length;
    for (let waited = 0; waited < 60_000 && (count(a) <= 120 || count(b) <= 120); waited += 100) await wait(100);
    a.client.close();
    b.client.close();
    server.host.runner.removeSink(sink as never);
    for (const s of [a, b]) {
      const frames = s.messages.get('/vils/npc_states') as Array<{ sim_time_s: number; npcs: unknown[] }>;
      expect(frames.length).toBeGreaterThan(120);
      // every frame published from the first received to the last received arrived, in order
      const got = frames.map((f) => Math.round(f.sim_time_s * 1000));
      const from = published.indexOf(got[0]);
      expect(from).toBeGreaterThanOrEqual(0);
      expect(got).toEqual(published.slice(from, from + got.length));
      expect(frames.every((f) => f.npcs.length >= 55 && f.npcs.length <= 63)).toBe(true);
      expect(Math.max(...frames.map((f) => f.npcs.length))).toBe(63);
      expect(s.messages.get('/vils/map')).toHaveLength(1);
    }
    // a scene with every frame: the two channels' messages of one frame are two WebSocket messages, so the close can
    // fall between them (one frame more on either channel, never more)
    expect(Math.abs(a.messages.get('/vils/scene')!.length - a.messages.get('/vils/npc_states')!.length)).toBeLessThanOrEqual(1);
    expect((server.host.attachments.get('foxglove')!.status() as { dropped: number }).dropped).toBe(0);
  });

  it('serves the default scene on a port of its own, and refuses a client without the subprotocol', async () => {
    const s = await connect(`ws://127.0.0.1:${server.foxglovePort}/`, ['/vils/npc_states']);
    await wait(300);
    s.client.close();
    expect(s.messages.get('/vils/npc_states')!.length).toBeGreaterThan(5);
    const plain = new WebSocket(`${url.replace(/^http/, 'ws')}/foxglove`);
    const code = await new Promise<number>((resolve) => plain.on('close', (c) => resolve(c)));
    expect(code).toBe(1002);
    const nowhere = new WebSocket(`ws://127.0.0.1:${server.foxglovePort}/scenes/nope`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    expect(await new Promise<number>((resolve) => nowhere.on('close', (c) => resolve(c)))).toBe(1008);
  });
});
