/**
 * `vils export`: a recorded session made into ROS 2 messages (MCAP, CDR, ros2msg schemas) on the bridge's topics,
 * read back by an independent reader (mcap-ros2-support, in .venv-ros2) that decodes every message from the schemas
 * in the file, holds each schema against the real rclpy class, and each message against what the bridge's own
 * conversions (vils_bridge.convert) make of the recorded frame (ros2/vils_bridge/test/check_export.py).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportCommand } from '../../src/cli/export.js';
import { Ros2Definitions } from '../../src/export/ros2-definitions.js';
import { egoFixTopic, exportRos2 } from '../../src/export/ros2-export.js';
import { npcUuid } from '../../src/export/ros2-messages.js';
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
  car.close();
  await server.close();
  return join(dir, readdirSync(dir).find((f) => f.endsWith('-000.mcap'))!);
}

describe('vils export (ROS 2)', () => {
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
        '/vils/npcs/markers': 'visualization_msgs/msg/MarkerArray',
        '/vils/npcs/objects': 'autoware_perception_msgs/msg/PredictedObjects',
        '/vils/signals': 'std_msgs/msg/String',
      });
    }, 180_000);
  });
});
