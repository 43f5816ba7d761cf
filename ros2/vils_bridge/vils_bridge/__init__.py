"""VILS <-> ROS 2 bridge: plain-Python conversion (convert) and WebSocket client (client) modules, and a thin rclpy node (node)."""
