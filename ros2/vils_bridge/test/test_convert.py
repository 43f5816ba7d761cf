"""The conversion logic, on its own."""
import json
import math

import pytest

from vils_bridge import convert
from vils_bridge.client import NewestFrame, with_token


def test_bearing_and_distance():
    assert convert.bearing_deg(37.0, 127.0, 37.001, 127.0) == pytest.approx(0.0, abs=1e-6)
    assert convert.bearing_deg(37.0, 127.0, 37.0, 127.001) == pytest.approx(90.0, abs=0.01)
    assert convert.bearing_deg(37.0, 127.0, 36.999, 127.0) == pytest.approx(180.0, abs=1e-6)
    assert convert.distance_m(37.0, 127.0, 37.001, 127.0) == pytest.approx(111.19, abs=0.05)


def test_motion_from_consecutive_fixes():
    m = convert.MotionFromFixes(min_move_m=0.5)
    lat0, lon0 = 37.3645, 126.7239
    dlon = 1.0 / (111_320 * math.cos(math.radians(lat0)))  # one metre east
    for i in range(11):  # 5 m/s east at 10 Hz
        m.update(lat0, lon0 + 0.5 * i * dlon, i * 0.1)
    assert m.heading_deg == pytest.approx(90.0, abs=0.5)
    assert m.speed_mps == pytest.approx(5.0, rel=0.02)
    heading = m.heading_deg
    for i in range(11, 30):  # standing still with 5 cm of noise: the heading is kept
        m.update(lat0 + (i % 2) * 4.5e-7, lon0 + 5 * dlon, i * 0.1)
    assert m.heading_deg == heading
    assert m.speed_mps < 0.2


def test_ego_state_message_and_refusals():
    e = convert.ego_state(37.3645, 126.7239, -90.0, 5.5, ego_id='car', timestamp=100.0)
    assert e == {'type': 'ego_state', 'ego_id': 'car', 'timestamp': 100.0, 'data': {'lat': 37.3645, 'lon': 126.7239, 'heading': 270.0, 'speed': 5.5}}
    assert convert.ego_state(37.0, 127.0, 0.0, float('nan'))['data']['speed'] == 0.0
    assert convert.ego_state(37.0, 127.0, 0.0, -3.0)['data']['speed'] == 0.0
    with pytest.raises(ValueError):
        convert.ego_state(float('nan'), 127.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        convert.ego_state(37.0, 127.0, float('inf'), 1.0)


FRAME = {'type': 'npc_states', 'timestamp': 1700000000.25, 'npcs': [
    {'id': 7, 'x': 10.0, 'y': -2.0, 'yaw': math.pi / 2, 'vx': 0.0, 'vy': 4.0, 'speed': 4.0, 'length': 4.5, 'width': 2.0, 'collided': False, 'offroad': True},
]}


def test_npc_fields():
    (m,) = convert.npc_markers(FRAME)
    assert m['id'] == 7 and m['position'] == (10.0, -2.0, 0.8) and m['scale'] == (4.5, 2.0, 1.6)
    assert m['orientation'][2] == pytest.approx(math.sin(math.pi / 4)) and m['color'] == convert.COLOR_OFFROAD
    (d,) = convert.npc_detections(FRAME)
    assert d['id'] == '7' and d['size'] == (4.5, 2.0, 1.6)
    (o,) = convert.predicted_objects(FRAME, session='s')
    assert o['twist_linear'][0] == pytest.approx(4.0) and o['twist_linear'][1] == pytest.approx(0.0, abs=1e-12)
    assert len(o['uuid']) == 16 and o['uuid'] == convert.predicted_objects(FRAME, session='s')[0]['uuid']
    assert convert.frame_stamp(FRAME) == (1700000000, 250000000)
    t = convert.map_transform([1.0, 2.0, 0.0, math.pi])
    assert t['translation'] == (1.0, 2.0, 0.0) and t['rotation'][3] == pytest.approx(0.0, abs=1e-12)
    assert (o['label'], o['shape'], o['dimensions']) == ('CAR', 'BOUNDING_BOX', (4.5, 2.0, 1.6))


PEOPLE = {'type': 'npc_states', 'timestamp': 1700000000.25, 'npcs': [
    {'id': 7, 'x': 10.0, 'y': -2.0, 'yaw': 0.0, 'length': 4.5, 'width': 2.0, 'kind': 'vehicle'},
    {'id': 2000001, 'x': 3.0, 'y': 4.0, 'yaw': 1.0, 'vx': 0.0, 'vy': 1.3, 'length': 0.5, 'width': 0.6, 'kind': 'pedestrian'},
    {'id': 1000002, 'x': 5.0, 'y': 6.0, 'yaw': 0.0, 'vx': 4.0, 'vy': 0.0, 'length': 1.8, 'width': 0.6, 'kind': 'cyclist'},
    {'id': 9, 'x': 1.0, 'y': 1.0, 'yaw': 0.0, 'length': 4.0, 'width': 1.8},  # a server before kinds: a vehicle
    {'id': 10, 'x': 1.0, 'y': 1.0, 'yaw': 0.0, 'length': 3.0, 'width': 1.5, 'kind': 'hovercraft'},  # not known here
]}


def test_each_kind_is_classified_with_its_size():
    objs = convert.predicted_objects(PEOPLE)
    assert [o['label'] for o in objs] == ['CAR', 'PEDESTRIAN', 'BICYCLE', 'CAR', 'UNKNOWN']
    # a pedestrian: Autoware's upright cylinder, x = y = its diameter (the larger side of its footprint)
    assert [(o['shape'], o['dimensions']) for o in objs] == [
        ('BOUNDING_BOX', (4.5, 2.0, 1.6)), ('CYLINDER', (0.6, 0.6, 1.75)), ('BOUNDING_BOX', (1.8, 0.6, 1.7)),
        ('BOUNDING_BOX', (4.0, 1.8, 1.6)), ('BOUNDING_BOX', (3.0, 1.5, 1.6))]
    assert [d['class_id'] for d in convert.npc_detections(PEOPLE)] == ['car', 'pedestrian', 'bicycle', 'car', 'unknown']
    assert [d['size'] for d in convert.npc_detections(PEOPLE)][1] == (0.6, 0.6, 1.75)
    markers = convert.npc_markers(PEOPLE)
    assert [m['type'] for m in markers] == ['CUBE', 'CYLINDER', 'CUBE', 'CUBE', 'CUBE']
    assert markers[1]['position'] == (3.0, 4.0, 0.875) and markers[1]['scale'] == (0.6, 0.6, 1.75)
    # the constants' names are Autoware's (autoware_perception_msgs ObjectClassification, Shape)
    msg = open(__file__.replace('vils_bridge/test/test_convert.py', 'interfaces/autoware_perception_msgs/msg/ObjectClassification.msg')).read()
    assert {'uint8 CAR = 1', 'uint8 BICYCLE = 6', 'uint8 PEDESTRIAN = 7', 'uint8 UNKNOWN = 0'} <= set(msg.splitlines())


def test_hold_text_markers_only_for_held_npcs():
    frame = {'timestamp': 1700000000.25, 'npcs': [
        dict(FRAME['npcs'][0], hold='stop_sign'),
        {'id': 8, 'x': -3.5, 'y': 12.0, 'yaw': 0.3, 'length': 4.0, 'width': 1.8},  # nothing holds it: no `hold`
    ]}
    (h,) = convert.npc_hold_markers(frame)
    assert (h['ns'], h['id'], h['type'], h['text']) == ('vils_npc_holds', 7, 'TEXT_VIEW_FACING', 'stop_sign')
    assert h['position'] == (10.0, -2.0, pytest.approx(convert.NPC_HEIGHT_M + 0.6)) and h['orientation'] == (0.0, 0.0, 0.0, 1.0)
    assert h['scale'] == (0.0, 0.0, 1.0) and h['color'] == convert.COLOR_HOLD_TEXT and h['lifetime_s'] == 0.3
    assert [m['text'] for m in convert.npc_hold_markers({'npcs': [dict(frame['npcs'][1], id=i, hold=v) for i, v in enumerate(
        ['red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue'])]})] == ['red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue']
    # none without a hold (absent, or an empty string), and the boxes stay one per NPC
    assert convert.npc_hold_markers(FRAME) == [] and convert.npc_hold_markers({'npcs': [dict(frame['npcs'][1], hold='')]}) == []
    assert convert.npc_hold_markers({'timestamp': 1.0}) == []
    assert [m['id'] for m in convert.npc_markers(frame)] == [7, 8] and all(m['type'] == 'CUBE' for m in convert.npc_markers(frame))


def test_newest_frame_slot_and_token():
    slot = NewestFrame()
    for i in range(5):
        slot.put({'i': i})
    assert slot.take_nowait() == {'i': 4} and slot.skipped == 4 and slot.take_nowait() is None
    assert with_token('ws://h:1/ws/vils/stream', 'a b') == 'ws://h:1/ws/vils/stream?token=a+b'
    assert with_token('ws://h:1/x?y=1', '') == 'ws://h:1/x?y=1'


# --- traffic signals ----------------------------------------------------------------------------------------------

def sig(gid, numeric_id, state, code, left=False, ttc=12.3, source='plan', lanes=('R6', 'L6')):
    return {'id': gid, 'numeric_id': numeric_id, 'junction': gid.split('.')[0], 'state': state, 'code': code,
            'time_to_change_s': ttc, 'source': source, 'left': left, 'lanes': list(lanes)}


STATES = [('green', 'G'), ('green_yield', 'g'), ('yellow', 'y'), ('red', 'r'), ('off', 'o')]
MAIN = {'green': ('GREEN', 'CIRCLE', 'SOLID_ON'), 'green_yield': ('GREEN', 'CIRCLE', 'SOLID_ON'), 'yellow': ('AMBER', 'CIRCLE', 'SOLID_ON'),
        'red': ('RED', 'CIRCLE', 'SOLID_ON'), 'off': ('UNKNOWN', 'CIRCLE', 'SOLID_OFF')}
LEFT = dict(MAIN, green=('GREEN', 'LEFT_ARROW', 'SOLID_ON'))


def elements(group):
    return [(e['color'], e['shape'], e['status']) for e in group['elements']]


@pytest.mark.parametrize('left', [False, True])
@pytest.mark.parametrize('state,code', STATES)
def test_every_state_of_both_group_kinds(state, code, left):
    frame = {'timestamp': 1700000000.5, 'signals': [sig('J1.A.left' if left else 'J1.A', 3, state, code, left=left)]}
    out = convert.traffic_light_groups(frame)
    assert out['stamp'] == (1700000000, 500000000)
    (g,) = out['traffic_light_groups']
    assert g['traffic_light_group_id'] == 3 and g['id'] == ('J1.A.left' if left else 'J1.A') and g['state'] == state
    assert elements(g) == [(LEFT if left else MAIN)[state]]
    assert g['elements'][0]['confidence'] == 1.0
    # the same from the code alone (a record without `state`)
    del frame['signals'][0]['state']
    assert elements(convert.traffic_light_groups(frame)['traffic_light_groups'][0]) == [(LEFT if left else MAIN)[state]]


def autoware_reads(group, turn_direction):
    """What Autoware's planning makes of a group for a lanelet (traffic_light_utils::isTrafficSignalStop and the
    intersection module's isTrafficLightArrowActivated): (may go, turn protected)."""
    els = group['elements']
    green_circle = any(e['shape'] == 'CIRCLE' and e['color'] == 'GREEN' for e in els)
    arrow = any(e['shape'] == 'LEFT_ARROW' for e in els)  # any colour: Autoware does not look at it
    go = green_circle or (turn_direction == 'left' and arrow)
    protected = turn_direction == 'left' and any(e['shape'] == 'LEFT_ARROW' and e['color'] == 'GREEN' and e['status'] == 'SOLID_ON' for e in els)
    return go, protected


@pytest.mark.parametrize('state,code', STATES)
def test_autoware_reads_each_state_as_vils_means_it(state, code):
    for left in (False, True):
        (g,) = convert.traffic_light_groups({'timestamp': 0, 'signals': [sig('J1.A', 1, state, code, left=left)]})['traffic_light_groups']
        for turn in (('left',) if left else ('else', 'straight', 'left')):  # a left group is on left-turn lanelets only
            go, protected = autoware_reads(g, turn)
            assert go == (state in ('green', 'green_yield')), (state, left, turn)
            # only a protected left group's green protects the turn; a permissive green leaves it yielding
            assert protected == (left and state == 'green' and turn == 'left'), (state, left, turn)


def test_element_names_are_autoware_constants():
    t = convert.TRAFFIC_LIGHT_ELEMENT_1X
    for table in (convert.SIGNAL_ELEMENT_MAIN, convert.SIGNAL_ELEMENT_LEFT, {'?': convert.SIGNAL_ELEMENT_UNKNOWN}):
        for color, shape, status in table.values():
            assert color in t['color'] and shape in t['shape'] and status in t['status']


def test_frames_without_signals_and_odd_records():
    assert convert.traffic_light_groups(FRAME) is None  # an older server: publish nothing
    assert convert.signals_side_message(FRAME) is None and convert.signals_json(FRAME) is None
    assert convert.traffic_light_groups({'timestamp': 1.0, 'signals': None}) is None
    assert convert.traffic_light_groups({'timestamp': 1.0, 'signals': []}) == {'stamp': (1, 0), 'traffic_light_groups': []}
    frame = {'timestamp': 1.0, 'signals': [
        sig('J1.A', 1, 'flashing_yellow', 'Y'),     # a state this bridge does not know
        {'id': 'J1.B', 'numeric_id': 2, 'code': 'x'},  # an unknown code, no state
        {'id': 'J1.C', 'numeric_id': 3, 'state': 7},   # not a string
        {'id': 'J1.D', 'numeric_id': 4},               # nothing at all
        {'id': 'J1.E', 'state': 'red'},                # no numeric id: left out
        {'id': 'J1.F', 'numeric_id': True, 'state': 'red'},
        {'id': 'J1.G', 'numeric_id': 2.5, 'state': 'red'},
        'garbage',
    ]}
    groups = convert.traffic_light_groups(frame)['traffic_light_groups']
    assert [g['traffic_light_group_id'] for g in groups] == [1, 2, 3, 4]
    for g in groups:
        assert g['elements'] == [{'color': 'UNKNOWN', 'shape': 'UNKNOWN', 'status': 'UNKNOWN', 'confidence': 0.0}]
    assert [g['state'] for g in groups] == ['flashing_yellow', 'x', '7', 'None']
    assert len(convert.signals_side_message(frame)['signals']) == 7


DEMO = {'type': 'npc_states', 'timestamp': 1700000000.25, 'sim_time_s': 26.0, 'npcs': [], 'signals': [
    sig('J1.A', 1, 'red', 'r', ttc=4.5, lanes=('R6', 'L6')),
    sig('J1.B', 2, 'yellow', 'y', ttc=2.5, lanes=('R3', 'L3')),
    sig('J1.B.left', 3, 'green', 'G', left=True, ttc=None, source='live', lanes=('R3',)),
]}


def test_ids_are_kept_and_the_side_message():
    groups = convert.traffic_light_groups(DEMO)['traffic_light_groups']
    assert [(g['id'], g['traffic_light_group_id']) for g in groups] == [('J1.A', 1), ('J1.B', 2), ('J1.B.left', 3)]
    assert [elements(g) for g in groups] == [[('RED', 'CIRCLE', 'SOLID_ON')], [('AMBER', 'CIRCLE', 'SOLID_ON')], [('GREEN', 'LEFT_ARROW', 'SOLID_ON')]]
    side = json.loads(convert.signals_json(DEMO))
    assert side['timestamp'] == 1700000000.25 and side['sim_time_s'] == 26.0
    assert side['signals'][0] == {'id': 'J1.A', 'numeric_id': 1, 'traffic_light_group_id': 1, 'junction': 'J1', 'state': 'red', 'code': 'r',
                                  'time_to_change_s': 4.5, 'source': 'plan', 'left': False, 'lanes': ['R6', 'L6']}
    assert side['signals'][2]['time_to_change_s'] is None and side['signals'][2]['source'] == 'live' and side['signals'][2]['left'] is True


def test_group_ids_of_the_cars_map():
    ids = convert.parse_group_ids(' J1.A=1001; J1.B.left = 1003 ,')
    assert ids == {'J1.A': 1001, 'J1.B.left': 1003} and convert.parse_group_ids('') == {}
    groups = convert.traffic_light_groups(DEMO, ids)['traffic_light_groups']
    assert [(g['id'], g['traffic_light_group_id']) for g in groups] == [('J1.A', 1001), ('J1.B.left', 1003)]  # J1.B is not in the map
    side = convert.signals_side_message(DEMO, ids)['signals']
    assert [s['traffic_light_group_id'] for s in side] == [1001, None, 1003]
    for bad in ('J1.A', 'J1.A=x', '=3'):
        with pytest.raises(ValueError, match='traffic_light_group_ids'):
            convert.parse_group_ids(bad)
