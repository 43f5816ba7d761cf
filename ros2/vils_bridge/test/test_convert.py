"""The conversion logic, on its own."""
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


def test_newest_frame_slot_and_token():
    slot = NewestFrame()
    for i in range(5):
        slot.put({'i': i})
    assert slot.take_nowait() == {'i': 4} and slot.skipped == 4 and slot.take_nowait() is None
    assert with_token('ws://h:1/ws/vils/stream', 'a b') == 'ws://h:1/ws/vils/stream?token=a+b'
    assert with_token('ws://h:1/x?y=1', '') == 'ws://h:1/x?y=1'
