/**
 * What the ROS 2 bridge publishes for one npc_states frame, as plain message objects for the CDR writer: the same
 * conversions as ros2/vils_bridge/vils_bridge/convert.py and node.py (markers, the held NPCs' hold texts,
 * detections, Autoware objects, traffic light groups and the signals' JSON), so a recording exported by `vils export`
 * plays back into a ROS 2 stack as the bridge would have published the session live. A test holds the two against
 * each other on one recording.
 */
import { createHash } from 'node:crypto';
import type { NpcFrameEntry, NpcStatesMessage, SignalFrameEntry } from '../protocol/index.js';

export const NPC_HEIGHT_M = 1.6;
const COLOR_OK = [0.2, 0.55, 1.0, 0.9];
const COLOR_COLLIDED = [1.0, 0.15, 0.1, 0.95];
const COLOR_OFFROAD = [1.0, 0.6, 0.1, 0.95];
const MARKER_LIFETIME_NS = 300_000_000;
/** a hold's text marker (convert.COLOR_HOLD_TEXT, HOLD_TEXT_HEIGHT_M, HOLD_TEXT_ABOVE_M) */
const COLOR_HOLD_TEXT = [1.0, 1.0, 1.0, 0.95];
const HOLD_TEXT_HEIGHT_M = 1.0;
const HOLD_TEXT_ABOVE_M = 0.6;

export interface Stamp { sec: number; nanosec: number }
type Quaternion = { x: number; y: number; z: number; w: number };

/** (sec, nanosec) of a wall-clock time in seconds, as convert.frame_stamp */
export function stampOf(t: number): Stamp {
  const sec = Math.floor(t);
  return { sec, nanosec: Math.round((t - sec) * 1e9) % 1_000_000_000 };
}

export function yawQuaternion(yaw: number): Quaternion {
  return { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
}

/** uuid5(NAMESPACE_URL, `vils:${session}:npc:${id}`): the NPC's stable Autoware object id, as convert.npc_uuid */
export function npcUuid(id: number, session = ''): number[] {
  const ns = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');
  const h = createHash('sha1').update(ns).update(`vils:${session}:npc:${Math.trunc(id)}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  return [...h.subarray(0, 16)];
}

const header = (stamp: Stamp, frameId: string) => ({ stamp, frame_id: frameId });
const pose = (x: number, y: number, z: number, yaw: number) => ({ position: { x, y, z }, orientation: yawQuaternion(yaw) });

/**
 * How each kind of moving object is classified and drawn, as convert.KINDS: Autoware's ObjectClassification label and
 * Shape type and the Marker type (by the names of their constants), the vision_msgs class id and the height [m]. A
 * pedestrian is an upright cylinder, x = y = its diameter, as Autoware's own pedestrians; a kind not known here is
 * UNKNOWN, shaped as a vehicle.
 */
export interface KindClass { label: 'CAR' | 'PEDESTRIAN' | 'BICYCLE' | 'UNKNOWN'; classId: string; shape: 'BOUNDING_BOX' | 'CYLINDER'; marker: 'CUBE' | 'CYLINDER'; heightM: number }
export const KINDS: Readonly<Record<string, KindClass>> = {
  vehicle: { label: 'CAR', classId: 'car', shape: 'BOUNDING_BOX', marker: 'CUBE', heightM: NPC_HEIGHT_M },
  pedestrian: { label: 'PEDESTRIAN', classId: 'pedestrian', shape: 'CYLINDER', marker: 'CYLINDER', heightM: 1.75 },
  cyclist: { label: 'BICYCLE', classId: 'bicycle', shape: 'BOUNDING_BOX', marker: 'CUBE', heightM: 1.7 },
};
const KIND_UNKNOWN: KindClass = { ...KINDS.vehicle, label: 'UNKNOWN', classId: 'unknown' };

export function kindOf(n: NpcFrameEntry): KindClass {
  return Object.hasOwn(KINDS, n.kind ?? 'vehicle') ? KINDS[n.kind ?? 'vehicle'] : KIND_UNKNOWN;
}

/** {x, y, z} of an NPC's body: length, width, its kind's height; a cylinder's x and y its diameter (convert.npc_size) */
export function npcSize(n: NpcFrameEntry): { x: number; y: number; z: number } {
  const k = kindOf(n);
  if (k.shape === 'CYLINDER') {
    const d = Math.max(n.length, n.width);
    return { x: d, y: d, z: k.heightM };
  }
  return { x: n.length, y: n.width, z: k.heightM };
}

function color(n: NpcFrameEntry): number[] {
  return n.collided ? COLOR_COLLIDED : n.offroad ? COLOR_OFFROAD : COLOR_OK;
}

/** visualization_msgs/MarkerArray: one CUBE per NPC, a CYLINDER per pedestrian (Marker.CUBE, CYLINDER, ADD from the definition) */
export function markerArray(frame: NpcStatesMessage, frameId: string, c: { CUBE: number; CYLINDER: number; ADD: number }) {
  const stamp = stampOf(frame.timestamp);
  return {
    markers: (frame.npcs ?? []).map((n) => {
      const [r, g, b, a] = color(n);
      const size = npcSize(n);
      return {
        header: header(stamp, frameId), ns: 'vils_npcs', id: Math.trunc(n.id), type: c[kindOf(n).marker], action: c.ADD,
        pose: pose(n.x, n.y, size.z / 2, n.yaw), scale: size,
        color: { r, g, b, a }, lifetime: { sec: 0, nanosec: MARKER_LIFETIME_NS },
      };
    }),
  };
}

/**
 * visualization_msgs/MarkerArray on /vils/npcs/holds: one TEXT_VIEW_FACING marker per NPC with a hold, its text the
 * hold, above the NPC's box (Marker.TEXT_VIEW_FACING, Marker.ADD from the definition), as convert.npc_hold_markers;
 * an empty array when nothing holds any
 */
export function holdMarkerArray(frame: NpcStatesMessage, frameId: string, c: { TEXT_VIEW_FACING: number; ADD: number }) {
  const stamp = stampOf(frame.timestamp);
  const [r, g, b, a] = COLOR_HOLD_TEXT;
  return {
    markers: (frame.npcs ?? []).filter((n) => n.hold).map((n) => ({
      header: header(stamp, frameId), ns: 'vils_npc_holds', id: Math.trunc(n.id), type: c.TEXT_VIEW_FACING, action: c.ADD,
      pose: { position: { x: n.x, y: n.y, z: kindOf(n).heightM + HOLD_TEXT_ABOVE_M }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      scale: { x: 0, y: 0, z: HOLD_TEXT_HEIGHT_M }, color: { r, g, b, a }, lifetime: { sec: 0, nanosec: MARKER_LIFETIME_NS },
      text: String(n.hold),
    })),
  };
}

/** vision_msgs/Detection3DArray: one detection per NPC, class 'car', 'pedestrian' or 'bicycle' by its kind */
export function detectionArray(frame: NpcStatesMessage, frameId: string) {
  const h = header(stampOf(frame.timestamp), frameId);
  return {
    header: h,
    detections: (frame.npcs ?? []).map((n) => {
      const size = npcSize(n);
      const p = pose(n.x, n.y, size.z / 2, n.yaw);
      return {
        header: h, id: String(Math.trunc(n.id)), bbox: { center: p, size },
        results: [{ hypothesis: { class_id: kindOf(n).classId, score: 1.0 }, pose: { pose: p, covariance: new Array<number>(36).fill(0) } }],
      };
    }),
  };
}

const zeroCov = () => new Array<number>(36).fill(0);

/** the ObjectClassification labels and Shape types predictedObjects writes (from the definitions) */
export interface ObjectConstants { UNKNOWN: number; CAR: number; PEDESTRIAN: number; BICYCLE: number; BOUNDING_BOX: number; CYLINDER: number }

/** autoware_perception_msgs/PredictedObjects: one object per NPC, classified by its kind (CAR, PEDESTRIAN, BICYCLE) with its size, its velocity in its own frame */
export function predictedObjects(frame: NpcStatesMessage, frameId: string, c: ObjectConstants) {
  return {
    header: header(stampOf(frame.timestamp), frameId),
    objects: (frame.npcs ?? []).map((n) => {
      const vx = n.vx ?? 0;
      const vy = n.vy ?? 0;
      // the twist of a PredictedObject is in the object's own frame: longitudinal and lateral velocity
      const lon = vx * Math.cos(n.yaw) + vy * Math.sin(n.yaw);
      const lat = -vx * Math.sin(n.yaw) + vy * Math.cos(n.yaw);
      return {
        object_id: { uuid: npcUuid(n.id) }, existence_probability: 1.0,
        classification: [{ label: c[kindOf(n).label], probability: 1.0 }],
        kinematics: {
          initial_pose_with_covariance: { pose: pose(n.x, n.y, 0, n.yaw), covariance: zeroCov() },
          initial_twist_with_covariance: { twist: { linear: { x: lon, y: lat, z: 0 }, angular: { x: 0, y: 0, z: 0 } }, covariance: zeroCov() },
          initial_acceleration_with_covariance: { accel: { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } }, covariance: zeroCov() },
          predicted_paths: [],
        },
        shape: { type: c[kindOf(n).shape], footprint: { points: [] }, dimensions: npcSize(n) },
      };
    }),
  };
}

/** tf2_msgs/TFMessage of one transform */
export function transform(stamp: Stamp, parent: string, child: string, x: number, y: number, z: number, yaw: number) {
  return { transforms: [{ header: header(stamp, parent), child_frame_id: child, transform: { translation: { x, y, z }, rotation: yawQuaternion(yaw) } }] };
}

/** sensor_msgs/NavSatFix of a fix (STATUS_FIX, GPS; altitude NaN when unknown, covariance unknown) */
export function navSatFix(stamp: Stamp, frameId: string, lat: number, lon: number, alt: number | undefined) {
  return {
    header: header(stamp, frameId), status: { status: 0, service: 1 }, latitude: lat, longitude: lon,
    altitude: alt ?? Number.NaN, position_covariance: new Array<number>(9).fill(0), position_covariance_type: 0,
  };
}
