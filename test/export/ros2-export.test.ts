/**
 * `vils export`: a recorded session made into ROS 2 messages (MCAP, CDR, ros2msg schemas) on the bridge's topics,
 * read back by an independent reader (mcap-ros2-support, in .venv-ros2) that decodes every message from the schemas
 * in the file, holds each schema against the real rclpy class, and each message against what the bridge's own
 * conversions (vils_bridge.convert) make of the recorded frame (ros2/vils_bridge/test/check_export.py).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { McapWriter } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import { exportCommand } from '../../src/cli/export.js';
import { Ros2Definitions } from '../../src/export/ros2-definitions.js';
import { egoFixTopic, exportRos2 } from '../../src/export/ros2-export.js';
import { NPC_HEIGHT_M, npcUuid } from '../../src/export/ros2-messages.js';
import { readRecording } from '../../src/record/reader.js';
import { have } from '../helpers/prerequisites.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { ROS2_PYTHON } from '../support/prerequisites.mjs';

/** a few seconds of the demo track with one car sending its fixes at 10 Hz, recorded into a folder of its own */
async function recordSession(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'vils-export-'));
  const { server, wsUrl } = await startServer({ config: { npc_target: 8, publish_hz: 10 }, recording: { dir } });
  const car = new TestClient(wsUrl);
  await car.opened();
  const origin = { lat: 37.364684, lon: 126.724149 };
  for (let i = 0; i < 30; i++) {
    const t = Date.now() / 1000;
    car.send({ type: 'ego_state', ego_id: 'car', timestamp: t, data: { lat: origin.lat + i * 1e-6, lon: origin.lon + i * 1e-6, heading: 43.6, speed: 2 } });
    await new Promise((r) => setTimeout(r, 100));
  }
  // the last fix is read and recorded before the socket closes (on a loaded machine it can still be in flight)
  await car.next((m) => m.type === 'npc_states', 5_000).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  car.close();
  await server.close();
  return join(dir, readdirSync(dir).find((f) => f.endsWith('-000.mcap'))!);
}

/**
 * A recording of two npc_states frames (the /vils/npc_states channel as the server records it, JSON): in the
 * first, NPC 7 waits at a red light and NPC 9 in the queue behind it while NPC 8 drives on; in the second nothing
 * holds any. Held NPCs are written into a recording here rather than hoped for in a live one.
 */
async function heldRecording(people = false): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'vils-export-held-')), 'held.mcap');
  const chunks: Uint8Array[] = [];
  let size = 0n;
  const writer = new McapWriter({ writable: { write: async (b: Uint8Array) => { chunks.push(b.slice()); size += BigInt(b.byteLength); }, position: () => size } });
  await writer.start({ profile: '', library: 'ros2-export.test' });
  const channelId = await writer.registerChannel({ topic: '/vils/npc_states', messageEncoding: 'json', schemaId: 0, metadata: new Map() });
  const npc = (id: number, x: number, y: number, hold?: string) => ({ id, x, y, yaw: 0.5, vx: 0, vy: 0, speed: 0, length: 4.5, width: 2.0, collided: false, offroad: false, kind: 'vehicle', ...(hold ? { hold } : {}) });
  // with `people`: a pedestrian (held at a red walk signal) and a cyclist among them in the first frame
  const extra = people
    ? [{ ...npc(2000001, 12, 3, 'red'), length: 0.5, width: 0.6, kind: 'pedestrian', vy: 1.3 }, { ...npc(1000002, 20, 4), length: 1.8, width: 0.6, kind: 'cyclist', vx: 4 }]
    : [];
  const signals = [{ id: 'J1.A', numeric_id: 1, junction: 'J1', state: 'red', code: 'r', time_to_change_s: 4.5, source: 'plan', left: false, lanes: ['R6'] }];
  const frames = [
    { type: 'npc_states', timestamp: 1700000000.25, sim_time_s: 1.0, npcs: [npc(7, 10, -2, 'red'), npc(8, 30, 5), npc(9, 3.5, -2, 'queue'), ...extra], signals },
    { type: 'npc_states', timestamp: 1700000000.35, sim_time_s: 1.1, npcs: [npc(7, 10, -2), npc(8, 31, 5)], signals },
  ];
  for (const [i, f] of frames.entries()) {
    const t = BigInt(Math.round(f.timestamp * 1e3)) * 1_000_000n;
    await writer.addMessage({ channelId, sequence: i, logTime: t, publishTime: t, data: new TextEncoder().encode(JSON.stringify(f)) });
  }
  await writer.end();
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

interface Xyz { x: number; y: number; z: number }
interface DecodedMarker {
  header: { stamp: { sec: number; nanosec: number }; frame_id: string }; ns: string; id: number; type: number; action: number;
  pose: { position: Xyz; orientation: Xyz & { w: number } }; scale: Xyz; lifetime: { sec: number; nanosec: number }; text: string;
}

/** the MarkerArrays on one topic of an exported MCAP, decoded from their CDR with the ros2/interfaces definitions */
async function exportedMarkers(path: string, topic: string): Promise<{ markers: DecodedMarker[] }[]> {
  const reader = new MessageReader(parse(new Ros2Definitions().schema('visualization_msgs/msg/MarkerArray'), { ros2: true }));
  const out: { markers: DecodedMarker[] }[] = [];
  for await (const item of readRecording(path, { topics: new Set([topic]) })) {
    if (item.type === 'message') out.push(reader.readMessage<{ markers: DecodedMarker[] }>(item.message.data));
  }
  return out;
}

describe('vils export (ROS 2)', () => {
  it('writes each held NPC\'s hold as a text marker above its box on /vils/npcs/holds, an empty array when none is held', async () => {
    const recording = await heldRecording();
    const out = join(mkdtempSync(join(tmpdir(), 'vils-export-out-')), 'held-ros2.mcap');
    const r = await exportRos2(recording, out);
    expect(r.frames).toBe(2);
    expect(r.topics['/vils/npcs/holds']).toBe(2);
    const [held, none] = await exportedMarkers(out, '/vils/npcs/holds');
    const TEXT_VIEW_FACING = new Ros2Definitions().get('visualization_msgs/Marker').constants.TEXT_VIEW_FACING;
    expect(TEXT_VIEW_FACING).toBe(9);
    expect(held.markers.map((m) => [m.ns, m.id, m.type, m.action, m.text])).toEqual([
      ['vils_npc_holds', 7, TEXT_VIEW_FACING, 0, 'red'],
      ['vils_npc_holds', 9, TEXT_VIEW_FACING, 0, 'queue'],
    ]);
    const [m] = held.markers;
    expect(m.header).toEqual({ stamp: { sec: 1700000000, nanosec: 250000000 }, frame_id: 'vils_map' });
    expect(m.pose).toEqual({ position: { x: 10, y: -2, z: NPC_HEIGHT_M + 0.6 }, orientation: { x: 0, y: 0, z: 0, w: 1 } });
    expect(m.scale).toEqual({ x: 0, y: 0, z: 1 });
    expect(m.lifetime).toEqual({ sec: 0, nanosec: 300_000_000 });
    expect(none.markers).toEqual([]);
    // the boxes stay one per NPC, held or not
    const boxes = await exportedMarkers(out, '/vils/npcs/markers');
    expect(boxes.map((b) => b.markers.map((x) => x.id))).toEqual([[7, 8, 9], [7, 8]]);
  });


  it('classifies each NPC by its kind: Autoware CAR, PEDESTRIAN (an upright cylinder), BICYCLE, with its size', async () => {
    const recording = await heldRecording(true);
    const out = join(mkdtempSync(join(tmpdir(), 'vils-export-out-')), 'people-ros2.mcap');
    await exportRos2(recording, out);
    const defs = new Ros2Definitions();
    const C = defs.get('autoware_perception_msgs/ObjectClassification').constants;
    const S = defs.get('autoware_perception_msgs/Shape').constants;
    expect([C.CAR, C.BICYCLE, C.PEDESTRIAN, S.BOUNDING_BOX, S.CYLINDER]).toEqual([1, 6, 7, 0, 1]);
    const reader = new MessageReader(parse(defs.schema('autoware_perception_msgs/msg/PredictedObjects'), { ros2: true }));
    type Obj = { classification: Array<{ label: number; probability: number }>; shape: { type: number; dimensions: Xyz } };
    const objects: Obj[][] = [];
    for await (const item of readRecording(out, { topics: new Set(['/vils/npcs/objects']) })) {
      if (item.type === 'message') objects.push(reader.readMessage<{ objects: Obj[] }>(item.message.data).objects);
    }
    const first = objects[0];
    expect(first.map((o) => o.classification.map((c) => c.label))).toEqual([[C.CAR], [C.CAR], [C.CAR], [C.PEDESTRIAN], [C.BICYCLE]]);
    expect(first.map((o) => o.shape.type)).toEqual([S.BOUNDING_BOX, S.BOUNDING_BOX, S.BOUNDING_BOX, S.CYLINDER, S.BOUNDING_BOX]);
    const f32 = (v: number) => Math.fround(v);
    expect(first[3].shape.dimensions).toEqual({ x: 0.6, y: 0.6, z: 1.75 });
    expect(first[4].shape.dimensions).toEqual({ x: 1.8, y: 0.6, z: 1.7 });
    expect(f32(first[0].shape.dimensions.z)).toBe(f32(NPC_HEIGHT_M));
    // the markers: a cylinder for the pedestrian, boxes for the rest
    const M = defs.get('visualization_msgs/Marker').constants;
    const [markers] = await exportedMarkers(out, '/vils/npcs/markers');
    expect(markers.markers.map((m) => m.type)).toEqual([M.CUBE, M.CUBE, M.CUBE, M.CYLINDER, M.CUBE]);
  });

  it('writes schemas as rosbag2 does: the type, then each type it uses once, after a line of = and MSG:', () => {
    const s = new Ros2Definitions().schema('visualization_msgs/msg/MarkerArray');
    expect(s.startsWith('Marker[] markers\n')).toBe(true);
    const used = [...s.matchAll(/^MSG: (\S+)$/gm)].map((m) => m[1]);
    expect(used.slice(0, 2)).toEqual(['visualization_msgs/Marker', 'std_msgs/Header']);
    expect(new Set(used).size).toBe(used.length);
    expect(used).toEqual(expect.arrayContaining(['builtin_interfaces/Time', 'sensor_msgs/CompressedImage', 'visualization_msgs/MeshFile', 'geometry_msgs/Quaternion']));
    expect(s).toContain(`${'='.repeat(80)}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n`);
  });

  it('gives an NPC the Autoware object id the bridge gives it (uuid5 of its id)', () => {
    // vils_bridge.convert.npc_uuid(7): Python's uuid.uuid5(uuid.NAMESPACE_URL, 'vils::npc:7').hex
    expect(Buffer.from(npcUuid(7)).toString('hex')).toBe('3338b4f2655757a18644800913264193');
  });

  it('refuses to run without --out and with a bad --map-offset', async () => {
    await expect(exportCommand.run(['x.mcap'])).rejects.toThrow(/--out <file.mcap> is required/);
    await expect(exportCommand.run(['x.mcap', '--out', 'y.mcap', '--map-offset', '1,2'])).rejects.toThrow(/--map-offset is x,y,z,yaw/);
  });

  describe.skipIf(!have('ros2'))('read back by mcap-ros2-support (.venv-ros2)', () => {
    it('exports held NPCs\' hold texts as vils_bridge.convert.npc_hold_markers makes them, field for field', async () => {
      const recording = await heldRecording();
      const out = join(mkdtempSync(join(tmpdir(), 'vils-export-out-')), 'held-ros2.mcap');
      const r = await exportRos2(recording, out);
      const check = spawnSync(ROS2_PYTHON, [join(PROJECT_ROOT, 'ros2', 'vils_bridge', 'test', 'check_export.py'), recording, out], { encoding: 'utf8', timeout: 120_000 });
      if (check.status !== 0) console.error(check.stdout, check.stderr);
      expect(check.status).toBe(0);
      const summary = JSON.parse(check.stdout) as { frames: number; held: number; topics: Record<string, number> };
      expect(summary).toMatchObject({ frames: 2, held: 2, topics: r.topics });
    }, 180_000);

    it('exports pedestrians and cyclists as vils_bridge.convert classifies and shapes them, field for field', async () => {
      const recording = await heldRecording(true);
      const out = join(mkdtempSync(join(tmpdir(), 'vils-export-out-')), 'people-ros2.mcap');
      const r = await exportRos2(recording, out);
      const check = spawnSync(ROS2_PYTHON, [join(PROJECT_ROOT, 'ros2', 'vils_bridge', 'test', 'check_export.py'), recording, out], { encoding: 'utf8', timeout: 120_000 });
      if (check.status !== 0) console.error(check.stdout, check.stderr);
      expect(check.status).toBe(0);
      expect(JSON.parse(check.stdout)).toMatchObject({ frames: 2, held: 3, topics: r.topics });
    }, 180_000);

    it('decodes every message, with the real definitions\' fields, each as the bridge converts its frame', async () => {
      const recording = await recordSession();
      const out = join(mkdtempSync(join(tmpdir(), 'vils-export-out-')), 'session-ros2.mcap');
      const r = await exportRos2(recording, out);
      expect(r.egos).toEqual(['car']);
      expect(r.frames).toBeGreaterThan(20);
      expect(r.topics[egoFixTopic('car')]).toBe(30);
      const check = spawnSync(ROS2_PYTHON, [join(PROJECT_ROOT, 'ros2', 'vils_bridge', 'test', 'check_export.py'), recording, out], { encoding: 'utf8', timeout: 120_000 });
      if (check.status !== 0) console.error(check.stdout, check.stderr);
      expect(check.status).toBe(0);
      const summary = JSON.parse(check.stdout) as { frames: number; topics: Record<string, number>; types: Record<string, string> };
      expect(summary.frames).toBe(r.frames);
      expect(summary.topics).toEqual(r.topics);
      expect(summary.types).toEqual({
        '/perception/traffic_light_recognition/traffic_signals': 'autoware_perception_msgs/msg/TrafficLightGroupArray',
        '/tf': 'tf2_msgs/msg/TFMessage',
        '/tf_static': 'tf2_msgs/msg/TFMessage',
        '/vils/egos/car/fix': 'sensor_msgs/msg/NavSatFix',
        '/vils/npcs/detections': 'vision_msgs/msg/Detection3DArray',
        '/vils/npcs/holds': 'visualization_msgs/msg/MarkerArray',
        '/vils/npcs/markers': 'visualization_msgs/msg/MarkerArray',
        '/vils/npcs/objects': 'autoware_perception_msgs/msg/PredictedObjects',
        '/vils/signals': 'std_msgs/msg/String',
      });
    }, 180_000);
  });
});
