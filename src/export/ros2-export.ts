/**
 * `vils export`: a VILS recording (MCAP, JSON on VILS's own topics) made into an MCAP that `ros2 bag play` replays
 * into a ROS 2 stack: ROS 2 CDR messages with `ros2msg` schemas on the ROS 2 bridge's topics, as the bridge would
 * have published the session live (its markers, hold texts, detections, Autoware objects, traffic lights and
 * signals' JSON, from every recorded npc_states frame), each ego's GNSS fix as it came in (sensor_msgs/NavSatFix),
 * and tf: the car's map frame to the VILS frame on /tf_static, the VILS frame to each ego on /tf. Every message keeps
 * the time it was recorded at (log time), so the bag plays at the session's pace; header stamps are the frames' own.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import zstd from '@foxglove/wasm-zstd';
import { McapWriter, type IWritable } from '@mcap/core';
import { decodeJson, readSession, sessionSegments } from '../record/reader.js';
import { GeoFrame } from '../geo/frame.js';
import { Ros2Definitions } from './ros2-definitions.js';
import { detectionArray, holdMarkerArray, markerArray, navSatFix, predictedObjects, stampOf, transform } from './ros2-messages.js';
import type { NpcStatesMessage } from '../protocol/index.js';
import { parseGroupIds, signalsJson, trafficLightGroups } from './ros2-signals.js';

export interface Ros2ExportOptions {
  /** the frame the NPCs are in (the bridge's frame_id) */
  frameId?: string;
  /** the car's map frame (the bridge's map_frame) and the VILS frame's pose in it: x, y, z [m], yaw [rad] */
  mapFrame?: string;
  mapOffset?: [number, number, number, number];
  /** the bridge's traffic_light_group_ids ('J1.A=1001,...'; '' = each group's numeric_id) */
  trafficLightGroupIds?: string;
  trafficLightsTopic?: string;
  signalsTopic?: string;
}

export interface Ros2ExportResult {
  /** messages written per topic */
  topics: Record<string, number>;
  frames: number;
  egos: string[];
  durationS: number;
}

/** the topic each ego's fixes go on (ros2 bag play --remap puts them on the car's own fix topic) */
export const egoFixTopic = (egoId: string) => `/vils/egos/${egoId.replace(/[^A-Za-z0-9_]/g, '_')}/fix`;

/** a file written synchronously (one export at a time; the promise is for @mcap/core's interface) */
class FileSink implements IWritable {
  private readonly fd: number;
  private pos = 0n;
  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
  }
  async write(buffer: Uint8Array): Promise<void> {
    for (let off = 0; off < buffer.byteLength; ) off += writeSync(this.fd, buffer, off, buffer.byteLength - off);
    this.pos += BigInt(buffer.byteLength);
  }
  position(): bigint {
    return this.pos;
  }
  close(): void {
    closeSync(this.fd);
  }
}

interface StreamInput { outcome: string; message: string; arrival_wall: number }
interface EgoStateMessage { type?: string; ego_id?: string; timestamp?: number; data?: { lat?: number; lon?: number; alt?: number } }

export async function exportRos2(input: string, out: string, opts: Ros2ExportOptions = {}): Promise<Ros2ExportResult> {
  const frameId = opts.frameId ?? 'vils_map';
  const mapFrame = opts.mapFrame ?? 'map';
  const [ox, oy, oz, oyaw] = opts.mapOffset ?? [0, 0, 0, 0];
  const groupIds = parseGroupIds(opts.trafficLightGroupIds ?? '');
  const lightsTopic = opts.trafficLightsTopic ?? '/perception/traffic_light_recognition/traffic_signals';
  const signalsTopic = opts.signalsTopic ?? '/vils/signals';
  const defs = new Ros2Definitions();
  const T = {
    markers: defs.get('visualization_msgs/MarkerArray'), detections: defs.get('vision_msgs/Detection3DArray'),
    objects: defs.get('autoware_perception_msgs/PredictedObjects'), lights: defs.get('autoware_perception_msgs/TrafficLightGroupArray'),
    string: defs.get('std_msgs/String'), tf: defs.get('tf2_msgs/TFMessage'), fix: defs.get('sensor_msgs/NavSatFix'),
  };
  const marker = defs.get('visualization_msgs/Marker').constants;
  const classification = defs.get('autoware_perception_msgs/ObjectClassification').constants;
  const shape = defs.get('autoware_perception_msgs/Shape').constants;
  const element = defs.get('autoware_perception_msgs/TrafficLightElement').constants;

  await zstd.isLoaded;
  const sink = new FileSink(out);
  const writer = new McapWriter({
    writable: sink,
    chunkSize: 1 << 20,
    compressChunk: (data) => (data.byteLength === 0 ? { compression: '', compressedData: data } : { compression: 'zstd', compressedData: zstd.compress(data, 3) }),
  });
  await writer.start({ profile: 'ros2', library: 'vils export' });
  const schemaIds = new Map<string, number>();
  const channels = new Map<string, number>();
  const topics: Record<string, number> = {};
  const channel = async (topic: string, type: { name: string; schema: string }) => {
    let id = channels.get(topic);
    if (id === undefined) {
      let schemaId = schemaIds.get(type.name);
      if (schemaId === undefined) {
        schemaId = await writer.registerSchema({ name: type.name, encoding: 'ros2msg', data: new TextEncoder().encode(type.schema) });
        schemaIds.set(type.name, schemaId);
      }
      id = await writer.registerChannel({ topic, messageEncoding: 'cdr', schemaId, metadata: new Map() });
      channels.set(topic, id);
    }
    return id;
  };
  let sequence = 0;
  const write = async (topic: string, type: { name: string; schema: string; write(m: unknown): Uint8Array }, logTime: bigint, message: unknown) => {
    const channelId = await channel(topic, type);
    await writer.addMessage({ channelId, sequence: sequence++, logTime, publishTime: logTime, data: type.write(message) });
    topics[topic] = (topics[topic] ?? 0) + 1;
  };

  let geo: GeoFrame | null = null;
  const fixedEgos = new Set<string>(); // egos whose own fixes (ego_state) are in the recording
  const egos = new Set<string>();
  let frames = 0;
  let first: bigint | null = null;
  let last = 0n;
  const wanted = new Set(['/vils/npc_states', '/vils/inputs/stream']);
  for await (const item of readSession(sessionSegments(input), { topics: wanted })) {
    if (item.type === 'metadata' && item.name === 'vils.session' && geo === null) {
      const origin = item.metadata.get('origin');
      if (origin) geo = new GeoFrame(JSON.parse(origin) as { lat: number; lon: number });
      continue;
    }
    if (item.type !== 'message') continue;
    const { topic, logTime, data } = item.message;
    if (first === null) {
      first = logTime;
      // the car's map frame to the VILS frame, once (the bridge publishes it latched on /tf_static)
      await write('/tf_static', T.tf, logTime, transform(stampOf(Number(logTime) / 1e9), mapFrame, frameId, ox, oy, oz, oyaw));
    }
    last = logTime;
    if (topic === '/vils/inputs/stream') {
      const input = decodeJson<StreamInput>(data);
      if (input.outcome !== 'ok' || !input.message.includes('ego_state')) continue;
      let msg: EgoStateMessage;
      try {
        msg = JSON.parse(input.message) as EgoStateMessage;
      } catch {
        continue;
      }
      if (msg.type !== 'ego_state' || typeof msg.data?.lat !== 'number' || typeof msg.data.lon !== 'number') continue;
      const id = msg.ego_id ?? 'ego';
      fixedEgos.add(id);
      egos.add(id);
      // stamped with the moment the car took it (as the bridge sent it), else its arrival
      const stamp = stampOf(typeof msg.timestamp === 'number' ? msg.timestamp : input.arrival_wall);
      await write(egoFixTopic(id), T.fix, logTime, navSatFix(stamp, `vils/${id}/gnss`, msg.data.lat, msg.data.lon, msg.data.alt));
      continue;
    }
    const frame = decodeJson<NpcStatesMessage>(data);
    frames++;
    await write('/vils/npcs/markers', T.markers, logTime, markerArray(frame, frameId, { CUBE: marker.CUBE, CYLINDER: marker.CYLINDER, ADD: marker.ADD }));
    await write('/vils/npcs/holds', T.markers, logTime, holdMarkerArray(frame, frameId, { TEXT_VIEW_FACING: marker.TEXT_VIEW_FACING, ADD: marker.ADD }));
    await write('/vils/npcs/detections', T.detections, logTime, detectionArray(frame, frameId));
    await write('/vils/npcs/objects', T.objects, logTime, predictedObjects(frame, frameId, {
      UNKNOWN: classification.UNKNOWN, CAR: classification.CAR, PEDESTRIAN: classification.PEDESTRIAN, BICYCLE: classification.BICYCLE,
      BOUNDING_BOX: shape.BOUNDING_BOX, CYLINDER: shape.CYLINDER,
    }));
    const lights = trafficLightGroups(frame, groupIds, element);
    if (lights) await write(lightsTopic, T.lights, logTime, lights);
    const side = signalsJson(frame, groupIds);
    if (side !== null) await write(signalsTopic, T.string, logTime, { data: side });
    const frameEgos = frame.egos ?? [];
    if (frameEgos.length > 0) {
      const stamp = stampOf(frame.timestamp);
      await write('/tf', T.tf, logTime, { transforms: frameEgos.map((e) => transform(stamp, frameId, `vils/${e.ego_id}`, e.x, e.y, 0, e.yaw).transforms[0]) });
      for (const e of frameEgos) {
        egos.add(e.ego_id);
        // a simulated ego sends no fixes: its position in the frame is its fix
        if (!fixedEgos.has(e.ego_id) && geo) {
          const { lat, lon } = geo.toLatLon(e.x, e.y);
          await write(egoFixTopic(e.ego_id), T.fix, logTime, navSatFix(stamp, `vils/${e.ego_id}/gnss`, lat, lon, undefined));
        }
      }
    }
  }
  await writer.end();
  sink.close();
  return { topics, frames, egos: [...egos].sort(), durationS: first === null ? 0 : Number(last - first) / 1e9 };
}
