"""ros2 launch vils_bridge vils_bridge.launch.py [params_file:=...] [url:=ws://host:8000/ws/vils/stream]"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    default_params = os.path.join(get_package_share_directory('vils_bridge'), 'config', 'vils_bridge.yaml')
    return LaunchDescription([
        DeclareLaunchArgument('params_file', default_value=default_params),
        DeclareLaunchArgument('url', default_value='ws://localhost:8000/ws/vils/stream'),
        Node(
            package='vils_bridge',
            executable='vils_bridge',
            name='vils_bridge',
            output='screen',
            parameters=[LaunchConfiguration('params_file'), {'url': LaunchConfiguration('url')}],
        ),
    ])
