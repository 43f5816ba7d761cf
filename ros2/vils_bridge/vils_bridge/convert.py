"""Conversions between the car's ROS 2 world and the VILS protocol, as plain data (no ROS imports here).

- GNSS in: a NavSatFix (lat, lon) plus heading and speed, from topics or derived from consecutive fixes,
  becomes an ``ego_state`` message.
- NPCs out: an ``npc_states`` frame becomes the fields of visualization_msgs/Marker, vision_msgs/Detection3D
  and autoware_perception_msgs/PredictedObject (with velocities), in the VILS map frame (x east, y north,
  metres about the map origin; yaw counter-clockwise from east).
- The transform from the car's map frame to the VILS frame.
"""
import math
import time
import uuid

EARTH_RADIUS_M = 6371008.8


def yaw_to_quaternion(yaw):
    """(x, y, z, w) of a rotation by yaw about z."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def bearing_deg(lat1, lon1, lat2, lon2):
    """Initial great-circle bearing from point 1 to point 2, degrees clockwise from true north, in [0, 360)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    x = math.sin(dl) * math.cos(p2)
    y = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(x, y)) % 360.0


def distance_m(lat1, lon1, lat2, lon2):
    """Haversine distance in metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


class MotionFromFixes:
    """Heading and speed derived from consecutive fixes, for cars with no heading or speed topic.

    The heading is kept while the car moves less than ``min_move_m`` between the fixes used (standing still, GNSS
    noise would spin it); the speed is the distance over the time between those fixes.
    """

    def __init__(self, min_move_m=0.5, max_gap_s=2.0):
        self.min_move_m = min_move_m
        self.max_gap_s = max_gap_s
        self._anchor = None  # (lat, lon, t)
        self.heading_deg = None
        self.speed_mps = 0.0

    def update(self, lat, lon, t):
        if self._anchor is None or t - self._anchor[2] > self.max_gap_s or t < self._anchor[2]:
            if self._anchor is not None and t - self._anchor[2] > self.max_gap_s:
                self.speed_mps = 0.0
            self._anchor = (lat, lon, t)
            return
        lat0, lon0, t0 = self._anchor
        d = distance_m(lat0, lon0, lat, lon)
        if d >= self.min_move_m:
            self.heading_deg = bearing_deg(lat0, lon0, lat, lon)
            self.speed_mps = d / (t - t0) if t > t0 else self.speed_mps
            self._anchor = (lat, lon, t)
        elif t - t0 > 1.0:
            self.speed_mps = d / (t - t0)


def valid_fix(lat, lon):
    return (isinstance(lat, (int, float)) and isinstance(lon, (int, float)) and math.isfinite(lat) and math.isfinite(lon)
            and -90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0)


def ego_state(lat, lon, heading_deg, speed_mps, ego_id='ego', timestamp=None, length=None, width=None):
    """The ego_state message (a dict ready for json.dumps). Raises ValueError on values the server would refuse."""
    if not valid_fix(lat, lon):
        raise ValueError(f'invalid fix {lat!r}, {lon!r}')
    if not (isinstance(heading_deg, (int, float)) and math.isfinite(heading_deg)):
        raise ValueError(f'invalid heading {heading_deg!r}')
    speed = float(speed_mps) if isinstance(speed_mps, (int, float)) and math.isfinite(speed_mps) else 0.0
    data = {'lat': float(lat), 'lon': float(lon), 'heading': float(heading_deg) % 360.0, 'speed': min(max(0.0, speed), 100.0)}
    if length is not None:
        data['length'] = float(length)
    if width is not None:
        data['width'] = float(width)
    return {'type': 'ego_state', 'ego_id': ego_id, 'timestamp': time.time() if timestamp is None else float(timestamp), 'data': data}


NPC_HEIGHT_M = 1.6
COLOR_OK = (0.2, 0.55, 1.0, 0.9)
COLOR_COLLIDED = (1.0, 0.15, 0.1, 0.95)
COLOR_OFFROAD = (1.0, 0.6, 0.1, 0.95)


def npc_color(npc):
    if npc.get('collided'):
        return COLOR_COLLIDED
    if npc.get('offroad'):
        return COLOR_OFFROAD
    return COLOR_OK


def frame_stamp(frame):
    """(sec, nanosec) of a frame's wall-clock timestamp."""
    t = float(frame.get('timestamp', 0.0))
    sec = int(math.floor(t))
    return sec, int(round((t - sec) * 1e9)) % 1_000_000_000


def npc_markers(frame, lifetime_s=0.3):
    """One CUBE marker per NPC: dicts with the Marker fields (ns, id, pose, scale, color, lifetime)."""
    out = []
    for n in frame.get('npcs', []):
        out.append({
            'ns': 'vils_npcs', 'id': int(n['id']), 'type': 'CUBE',
            'position': (float(n['x']), float(n['y']), NPC_HEIGHT_M / 2), 'orientation': yaw_to_quaternion(float(n['yaw'])),
            'scale': (float(n['length']), float(n['width']), NPC_HEIGHT_M), 'color': npc_color(n), 'lifetime_s': lifetime_s,
        })
    return out


def npc_detections(frame):
    """One Detection3D per NPC: dicts with id, bbox centre pose and size, and the class hypothesis."""
    return [{
        'id': str(int(n['id'])),
        'position': (float(n['x']), float(n['y']), NPC_HEIGHT_M / 2), 'orientation': yaw_to_quaternion(float(n['yaw'])),
        'size': (float(n['length']), float(n['width']), NPC_HEIGHT_M),
        'class_id': 'car', 'score': 1.0,
    } for n in frame.get('npcs', [])]


def npc_uuid(npc_id, session=''):
    """A stable 16-byte object id for an NPC (Autoware's unique_identifier_msgs/UUID)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f'vils:{session}:npc:{int(npc_id)}').bytes


def predicted_objects(frame, session=''):
    """One PredictedObject per NPC: dicts with the uuid, pose, body-frame twist (velocities), shape and class."""
    out = []
    for n in frame.get('npcs', []):
        yaw = float(n['yaw'])
        vx, vy = float(n.get('vx', 0.0)), float(n.get('vy', 0.0))
        # the twist of a PredictedObject is in the object's own frame: longitudinal and lateral velocity
        lon_v = vx * math.cos(yaw) + vy * math.sin(yaw)
        lat_v = -vx * math.sin(yaw) + vy * math.cos(yaw)
        out.append({
            'uuid': npc_uuid(n['id'], session), 'existence_probability': 1.0, 'label': 'CAR',
            'position': (float(n['x']), float(n['y']), 0.0), 'orientation': yaw_to_quaternion(yaw),
            'twist_linear': (lon_v, lat_v, 0.0), 'speed': float(n.get('speed', math.hypot(vx, vy))),
            'dimensions': (float(n['length']), float(n['width']), NPC_HEIGHT_M),
        })
    return out


def map_transform(map_offset):
    """Translation and rotation of the VILS frame in the car's map frame, from [x, y, z, yaw]."""
    x, y, z, yaw = (list(map_offset) + [0.0, 0.0, 0.0, 0.0])[:4]
    return {'translation': (float(x), float(y), float(z)), 'rotation': yaw_to_quaternion(float(yaw))}


def frame_age_s(frame, now=None):
    """How old a frame is: now minus its wall-clock timestamp [s]."""
    return (time.time() if now is None else now) - float(frame.get('timestamp', 0.0))
