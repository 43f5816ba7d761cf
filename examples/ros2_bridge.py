"""VILS <-> ROS 2 bridge (adapted from the seed document's example).

Subscribes to the car's GNSS fix and heading, streams them to VILS as ego_state at 10 Hz, and publishes
the NPCs as a MarkerArray (frame "vils_local": x east, y north, metres about the map origin).

    pip install websockets    # rclpy comes with ROS 2
    python3 ros2_bridge.py --url ws://<vils-host>:8000/ws/vils/stream
"""
import argparse
import asyncio
import json
import math
import threading
import time

import rclpy
import websockets
from rclpy.node import Node
from sensor_msgs.msg import NavSatFix
from std_msgs.msg import Float64
from visualization_msgs.msg import Marker, MarkerArray


class VilsBridge(Node):
    def __init__(self, url: str):
        super().__init__('vils_bridge')
        self.url = url
        self.lat = self.lon = None
        self.heading = 0.0  # degrees clockwise from true north
        self.speed = 0.0    # m/s
        self.create_subscription(NavSatFix, '/gps/fix', self.on_fix, 10)
        self.create_subscription(Float64, '/gps/heading', lambda m: setattr(self, 'heading', m.data), 10)
        self.create_subscription(Float64, '/vehicle/speed', lambda m: setattr(self, 'speed', max(0.0, m.data)), 10)
        self.npc_pub = self.create_publisher(MarkerArray, '/vils/npcs', 10)
        threading.Thread(target=lambda: asyncio.run(self.ws_loop()), daemon=True).start()

    def on_fix(self, msg: NavSatFix):
        self.lat, self.lon = msg.latitude, msg.longitude

    async def ws_loop(self):
        while rclpy.ok():
            try:
                async with websockets.connect(self.url, max_size=2**22) as ws:
                    while rclpy.ok():
                        if self.lat is not None:
                            await ws.send(json.dumps({
                                'type': 'ego_state', 'timestamp': time.time(),
                                'data': {'lat': self.lat, 'lon': self.lon, 'heading': self.heading % 360.0, 'speed': self.speed},
                            }))
                        msg = json.loads(await ws.recv())   # the next npc_states (or an error)
                        if msg.get('type') == 'npc_states':
                            self.publish(msg['npcs'])
                        elif msg.get('type') == 'error':
                            self.get_logger().warn(f"VILS: {msg['error']}")
                        await asyncio.sleep(0.1)            # 10 Hz
            except (OSError, websockets.WebSocketException) as err:
                self.get_logger().warn(f'VILS connection lost ({err}); retrying in 1 s')
                await asyncio.sleep(1.0)

    def publish(self, npcs):
        markers = MarkerArray()
        stamp = self.get_clock().now().to_msg()
        for n in npcs:
            m = Marker()
            m.header.frame_id = 'vils_local'
            m.header.stamp = stamp
            m.ns, m.id, m.type, m.action = 'vils_npcs', int(n['id']), Marker.CUBE, Marker.ADD
            m.pose.position.x, m.pose.position.y, m.pose.position.z = float(n['x']), float(n['y']), 0.8
            m.pose.orientation.z, m.pose.orientation.w = math.sin(n['yaw'] / 2), math.cos(n['yaw'] / 2)
            m.scale.x, m.scale.y, m.scale.z = float(n['length']), float(n['width']), 1.6
            m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.4, 0.1, 0.9
            m.lifetime.nanosec = 300_000_000
            markers.markers.append(m)
        self.npc_pub.publish(markers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--url', default='ws://localhost:8000/ws/vils/stream')
    args = parser.parse_args()
    rclpy.init()
    rclpy.spin(VilsBridge(args.url))


if __name__ == '__main__':
    main()
