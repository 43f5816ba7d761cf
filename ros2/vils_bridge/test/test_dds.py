"""The bridge on the real rclpy, over DDS: `vils_bridge` runs as its own process (its console entry point) against a
live `vils serve`, and a second, independent node here publishes the car's NavSatFix and heading and subscribes to
everything the bridge publishes. Every message received is checked: its type as the ROS graph names it, its
fields against the frame it came from, and its bytes decoded by rosbags (a pure-Python CDR serialiser) with the
definitions `vils export` writes its schemas from, equal to what rclpy received.

Runs in .venv-ros2 (npm test); skipped under the stand-ins. The DDS domain is one of this test's own
(ROS_DOMAIN_ID from the process id) and discovery stays on this machine (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST).
"""
import dataclasses
import json
import math
import os
import signal
import struct
import subprocess
import sys
import time
import uuid

import pytest

import ros_defs
from conftest import ROOT, require_ros2

TOPICS = {
    '/vils/npcs/markers': 'visualization_msgs/msg/MarkerArray',
    '/vils/npcs/holds': 'visualization_msgs/msg/MarkerArray',
    '/vils/npcs/detections': 'vision_msgs/msg/Detection3DArray',
    '/vils/npcs/objects': 'autoware_perception_msgs/msg/PredictedObjects',
    '/perception/traffic_light_recognition/traffic_signals': 'autoware_perception_msgs/msg/TrafficLightGroupArray',
    '/vils/signals': 'std_msgs/msg/String',
    '/tf_static': 'tf2_msgs/msg/TFMessage',
}
WANT = 30  # messages per frame topic (3 s at 10 Hz); the deadline below only guards against a hang


@pytest.fixture(scope='module')
def ros_env():
    require_ros2()
    env = dict(os.environ, ROS_DOMAIN_ID=str(1 + os.getpid() % 100), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    env.pop('ROS_LOCALHOST_ONLY', None)
    os.environ.update({k: env[k] for k in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')})
    return env


def stamp_s(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


def to_plain(msg):
    """A rclpy message or a rosbags one as plain data (field name -> value), for comparing the two."""
    if hasattr(msg, 'get_fields_and_field_types'):
        return {k: to_plain(getattr(msg, k)) for k in msg.get_fields_and_field_types()}
    if dataclasses.is_dataclass(msg):
        return {f.name: to_plain(getattr(msg, f.name)) for f in dataclasses.fields(msg)
                if not f.name.startswith('__') and not f.name.isupper()}  # rosbags keeps the constants as fields too
    if isinstance(msg, (list, tuple)) or type(msg).__name__ in ('ndarray', 'array'):
        return [to_plain(v) for v in msg]
    if isinstance(msg, bytes):
        return list(msg)
    if isinstance(msg, float):
        return float(msg)
    if hasattr(msg, 'item'):  # numpy scalar
        return msg.item()
    return msg


def same(a, b):
    """Equal plain data; a float equal to the other as a float32 counts (rclpy keeps a float32 field's value as the
    Python float it was given, CDR carries the float32)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or struct.pack('<f', a) == struct.pack('<f', b)
    return a == b


def test_a_second_node_receives_every_topic_and_each_message_holds(server, ros_env, request):
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import NavSatFix
    from std_msgs.msg import Float64
    from vils_bridge import convert

    import importlib
    classes = {t: getattr(importlib.import_module(ty.split('/')[0] + '.msg'), ty.split('/')[-1]) for t, ty in TOPICS.items()}
    store = ros_defs.typestore()
    origin = server.get('/api/status')['origin']
    bridge = subprocess.Popen(
        [sys.executable, '-X', 'faulthandler', '-m', 'vils_bridge.node', '--ros-args', '-p', f'url:={server.ws}', '-p', 'ego_id:=dds_car',
         '-p', 'heading_topic:=/test/heading', '-p', 'map_offset:=[10.0, 20.0, 0.0, 0.5]'],
        cwd=os.path.join(ROOT, 'ros2', 'vils_bridge'), env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    request.addfinalizer(lambda: bridge.poll() is None and bridge.kill())  # whatever fails below
    rclpy.init()
    node = rclpy.create_node('vils_test_listener')
    got = {t: [] for t in TOPICS}
    for topic, cls in classes.items():
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL) if topic == '/tf_static' else 100
        node.create_subscription(cls, topic, lambda m, t=topic: got[t].append((time.time(), m)), qos)
    fix_pub = node.create_publisher(NavSatFix, '/gps/fix', 10)
    heading_pub = node.create_publisher(Float64, '/test/heading', 10)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    graph, status = {}, {}
    try:
        deadline = time.time() + 90
        next_fix = 0.0
        while time.time() < deadline and (min(len(got[t]) for t in TOPICS if t != '/tf_static') < WANT or not got['/tf_static']):
            if time.time() >= next_fix:  # the car: a fix at 10 Hz, stamped when taken
                next_fix = time.time() + 0.1
                heading_pub.publish(Float64(data=45.0))
                fix = NavSatFix(latitude=origin['lat'], longitude=origin['lon'])
                fix.header.stamp = node.get_clock().now().to_msg()
                fix.header.frame_id = 'gnss'
                fix_pub.publish(fix)
            executor.spin_once(timeout_sec=0.02)
            if bridge.poll() is not None:
                break
        graph = dict(node.get_topic_names_and_types())
        status = server.get('/api/status')  # while the bridge is connected
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown()
        bridge.terminate()
        try:
            out = bridge.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:  # its threads' stacks (faulthandler), to see where it hangs
            bridge.send_signal(signal.SIGABRT)
            try:
                out = bridge.communicate(timeout=10)[0]
            finally:
                bridge.kill()  # never left behind: it holds DDS ports (UDP) other tests may want
            pytest.fail(f'vils_bridge did not end within 20 s of SIGTERM:\n{out[-8000:]}')
    assert bridge.returncode in (0, -15), out
    counts = {t: len(v) for t, v in got.items()}
    assert all(n >= WANT for t, n in counts.items() if t != '/tf_static'), (counts, out[-3000:])

    # the ROS graph names each topic's type as the real definitions do
    for topic, type_name in TOPICS.items():
        assert graph.get(topic) == [type_name], (topic, graph.get(topic))

    # every message: decoded from its CDR bytes by rosbags with ros2/interfaces' definitions, the same values
    for topic, msgs in got.items():
        for _, m in msgs:
            decoded = store.deserialize_cdr(serialize_message(m), TOPICS[topic])
            assert same(to_plain(decoded), to_plain(m)), topic

    (_, tf), = got['/tf_static']
    (t,) = tf.transforms
    assert (t.header.frame_id, t.child_frame_id) == ('map', 'vils_map')
    assert (t.transform.translation.x, t.transform.translation.y) == (10.0, 20.0)
    assert t.transform.rotation.z == pytest.approx(math.sin(0.25)) and t.transform.rotation.w == pytest.approx(math.cos(0.25))

    # the frames the bridge published, by stamp: markers, detections and objects of one frame name the same NPCs
    by_stamp = {}
    for topic in ('/vils/npcs/markers', '/vils/npcs/detections', '/vils/npcs/objects'):
        for _, m in got[topic]:
            stamp = stamp_s(m.markers[0].header.stamp) if topic.endswith('markers') and m.markers else stamp_s(m.header.stamp)
            by_stamp.setdefault(round(stamp, 6), {})[topic] = m
    whole = [v for v in by_stamp.values() if len(v) == 3]
    assert len(whole) >= WANT - 5
    for frame in whole:
        markers, dets, objs = frame['/vils/npcs/markers'], frame['/vils/npcs/detections'], frame['/vils/npcs/objects']
        ids = [mk.id for mk in markers.markers]
        assert 10 <= len(ids) <= 20 and len(set(ids)) == len(ids)
        assert [int(d.id) for d in dets.detections] == ids
        assert [bytes(o.object_id.uuid) for o in objs.objects] == [convert.npc_uuid(i) for i in ids]
        assert dets.header.frame_id == objs.header.frame_id == 'vils_map'
        for mk, d, o in zip(markers.markers, dets.detections, objs.objects):
            assert (mk.header.frame_id, mk.ns, mk.type, mk.action) == ('vils_map', 'vils_npcs', mk.CUBE, mk.ADD)
            assert mk.lifetime.sec == 0 and mk.lifetime.nanosec == 300_000_000
            q = mk.pose.orientation
            assert math.isclose(q.x ** 2 + q.y ** 2 + q.z ** 2 + q.w ** 2, 1.0, rel_tol=1e-9)
            assert (mk.pose.position.x, mk.pose.position.y) == (d.bbox.center.position.x, d.bbox.center.position.y)
            assert (o.kinematics.initial_pose_with_covariance.pose.position.x, o.kinematics.initial_pose_with_covariance.pose.position.y) == (mk.pose.position.x, mk.pose.position.y)
            assert mk.scale.x == d.bbox.size.x == o.shape.dimensions.x > 2.0 and mk.scale.y == d.bbox.size.y == o.shape.dimensions.y > 1.0
            (h,) = d.results
            assert (h.hypothesis.class_id, h.hypothesis.score) == ('car', 1.0)
            assert [(c.label, c.probability) for c in o.classification] == [(c.CAR, 1.0) for c in o.classification][:1]
            assert o.shape.type == o.shape.BOUNDING_BOX and o.existence_probability == 1.0
            assert o.kinematics.predicted_paths == []
            tw = o.kinematics.initial_twist_with_covariance.twist.linear
            assert tw.x > -0.5 and math.hypot(tw.x, tw.y) < 30.0  # in the car's own frame: forward, not backward
    # stamps advance, one frame each
    stamps = sorted(by_stamp)
    assert all(b > a for a, b in zip(stamps, stamps[1:]))

    # the holds: one array per frame (empty while nothing holds an NPC), a text marker above each held NPC's box.
    # This scene (the demo track, 20 NPCs) holds some at its red lights and in queues behind them from its first
    # frames, so texts must arrive
    holds = [m for _, m in got['/vils/npcs/holds']]
    texts = [mk.text for m in holds for mk in m.markers]
    assert texts and set(texts) <= {'red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue'}, texts[:20]
    boxes = {round(stamp_s(m.markers[0].header.stamp), 6): {mk.id: mk for mk in m.markers} for _, m in got['/vils/npcs/markers'] if m.markers}
    matched = 0
    for m in holds:
        ids = [mk.id for mk in m.markers]
        assert len(set(ids)) == len(ids)
        for mk in m.markers:
            assert (mk.header.frame_id, mk.ns, mk.type, mk.action) == ('vils_map', 'vils_npc_holds', mk.TEXT_VIEW_FACING, mk.ADD)
            assert mk.lifetime.sec == 0 and mk.lifetime.nanosec == 300_000_000
            assert (mk.scale.x, mk.scale.y, mk.scale.z) == (0.0, 0.0, 1.0)
            q = mk.pose.orientation
            assert (q.x, q.y, q.z, q.w) == (0.0, 0.0, 0.0, 1.0)
            frame_boxes = boxes.get(round(stamp_s(mk.header.stamp), 6))
            if frame_boxes is None:  # that frame's boxes were not received (discovery: the first frames)
                continue
            box = frame_boxes.get(mk.id)  # the same frame's box of the same NPC, under which the text stands
            assert box is not None, (mk.id, mk.text, sorted(frame_boxes))
            assert (mk.pose.position.x, mk.pose.position.y) == (box.pose.position.x, box.pose.position.y)
            assert mk.pose.position.z == pytest.approx(box.scale.z + 0.6)
            matched += 1
    assert matched >= len(texts) // 2, (matched, len(texts))

    # the signals: one group per signal group of the demo track, each element a real constant of the type
    from autoware_perception_msgs.msg import TrafficLightElement as E
    for _, m in got['/perception/traffic_light_recognition/traffic_signals']:
        ids = [g.traffic_light_group_id for g in m.traffic_light_groups]
        assert ids and len(set(ids)) == len(ids)
        for g in m.traffic_light_groups:
            (e,) = g.elements
            assert (e.color, e.shape, e.status) in {(E.GREEN, E.CIRCLE, E.SOLID_ON), (E.GREEN, E.LEFT_ARROW, E.SOLID_ON), (E.AMBER, E.CIRCLE, E.SOLID_ON),
                                                    (E.RED, E.CIRCLE, E.SOLID_ON), (E.UNKNOWN, E.CIRCLE, E.SOLID_OFF)}
            assert e.confidence == 1.0 and list(g.predictions) == []
    side = [json.loads(m.data) for _, m in got['/vils/signals']]
    assert all(s['signals'] and {'id', 'state', 'traffic_light_group_id'} <= set(s['signals'][0]) for s in side)

    # and the car's NavSatFix went the other way: the server placed ego dds_car at the origin
    (ego,) = [e for e in status['egos'] if e.get('id', e.get('ego_id')) == 'dds_car']
    assert not ego.get('stale'), ego
    # a uuid the way Autoware reads it: 16 bytes, the NPC's stable id
    assert len(uuid.UUID(bytes=bytes(got['/vils/npcs/objects'][-1][1].objects[0].object_id.uuid)).bytes) == 16
