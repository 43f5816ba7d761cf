"""The rclpy node without ROS 2: rclpy and the message packages replaced by stand-ins, so that node.py's own code
(parameters, which publishers exist, how messages are filled) runs here. The Autoware traffic light types are
strict stand-ins with the fields and constants of autoware_msgs 1.x, so a misspelt field fails."""
import importlib
import json
import sys
import types

import pytest

from vils_bridge import convert


class Auto:
    """A message stand-in whose nested fields spring up on first use; `_lists` name its list fields."""
    _lists = ()

    def __init__(self, **kw):
        for name in self._lists:
            object.__setattr__(self, name, [])
        for k, v in kw.items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        child = Auto()
        object.__setattr__(self, name, child)
        return child


def auto(name, lists=(), **consts):
    return type(name, (Auto,), dict(_lists=lists, **consts))


class Strict:
    __slots__ = ()

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


class Time(Strict):
    __slots__ = ('sec', 'nanosec')

    def __init__(self):
        self.sec, self.nanosec = 0, 0


class TrafficLightElement(Strict):
    __slots__ = ('color', 'shape', 'status', 'confidence')
    UNKNOWN, RED, AMBER, GREEN, WHITE = 0, 1, 2, 3, 4
    CIRCLE, LEFT_ARROW, RIGHT_ARROW, UP_ARROW = 1, 2, 3, 4
    SOLID_OFF, SOLID_ON, FLASHING = 1, 2, 3


class TrafficLightGroup(Strict):
    __slots__ = ('traffic_light_group_id', 'elements', 'predictions')

    def __init__(self):
        self.traffic_light_group_id, self.elements, self.predictions = 0, [], []


class TrafficLightGroupArray(Strict):
    __slots__ = ('stamp', 'traffic_light_groups')

    def __init__(self):
        self.stamp, self.traffic_light_groups = Time(), []


class String(Strict):
    __slots__ = ('data',)


class Publisher:
    def __init__(self, msg_type, topic):
        self.msg_type, self.topic, self.sent = msg_type, topic, []

    def publish(self, msg):
        assert isinstance(msg, self.msg_type)
        self.sent.append(msg)


class Logger:
    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(('info', text))

    def warn(self, text):
        self.lines.append(('warn', text))


class Node:
    params = {}

    def __init__(self, name):
        self.publishers = {}
        self.logger = Logger()

    def declare_parameter(self, name, default):
        return types.SimpleNamespace(value=self.params.get(name, default))

    def create_subscription(self, *args):
        pass

    def create_publisher(self, msg_type, topic, qos):
        self.publishers[topic] = Publisher(msg_type, topic)
        return self.publishers[topic]

    def get_logger(self):
        return self.logger

    def get_clock(self):
        return types.SimpleNamespace(now=lambda: types.SimpleNamespace(nanoseconds=0, to_msg=lambda: Auto()))


class FakeClient:
    def __init__(self, *args, **kw):
        pass

    async def run(self):
        pass

    def stop(self):
        pass


@pytest.fixture(autouse=True)
def forget_node_module():
    yield
    sys.modules.pop('vils_bridge.node', None)  # it was imported against the stand-ins
    import vils_bridge
    vils_bridge.__dict__.pop('node', None)


def load_node(monkeypatch, autoware, params=None):
    """vils_bridge.node imported against the stand-ins; with or without autoware_perception_msgs."""
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, m)

    module('rclpy', init=lambda: None, spin=lambda n: None, spin_once=lambda n, timeout_sec=None: None, ok=lambda: True, try_shutdown=lambda: None)
    module('rclpy.node', Node=type('Node', (Node,), {'params': params or {}}))
    module('rclpy.executors', ExternalShutdownException=type('ExternalShutdownException', (Exception,), {}))
    module('geometry_msgs'), module('geometry_msgs.msg', TransformStamped=auto('TransformStamped'))
    module('sensor_msgs'), module('sensor_msgs.msg', NavSatFix=auto('NavSatFix'))
    module('std_msgs'), module('std_msgs.msg', Float64=auto('Float64'), String=String)
    module('rclpy.qos', QoSProfile=lambda **kw: kw, DurabilityPolicy=types.SimpleNamespace(TRANSIENT_LOCAL='transient_local'),
           HistoryPolicy=types.SimpleNamespace(KEEP_LAST='keep_last'))
    module('tf2_msgs'), module('tf2_msgs.msg', TFMessage=auto('TFMessage', ('transforms',)))
    module('vision_msgs'), module('vision_msgs.msg', Detection3D=auto('Detection3D', ('results',)),
                                  Detection3DArray=auto('Detection3DArray', ('detections',)), ObjectHypothesisWithPose=auto('ObjectHypothesisWithPose'))
    module('visualization_msgs'), module('visualization_msgs.msg', Marker=auto('Marker', CUBE=1, CYLINDER=3, TEXT_VIEW_FACING=9, ADD=0), MarkerArray=auto('MarkerArray', ('markers',)))
    if autoware:
        module('autoware_perception_msgs')
        module('autoware_perception_msgs.msg', ObjectClassification=auto('ObjectClassification', UNKNOWN=0, CAR=1, BICYCLE=6, PEDESTRIAN=7),
               PredictedObject=auto('PredictedObject', ('classification',)), PredictedObjects=auto('PredictedObjects', ('objects',)),
               Shape=auto('Shape', BOUNDING_BOX=0, CYLINDER=1), TrafficLightElement=TrafficLightElement, TrafficLightGroup=TrafficLightGroup,
               TrafficLightGroupArray=TrafficLightGroupArray)
    else:
        monkeypatch.setitem(sys.modules, 'autoware_perception_msgs', None)  # import fails
        monkeypatch.setitem(sys.modules, 'autoware_perception_msgs.msg', None)  # (even after a real one was imported)
    monkeypatch.delitem(sys.modules, 'vils_bridge.node', raising=False)
    node = importlib.import_module('vils_bridge.node')
    monkeypatch.setattr(node, 'BridgeClient', FakeClient)
    return node


FRAME = {'type': 'npc_states', 'timestamp': 1700000000.25, 'sim_time_s': 26.0, 'npcs': [
    {'id': 7, 'x': 1.0, 'y': 2.0, 'yaw': 0.0, 'vx': 1.0, 'vy': 0.0, 'speed': 1.0, 'length': 4.5, 'width': 2.0},
], 'signals': [
    {'id': 'J1.A', 'numeric_id': 1, 'junction': 'J1', 'state': 'red', 'code': 'r', 'time_to_change_s': 4.5, 'source': 'plan', 'left': False, 'lanes': ['R6', 'L6']},
    {'id': 'J1.B', 'numeric_id': 2, 'junction': 'J1', 'state': 'green_yield', 'code': 'g', 'time_to_change_s': 2.5, 'source': 'plan', 'left': False, 'lanes': ['R3']},
    {'id': 'J1.B.left', 'numeric_id': 3, 'junction': 'J1', 'state': 'green', 'code': 'G', 'time_to_change_s': None, 'source': 'live', 'left': True, 'lanes': ['R3']},
    {'id': 'J1.C', 'numeric_id': 4, 'junction': 'J1', 'state': 'flashing', 'code': 'f', 'time_to_change_s': None, 'source': 'live', 'left': False, 'lanes': []},
]}

TOPIC = '/perception/traffic_light_recognition/traffic_signals'


def test_publishes_traffic_light_groups_with_autoware(monkeypatch):
    node = load_node(monkeypatch, autoware=True)
    bridge = node.VilsBridge()
    assert set(bridge.publishers) == {'/vils/npcs/markers', '/vils/npcs/holds', '/vils/npcs/detections', '/vils/npcs/objects', TOPIC, '/vils/signals', '/tf_static'}
    (tf,) = bridge.publishers['/tf_static'].sent
    assert (tf.transforms[0].header.frame_id, tf.transforms[0].child_frame_id) == ('map', 'vils_map')
    bridge.publish_frame(FRAME)
    bridge.publish_frame(FRAME)
    (msg, _) = bridge.publishers[TOPIC].sent
    assert (msg.stamp.sec, msg.stamp.nanosec) == (1700000000, 250000000)
    got = [(g.traffic_light_group_id, [(e.color, e.shape, e.status, e.confidence) for e in g.elements]) for g in msg.traffic_light_groups]
    E = TrafficLightElement
    assert got == [(1, [(E.RED, E.CIRCLE, E.SOLID_ON, 1.0)]), (2, [(E.GREEN, E.CIRCLE, E.SOLID_ON, 1.0)]),
                   (3, [(E.GREEN, E.LEFT_ARROW, E.SOLID_ON, 1.0)]), (4, [(E.UNKNOWN, E.UNKNOWN, E.UNKNOWN, 0.0)])]
    side = json.loads(bridge.publishers['/vils/signals'].sent[0].data)
    assert [(s['id'], s['time_to_change_s']) for s in side['signals']] == [('J1.A', 4.5), ('J1.B', 2.5), ('J1.B.left', None), ('J1.C', None)]
    lines = bridge.logger.lines
    assert ('info', 'traffic light groups: J1.A -> 1, J1.B -> 2, J1.B.left -> 3, J1.C -> 4') in lines
    assert [t for level, t in lines if level == 'warn'] == ["signal group J1.C: unknown state 'flashing', published as UNKNOWN"]  # once
    # a frame without signals (an older server): nothing more on either topic, said once
    bridge.publish_frame({k: v for k, v in FRAME.items() if k != 'signals'})
    bridge.publish_frame({k: v for k, v in FRAME.items() if k != 'signals'})
    assert len(bridge.publishers[TOPIC].sent) == 2 and len(bridge.publishers['/vils/signals'].sent) == 2
    assert sum('carry no signals' in t for _, t in bridge.logger.lines) == 1
    assert len(bridge.publishers['/vils/npcs/objects'].sent) == 4


def test_runs_without_autoware_and_takes_its_parameters(monkeypatch):
    node = load_node(monkeypatch, autoware=False)
    bridge = node.VilsBridge()
    assert set(bridge.publishers) == {'/vils/npcs/markers', '/vils/npcs/holds', '/vils/npcs/detections', '/vils/signals', '/tf_static'}
    assert ('info', f'autoware_perception_msgs/TrafficLightGroupArray not importable: {TOPIC} not published') in bridge.logger.lines
    bridge.publish_frame(FRAME)
    assert len(bridge.publishers['/vils/signals'].sent) == 1 and len(bridge.publishers['/vils/npcs/markers'].sent) == 1

    node = load_node(monkeypatch, autoware=True, params={'traffic_lights_topic': '/external/traffic_signals', 'signals_topic': '',
                                                         'traffic_light_group_ids': 'J1.A=1001,J1.B.left=1003'})
    bridge = node.VilsBridge()
    assert set(bridge.publishers) == {'/vils/npcs/markers', '/vils/npcs/holds', '/vils/npcs/detections', '/vils/npcs/objects', '/external/traffic_signals', '/tf_static'}
    bridge.publish_frame(FRAME)
    (msg,) = bridge.publishers['/external/traffic_signals'].sent
    assert [g.traffic_light_group_id for g in msg.traffic_light_groups] == [1001, 1003]
    with pytest.raises(ValueError, match='traffic_light_group_ids'):
        load_node(monkeypatch, autoware=True, params={'traffic_light_group_ids': 'J1.A'}).VilsBridge()


def test_publishes_each_held_npcs_hold_as_a_text_marker_every_frame(monkeypatch):
    node = load_node(monkeypatch, autoware=False, params={'frame_id': 'vils_test'})
    bridge = node.VilsBridge()
    held = dict(FRAME, npcs=[dict(FRAME['npcs'][0], hold='give_way'), {'id': 9, 'x': 5.0, 'y': 6.0, 'yaw': 0.0, 'length': 4.0, 'width': 1.8}])
    bridge.publish_frame(held)
    bridge.publish_frame(FRAME)  # nothing held: an empty array, still published
    (msg, empty) = bridge.publishers['/vils/npcs/holds'].sent
    (m,) = msg.markers
    assert (m.ns, m.id, m.type, m.action, m.text) == ('vils_npc_holds', 7, node.Marker.TEXT_VIEW_FACING, node.Marker.ADD, 'give_way')
    assert (m.header.frame_id, m.header.stamp.sec, m.header.stamp.nanosec) == ('vils_test', 1700000000, 250000000)
    assert (m.pose.position.x, m.pose.position.y, m.pose.position.z) == (1.0, 2.0, convert.NPC_HEIGHT_M + 0.6)
    assert (m.pose.orientation.x, m.pose.orientation.y, m.pose.orientation.z, m.pose.orientation.w) == (0.0, 0.0, 0.0, 1.0)
    assert (m.scale.x, m.scale.y, m.scale.z) == (0.0, 0.0, 1.0) and (m.color.r, m.color.g, m.color.b, m.color.a) == convert.COLOR_HOLD_TEXT
    assert m.lifetime.nanosec == 300_000_000
    assert empty.markers == []
    # the boxes: still one per NPC, held or not
    assert [len(a.markers) for a in bridge.publishers['/vils/npcs/markers'].sent] == [2, 1]


def test_classifies_pedestrians_and_cyclists_with_their_sizes(monkeypatch):
    node = load_node(monkeypatch, autoware=True)
    bridge = node.VilsBridge()
    people = dict(FRAME, npcs=[dict(FRAME['npcs'][0], kind='vehicle'),
                               {'id': 2000001, 'x': 3.0, 'y': 4.0, 'yaw': 0.0, 'length': 0.5, 'width': 0.5, 'kind': 'pedestrian'},
                               {'id': 1000002, 'x': 5.0, 'y': 6.0, 'yaw': 0.0, 'length': 1.8, 'width': 0.6, 'kind': 'cyclist'}])
    bridge.publish_frame(people)
    (objs,) = bridge.publishers['/vils/npcs/objects'].sent
    C, S = node.ObjectClassification, node.Shape
    assert [[(c.label, c.probability) for c in o.classification] for o in objs.objects] == [[(C.CAR, 1.0)], [(C.PEDESTRIAN, 1.0)], [(C.BICYCLE, 1.0)]]
    assert [(o.shape.type, o.shape.dimensions.x, o.shape.dimensions.y, o.shape.dimensions.z) for o in objs.objects] == [
        (S.BOUNDING_BOX, 4.5, 2.0, 1.6), (S.CYLINDER, 0.5, 0.5, 1.75), (S.BOUNDING_BOX, 1.8, 0.6, 1.7)]
    (dets,) = bridge.publishers['/vils/npcs/detections'].sent
    assert [d.results[0].hypothesis.class_id for d in dets.detections] == ['car', 'pedestrian', 'bicycle']
    (markers,) = bridge.publishers['/vils/npcs/markers'].sent
    assert [m.type for m in markers.markers] == [node.Marker.CUBE, node.Marker.CYLINDER, node.Marker.CUBE]


def test_the_stand_in_constants_are_those_convert_documents():
    t = convert.TRAFFIC_LIGHT_ELEMENT_1X
    for kind in ('color', 'shape', 'status'):
        for name, value in t[kind].items():
            assert getattr(TrafficLightElement, name) == value


def test_each_fix_is_sent_once_stamped_with_the_moment_it_was_taken(monkeypatch):
    node = load_node(monkeypatch, autoware=False, params={'heading_topic': '/heading'})
    bridge = node.VilsBridge()
    bridge.heading = 45.0
    assert bridge.ego() is None  # no fix yet
    stamp = types.SimpleNamespace(sec=1700000000, nanosec=250000000)
    bridge.on_fix(types.SimpleNamespace(status=types.SimpleNamespace(status=0), latitude=37.3645, longitude=126.7239, header=types.SimpleNamespace(stamp=stamp)))
    ego = bridge.ego()
    assert ego['timestamp'] == 1700000000.25 and ego['data']['lat'] == 37.3645
    # nothing new: nothing sent (the server would place an old fix at its old time anyway)
    assert bridge.ego() is None


def test_a_fix_of_unknown_status_is_used_and_no_fix_is_not(monkeypatch):
    """Jazzy's NavSatStatus defaults to STATUS_UNKNOWN (-2): a driver that never sets it still has fixes."""
    node = load_node(monkeypatch, autoware=False, params={'heading_topic': '/heading'})
    bridge = node.VilsBridge()
    bridge.heading = 45.0
    stamp = types.SimpleNamespace(sec=1700000000, nanosec=0)

    def fix(status, lat):
        bridge.on_fix(types.SimpleNamespace(status=types.SimpleNamespace(status=status), latitude=lat, longitude=126.7239, header=types.SimpleNamespace(stamp=stamp)))

    fix(-1, 37.3641)  # STATUS_NO_FIX
    assert bridge.ego() is None
    fix(-2, 37.3642)  # STATUS_UNKNOWN
    assert bridge.ego()['data']['lat'] == 37.3642
