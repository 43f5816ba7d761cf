"""Conversions between the car's ROS 2 world and the VILS protocol, as plain data (no ROS imports here).

- GNSS in: a NavSatFix (lat, lon) plus heading and speed, from topics or derived from consecutive fixes,
  becomes an ``ego_state`` message.
- NPCs out: an ``npc_states`` frame becomes the fields of visualization_msgs/Marker, vision_msgs/Detection3D
  and autoware_perception_msgs/PredictedObject (with velocities), in the VILS map frame (x east, y north,
  metres about the map origin; yaw counter-clockwise from east), and each held NPC's ``hold`` (why it waits) a
  text marker above it.
- Signals out: a frame's ``signals`` become the fields of autoware_perception_msgs/TrafficLightGroupArray (one
  group per signal group) and a JSON side message with what that type has no field for (ids, time to change).
- The transform from the car's map frame to the VILS frame.
"""
import json
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
COLOR_HOLD_TEXT = (1.0, 1.0, 1.0, 0.95)  # the hold's text: light, readable over any box colour
HOLD_TEXT_HEIGHT_M = 1.0  # a TEXT_VIEW_FACING marker's scale.z: the height of a capital letter
HOLD_TEXT_ABOVE_M = 0.6  # the text's centre above the NPC's box


# What each moving object is: an npc_states entry's ``kind`` (vehicle, pedestrian, cyclist; absent in frames of a
# server from before it: a vehicle) as Autoware's ObjectClassification label, vision_msgs class id, Shape type (a
# pedestrian an upright cylinder, dimensions x = y = its diameter, as Autoware's own pedestrians), Marker type and
# height. A kind this bridge does not know is UNKNOWN (class 'unknown'), drawn and shaped as a vehicle.
KINDS = {
    'vehicle': {'label': 'CAR', 'class_id': 'car', 'shape': 'BOUNDING_BOX', 'marker': 'CUBE', 'height_m': NPC_HEIGHT_M},
    'pedestrian': {'label': 'PEDESTRIAN', 'class_id': 'pedestrian', 'shape': 'CYLINDER', 'marker': 'CYLINDER', 'height_m': 1.75},
    'cyclist': {'label': 'BICYCLE', 'class_id': 'bicycle', 'shape': 'BOUNDING_BOX', 'marker': 'CUBE', 'height_m': 1.7},
}
KIND_UNKNOWN = {**KINDS['vehicle'], 'label': 'UNKNOWN', 'class_id': 'unknown'}


def npc_kind(npc):
    """The entry of KINDS for an NPC (a vehicle when the frame does not say)."""
    return KINDS.get(npc.get('kind', 'vehicle'), KIND_UNKNOWN)


def npc_size(npc):
    """(x, y, z) of an NPC's body: its length, width and its kind's height; a cylinder's x and y its diameter."""
    k = npc_kind(npc)
    length, width = float(npc['length']), float(npc['width'])
    if k['shape'] == 'CYLINDER':
        d = max(length, width)
        return (d, d, k['height_m'])
    return (length, width, k['height_m'])


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
    """One marker per NPC, a CUBE (a pedestrian: a CYLINDER) of its size: dicts with the Marker fields (ns, id, type
    by its name, pose, scale, color, lifetime)."""
    out = []
    for n in frame.get('npcs', []):
        size = npc_size(n)
        out.append({
            'ns': 'vils_npcs', 'id': int(n['id']), 'type': npc_kind(n)['marker'],
            'position': (float(n['x']), float(n['y']), size[2] / 2), 'orientation': yaw_to_quaternion(float(n['yaw'])),
            'scale': size, 'color': npc_color(n), 'lifetime_s': lifetime_s,
        })
    return out


def npc_hold_markers(frame, lifetime_s=0.3):
    """One TEXT_VIEW_FACING marker per NPC that something holds (its ``hold``: red, yellow, stop_sign, give_way,
    box, queue; the frame leaves it out while nothing holds the NPC), the hold as its text, above the NPC's box:
    dicts with the Marker fields (ns, id, pose, scale, color, lifetime, text). The NPCs' boxes (npc_markers) are
    left as they are: one per NPC, in the order of the detections and objects."""
    out = []
    for n in frame.get('npcs', []):
        hold = n.get('hold')
        if not hold:
            continue
        out.append({
            'ns': 'vils_npc_holds', 'id': int(n['id']), 'type': 'TEXT_VIEW_FACING', 'text': str(hold),
            'position': (float(n['x']), float(n['y']), npc_kind(n)['height_m'] + HOLD_TEXT_ABOVE_M), 'orientation': (0.0, 0.0, 0.0, 1.0),
            'scale': (0.0, 0.0, HOLD_TEXT_HEIGHT_M), 'color': COLOR_HOLD_TEXT, 'lifetime_s': lifetime_s,
        })
    return out


def npc_detections(frame):
    """One Detection3D per NPC: dicts with id, bbox centre pose and size, and the class hypothesis (car, pedestrian,
    bicycle by its kind)."""
    return [{
        'id': str(int(n['id'])),
        'position': (float(n['x']), float(n['y']), npc_size(n)[2] / 2), 'orientation': yaw_to_quaternion(float(n['yaw'])),
        'size': npc_size(n),
        'class_id': npc_kind(n)['class_id'], 'score': 1.0,
    } for n in frame.get('npcs', [])]


def npc_uuid(npc_id, session=''):
    """A stable 16-byte object id for an NPC (Autoware's unique_identifier_msgs/UUID)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f'vils:{session}:npc:{int(npc_id)}').bytes


def predicted_objects(frame, session=''):
    """One PredictedObject per NPC: dicts with the uuid, pose, body-frame twist (velocities), shape and class
    (label and shape by the names of ObjectClassification's and Shape's constants: CAR, PEDESTRIAN, BICYCLE;
    BOUNDING_BOX, or CYLINDER for a pedestrian)."""
    out = []
    for n in frame.get('npcs', []):
        yaw = float(n['yaw'])
        vx, vy = float(n.get('vx', 0.0)), float(n.get('vy', 0.0))
        # the twist of a PredictedObject is in the object's own frame: longitudinal and lateral velocity
        lon_v = vx * math.cos(yaw) + vy * math.sin(yaw)
        lat_v = -vx * math.sin(yaw) + vy * math.cos(yaw)
        out.append({
            'uuid': npc_uuid(n['id'], session), 'existence_probability': 1.0, 'label': npc_kind(n)['label'],
            'position': (float(n['x']), float(n['y']), 0.0), 'orientation': yaw_to_quaternion(yaw),
            'twist_linear': (lon_v, lat_v, 0.0), 'speed': float(n.get('speed', math.hypot(vx, vy))),
            'shape': npc_kind(n)['shape'], 'dimensions': npc_size(n),
        })
    return out


def map_transform(map_offset):
    """Translation and rotation of the VILS frame in the car's map frame, from [x, y, z, yaw]."""
    x, y, z, yaw = (list(map_offset) + [0.0, 0.0, 0.0, 0.0])[:4]
    return {'translation': (float(x), float(y), float(z)), 'rotation': yaw_to_quaternion(float(yaw))}


def frame_age_s(frame, now=None):
    """How old a frame is: now minus its wall-clock timestamp [s]."""
    return (time.time() if now is None else now) - float(frame.get('timestamp', 0.0))


# --- traffic signals -------------------------------------------------------------------------------------------
#
# Mirrored type: autoware_perception_msgs/msg/TrafficLightGroupArray (autoware_msgs 1.x, what Autoware Universe's
# planning reads on /perception/traffic_light_recognition/traffic_signals): {stamp, traffic_light_groups[]}, each
# TrafficLightGroup {int64 traffic_light_group_id, TrafficLightElement[] elements, PredictedTrafficLightState[]
# predictions (1.8+)}, each element {uint8 color, shape, status; float32 confidence}. Elements are given here by the
# names of the message's constants (color RED AMBER GREEN WHITE UNKNOWN, shape CIRCLE LEFT_ARROW ... UNKNOWN, status
# SOLID_OFF SOLID_ON FLASHING UNKNOWN): the node takes the numbers from the installed message class, because they
# have changed between releases (an early TrafficLightElement had CIRCLE = 5; 1.x has CIRCLE = 1).
#
# How Autoware reads a group (autoware::traffic_light_utils::isTrafficSignalStop, and the intersection module's
# isTrafficLightArrowActivated): a GREEN CIRCLE lets every lanelet of the group go; otherwise a lanelet whose
# turn_direction is "left" may go when the group has a LEFT_ARROW element *of any colour*; anything else stops.
# A GREEN LEFT_ARROW SOLID_ON also marks the turn as protected (the intersection module stops watching oncoming
# traffic). Hence:
# - a left-turn group never shows an arrow unless its turn is protected and may go: red and yellow are the red and
#   yellow circles, which on a Korean four-colour head (red, yellow, green left arrow, green) are the lamps that
#   light for the left turn when the arrow is off (the yellow after the arrow is the head's yellow circle);
# - a permissive green (``g``: go, but give way) is a GREEN CIRCLE in both kinds of group: Autoware has no
#   permissive colour, and a circle leaves the yielding to its intersection module. On a left group this is also
#   what a Korean head shows for an unprotected left (the green circle, with a sign), never the arrow.
# - ``off`` is a dark head: colour UNKNOWN, status SOLID_OFF (Autoware has no colour for "off"). Its traffic light
#   module then stops at the line, as a driver treats a dark signal; note that Autoware reads an UNKNOWN colour as
#   "not seen", and the planner modules that keep the last observation keep the state before the head went dark.
#   A state this bridge does not know is UNKNOWN throughout (colour, shape, status) with confidence 0.
#
# ``predictions`` are left empty: a frame gives the time to the next change but not the next state.

SIGNAL_CODES = {'G': 'green', 'g': 'green_yield', 'y': 'yellow', 'r': 'red', 'o': 'off'}

# state -> (color, shape, status) for a through/main group (left: false)
SIGNAL_ELEMENT_MAIN = {
    'green': ('GREEN', 'CIRCLE', 'SOLID_ON'),
    'green_yield': ('GREEN', 'CIRCLE', 'SOLID_ON'),  # permissive green: Autoware has no colour of its own for it
    'yellow': ('AMBER', 'CIRCLE', 'SOLID_ON'),
    'red': ('RED', 'CIRCLE', 'SOLID_ON'),
    'off': ('UNKNOWN', 'CIRCLE', 'SOLID_OFF'),
}
# ... for a protected left-turn group (left: true): only a protected green is the arrow
SIGNAL_ELEMENT_LEFT = dict(SIGNAL_ELEMENT_MAIN, green=('GREEN', 'LEFT_ARROW', 'SOLID_ON'))
SIGNAL_ELEMENT_UNKNOWN = ('UNKNOWN', 'UNKNOWN', 'UNKNOWN')

# autoware_msgs 1.x's numbers, for reference and tests (the node reads them from the message class)
TRAFFIC_LIGHT_ELEMENT_1X = {
    'color': {'UNKNOWN': 0, 'RED': 1, 'AMBER': 2, 'GREEN': 3, 'WHITE': 4},
    'shape': {'UNKNOWN': 0, 'CIRCLE': 1, 'LEFT_ARROW': 2, 'RIGHT_ARROW': 3, 'UP_ARROW': 4},
    'status': {'UNKNOWN': 0, 'SOLID_OFF': 1, 'SOLID_ON': 2, 'FLASHING': 3},
}


def parse_group_ids(text):
    """'J1.A=1001, J1.B=1002' -> {'J1.A': 1001, 'J1.B': 1002} (the car's lanelet2 traffic light regulatory element
    ids by VILS group id). '' -> {}. Raises ValueError naming the bad entry."""
    out = {}
    for part in (text or '').replace(';', ',').split(','):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition('=')
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f'traffic_light_group_ids: "{part}" is not <group id>=<integer>')
        try:
            out[key] = int(value)
        except ValueError:
            raise ValueError(f'traffic_light_group_ids: "{part}": {value!r} is not an integer') from None
    return out


def _integer(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        return None
    return int(v)


def signal_state(signal):
    """The state name of one signal group record: its ``state``, or from its ``code`` when it has none. Returns
    the string as given when it is not one this bridge knows (the caller maps it to UNKNOWN)."""
    state = signal.get('state')
    if state is None:
        state = SIGNAL_CODES.get(signal.get('code'), signal.get('code'))
    return state if isinstance(state, str) else repr(state)


def signal_element(state, left):
    """The TrafficLightElement (names of its constants, confidence) for a group state."""
    table = SIGNAL_ELEMENT_LEFT if left else SIGNAL_ELEMENT_MAIN
    known = state in table
    color, shape, status = table[state] if known else SIGNAL_ELEMENT_UNKNOWN
    return {'color': color, 'shape': shape, 'status': status, 'confidence': 1.0 if known else 0.0}


def _signal_records(frame):
    signals = frame.get('signals')
    if not isinstance(signals, list):
        return None
    return [s for s in signals if isinstance(s, dict)]


def _group_id(record, group_ids):
    """The id a signal record is published under: the car's map id from ``group_ids`` (None: not in that map), else
    the record's ``numeric_id``."""
    return group_ids.get(record.get('id')) if group_ids else _integer(record.get('numeric_id'))


def traffic_light_groups(frame, group_ids=None):
    """The TrafficLightGroupArray of a frame's ``signals``: {'stamp': (sec, nanosec), 'traffic_light_groups':
    [{'traffic_light_group_id', 'elements': [element], 'id', 'state'}]} ('id' and 'state', VILS's, are for logs).

    None when the frame has no ``signals`` list (a server from before signals): publish nothing then. The group id
    is the record's ``numeric_id``, or with ``group_ids`` (VILS id -> the car's map id) the mapped id, groups not
    in the map being left out. A record with no usable id is left out; an unknown state gives an UNKNOWN element.
    """
    records = _signal_records(frame)
    if records is None:
        return None
    groups = []
    for s in records:
        gid = _group_id(s, group_ids)
        if gid is None:
            continue
        state = signal_state(s)
        groups.append({'traffic_light_group_id': gid, 'elements': [signal_element(state, bool(s.get('left')))],
                       'id': s.get('id'), 'state': state})
    return {'stamp': frame_stamp(frame), 'traffic_light_groups': groups}


def signals_side_message(frame, group_ids=None):
    """What TrafficLightGroupArray has no field for, as a dict for std_msgs/String (JSON) on /vils/signals: the
    frame's times and, per signal group, VILS's record (id, numeric_id, junction, state, code, time_to_change_s,
    source, left, lanes) plus the traffic_light_group_id it was published under (null: not published). None when
    the frame has no ``signals`` list."""
    records = _signal_records(frame)
    if records is None:
        return None
    out = []
    for s in records:
        gid = _group_id(s, group_ids)
        ttc = s.get('time_to_change_s')
        out.append({
            'id': s.get('id'), 'numeric_id': s.get('numeric_id'), 'traffic_light_group_id': gid,
            'junction': s.get('junction'), 'state': signal_state(s), 'code': s.get('code'),
            'time_to_change_s': float(ttc) if isinstance(ttc, (int, float)) and not isinstance(ttc, bool) and math.isfinite(ttc) else None,
            'source': s.get('source'), 'left': bool(s.get('left')), 'lanes': list(s.get('lanes') or []),
        })
    return {'timestamp': frame.get('timestamp'), 'sim_time_s': frame.get('sim_time_s'), 'signals': out}


def signals_json(frame, group_ids=None):
    """signals_side_message as a JSON string (None without ``signals``)."""
    m = signals_side_message(frame, group_ids)
    return None if m is None else json.dumps(m, separators=(',', ':'))
