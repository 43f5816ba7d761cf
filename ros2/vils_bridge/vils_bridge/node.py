"""The rclpy node: a thin shell over convert (message fields) and client (the WebSocket side).

In:  sensor_msgs/NavSatFix on ``fix_topic``; heading (std_msgs/Float64, degrees clockwise from north) and speed
     (std_msgs/Float64, m/s) on ``heading_topic``/``speed_topic``, or derived from consecutive fixes when empty.
Out: visualization_msgs/MarkerArray on /vils/npcs/markers (a box per NPC, a cylinder per pedestrian) and on /vils/npcs/holds (a
     TEXT_VIEW_FACING marker above each NPC something holds, its ``hold``: red, yellow, stop_sign, give_way, box,
     queue; every frame, empty when nothing holds any), vision_msgs/Detection3DArray on /vils/npcs/detections,
     and autoware_perception_msgs/PredictedObjects on /vils/npcs/objects when that package is importable (each
     object classified by the frame's ``kind``: CAR, PEDESTRIAN, BICYCLE, with its size); all in
     ``frame_id``, whose transform from ``map_frame`` is published on /tf_static (tf2_msgs/TFMessage, latched as
     tf2_ros's StaticTransformBroadcaster does: the node needs tf2_msgs, not the whole of tf2_ros). The signal groups' states as
     autoware_perception_msgs/TrafficLightGroupArray on ``traffic_lights_topic`` (when that type is importable) and
     as JSON (std_msgs/String: ids, time to change) on ``signals_topic``, for frames that carry ``signals``. Each
     frame is published as it arrives from the server (so at the server's publish_hz), always the newest one.
"""
import asyncio
import signal
import threading

import rclpy
from geometry_msgs.msg import TransformStamped
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile
from sensor_msgs.msg import NavSatFix
from std_msgs.msg import Float64, String
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose
from visualization_msgs.msg import Marker, MarkerArray

from . import convert
from .client import BridgeClient

try:  # Autoware is optional
    from autoware_perception_msgs.msg import ObjectClassification, PredictedObject, PredictedObjects, Shape
except ImportError:  # pragma: no cover - depends on the installation
    PredictedObjects = None
try:  # autoware_msgs 1.x (older releases have TrafficSignalArray instead, not published)
    from autoware_perception_msgs.msg import TrafficLightElement, TrafficLightGroup, TrafficLightGroupArray
except ImportError:  # pragma: no cover - depends on the installation
    TrafficLightGroupArray = None


NO_FIX = -1  # sensor_msgs/NavSatStatus.STATUS_NO_FIX (the same in every distribution)


def _marker(f, kind, frame_id, sec, nsec):
    """One Marker from a convert.npc_markers / npc_hold_markers entry (a text marker carries its text)."""
    m = Marker()
    m.header.frame_id, m.header.stamp.sec, m.header.stamp.nanosec = frame_id, sec, nsec
    m.ns, m.id, m.type, m.action = f['ns'], f['id'], kind, Marker.ADD
    if 'text' in f:
        m.text = f['text']
    _pose(m.pose, f['position'], f['orientation'])
    m.scale.x, m.scale.y, m.scale.z = f['scale']
    m.color.r, m.color.g, m.color.b, m.color.a = f['color']
    m.lifetime.nanosec = int(f['lifetime_s'] * 1e9)
    return m


def _pose(msg_pose, position, orientation):
    msg_pose.position.x, msg_pose.position.y, msg_pose.position.z = position
    msg_pose.orientation.x, msg_pose.orientation.y, msg_pose.orientation.z, msg_pose.orientation.w = orientation


class VilsBridge(Node):
    def __init__(self):
        super().__init__('vils_bridge')
        p = {name: self.declare_parameter(name, default).value for name, default in [
            ('url', 'ws://localhost:8000/ws/vils/stream'), ('token', ''), ('ego_id', 'ego'), ('fix_topic', '/gps/fix'),
            ('heading_topic', ''), ('speed_topic', ''), ('send_hz', 10.0), ('frame_id', 'vils_map'), ('map_frame', 'map'),
            ('map_offset', [0.0, 0.0, 0.0, 0.0]), ('reconnect_min_s', 0.5), ('reconnect_max_s', 10.0),
            ('traffic_lights_topic', '/perception/traffic_light_recognition/traffic_signals'), ('signals_topic', '/vils/signals'),
            ('traffic_light_group_ids', '')]}
        self.p = p
        self.fix = None
        self.fix_stamp = None
        self.fix_sent = True
        self.heading = None
        self.speed = None
        self.motion = convert.MotionFromFixes()
        self.create_subscription(NavSatFix, p['fix_topic'], self.on_fix, 10)
        if p['heading_topic']:
            self.create_subscription(Float64, p['heading_topic'], lambda m: setattr(self, 'heading', m.data), 10)
        if p['speed_topic']:
            self.create_subscription(Float64, p['speed_topic'], lambda m: setattr(self, 'speed', max(0.0, m.data)), 10)
        self.markers = self.create_publisher(MarkerArray, '/vils/npcs/markers', 10)
        self.holds = self.create_publisher(MarkerArray, '/vils/npcs/holds', 10)
        self.detections = self.create_publisher(Detection3DArray, '/vils/npcs/detections', 10)
        self.objects = self.create_publisher(PredictedObjects, '/vils/npcs/objects', 10) if PredictedObjects else None
        if PredictedObjects is None:
            self.get_logger().info('autoware_perception_msgs/PredictedObjects not importable: /vils/npcs/objects not published')
        self.group_ids = convert.parse_group_ids(p['traffic_light_group_ids'])
        self.traffic_lights = None
        if p['traffic_lights_topic'] and TrafficLightGroupArray is not None:
            self.traffic_lights = self.create_publisher(TrafficLightGroupArray, p['traffic_lights_topic'], 10)
        elif p['traffic_lights_topic']:
            self.get_logger().info(f"autoware_perception_msgs/TrafficLightGroupArray not importable: {p['traffic_lights_topic']} not published")
        self.signals = self.create_publisher(String, p['signals_topic'], 10) if p['signals_topic'] else None
        self.signal_groups_seen = None  # the (VILS id, published id) pairs last logged
        self.unknown_states_seen = set()
        self.no_signals_logged = False
        self.publish_static_transform()
        self.client = BridgeClient(p['url'], get_ego=self.ego, on_frame=self.publish_frame, on_error=lambda e: self.get_logger().warn(f'VILS: {e}'),
                                   log=self.get_logger().info, token=p['token'], send_hz=p['send_hz'],
                                   reconnect_min_s=p['reconnect_min_s'], reconnect_max_s=p['reconnect_max_s'],
                                   clock=lambda: self.get_clock().now().nanoseconds / 1e9)
        self.client_thread = threading.Thread(target=lambda: asyncio.run(self.client.run()), name='vils-client', daemon=True)
        self.client_thread.start()

    def on_fix(self, msg):
        # only STATUS_NO_FIX (-1) says there is none: Jazzy's NavSatStatus defaults to STATUS_UNKNOWN (-2), which a
        # driver that leaves the status alone sends with every good fix
        if msg.status.status == NO_FIX or not convert.valid_fix(msg.latitude, msg.longitude):
            return
        self.fix = (msg.latitude, msg.longitude)
        now = self.get_clock().now().nanoseconds / 1e9
        # the moment the fix was taken (its header stamp; now if the driver left it empty): the server places it there
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        self.fix_stamp = stamp if stamp > 0 else now
        self.fix_sent = False
        self.motion.update(msg.latitude, msg.longitude, now)

    def ego(self):
        # each fix once, stamped with its own time (sent again, an old fix would be placed at its old time anyway)
        if self.fix is None or self.fix_sent:
            return None
        heading = self.heading if self.heading is not None else self.motion.heading_deg
        if heading is None:
            return None
        speed = self.speed if self.speed is not None else self.motion.speed_mps
        self.fix_sent = True
        return convert.ego_state(self.fix[0], self.fix[1], heading, speed, ego_id=self.p['ego_id'], timestamp=self.fix_stamp)

    def publish_static_transform(self):
        t = convert.map_transform(self.p['map_offset'])
        msg = TransformStamped()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = self.p['map_frame']
        msg.child_frame_id = self.p['frame_id']
        msg.transform.translation.x, msg.transform.translation.y, msg.transform.translation.z = t['translation']
        r = msg.transform.rotation
        r.x, r.y, r.z, r.w = t['rotation']
        # tf2_ros's StaticTransformBroadcaster's QoS: the last message kept for subscribers that join later
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, history=HistoryPolicy.KEEP_LAST)
        self.tf_static = self.create_publisher(TFMessage, '/tf_static', qos)
        self.tf_static.publish(TFMessage(transforms=[msg]))

    def publish_frame(self, frame):
        sec, nsec = convert.frame_stamp(frame)
        frame_id = self.p['frame_id']
        markers = MarkerArray()
        markers.markers = [_marker(f, getattr(Marker, f['type']), frame_id, sec, nsec) for f in convert.npc_markers(frame)]
        self.markers.publish(markers)
        holds = MarkerArray()
        holds.markers = [_marker(f, Marker.TEXT_VIEW_FACING, frame_id, sec, nsec) for f in convert.npc_hold_markers(frame)]
        self.holds.publish(holds)
        dets = Detection3DArray()
        dets.header.frame_id, dets.header.stamp.sec, dets.header.stamp.nanosec = frame_id, sec, nsec
        for f in convert.npc_detections(frame):
            d = Detection3D()
            d.header = dets.header
            d.id = f['id']
            _pose(d.bbox.center, f['position'], f['orientation'])
            d.bbox.size.x, d.bbox.size.y, d.bbox.size.z = f['size']
            h = ObjectHypothesisWithPose()
            h.hypothesis.class_id, h.hypothesis.score = f['class_id'], f['score']
            _pose(h.pose.pose, f['position'], f['orientation'])
            d.results.append(h)
            dets.detections.append(d)
        self.detections.publish(dets)
        if self.objects is not None:
            objs = PredictedObjects()
            objs.header = dets.header
            for f in convert.predicted_objects(frame):
                o = PredictedObject()
                o.object_id.uuid = list(f['uuid'])
                o.existence_probability = f['existence_probability']
                c = ObjectClassification()
                c.label, c.probability = getattr(ObjectClassification, f['label']), 1.0
                o.classification.append(c)
                _pose(o.kinematics.initial_pose_with_covariance.pose, f['position'], f['orientation'])
                tw = o.kinematics.initial_twist_with_covariance.twist.linear
                tw.x, tw.y, tw.z = f['twist_linear']
                o.shape.type = getattr(Shape, f['shape'])
                o.shape.dimensions.x, o.shape.dimensions.y, o.shape.dimensions.z = f['dimensions']
                objs.objects.append(o)
            self.objects.publish(objs)
        self.publish_signals(frame)

    def publish_signals(self, frame):
        groups = convert.traffic_light_groups(frame, self.group_ids)
        if groups is None:
            if not self.no_signals_logged:
                self.no_signals_logged = True
                self.get_logger().info('the server\'s frames carry no signals: no traffic light states published')
            return
        seen = tuple((g['id'], g['traffic_light_group_id']) for g in groups['traffic_light_groups'])
        if seen != self.signal_groups_seen:
            self.signal_groups_seen = seen
            self.get_logger().info(f'traffic light groups: {", ".join(f"{i} -> {n}" for i, n in seen) or "none"}')
        for g in groups['traffic_light_groups']:
            if g['elements'][0]['color'] == 'UNKNOWN' and g['elements'][0]['status'] == 'UNKNOWN' and g['state'] not in self.unknown_states_seen:
                self.unknown_states_seen.add(g['state'])
                self.get_logger().warn(f"signal group {g['id']}: unknown state {g['state']!r}, published as UNKNOWN")
        if self.traffic_lights is not None:
            self.traffic_lights.publish(traffic_light_group_array(groups))
        if self.signals is not None:
            self.signals.publish(String(data=convert.signals_json(frame, self.group_ids)))


def traffic_light_group_array(groups):
    """The TrafficLightGroupArray message of convert.traffic_light_groups' dict; the constants' numbers come from
    the installed message class."""
    msg = TrafficLightGroupArray()
    msg.stamp.sec, msg.stamp.nanosec = groups['stamp']
    for g in groups['traffic_light_groups']:
        group = TrafficLightGroup()
        group.traffic_light_group_id = g['traffic_light_group_id']
        for e in g['elements']:
            el = TrafficLightElement()
            el.color, el.shape, el.status = (getattr(TrafficLightElement, e[k]) for k in ('color', 'shape', 'status'))
            el.confidence = e['confidence']
            group.elements.append(el)
        msg.traffic_light_groups.append(group)
    return msg


def main():
    rclpy.init()
    node = VilsBridge()
    # SIGTERM (systemd, docker stop, a test) ends the node here rather than through rclpy's own handler, which on
    # Kilted now and then left rclpy.spin waiting after it; hence spin_once with a timeout, to look at the flag
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    try:
        while rclpy.ok() and not stopping.is_set():
            rclpy.spin_once(node, timeout_sec=0.2)
    except (KeyboardInterrupt, ExternalShutdownException):  # Ctrl-C
        pass
    finally:
        # the client first, and its last publish done, then the node its publishers belong to
        node.client.stop()
        node.client_thread.join(10)
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()
