"""The definitions in ros2/interfaces against the real ones, field for field: the classes of the ROS 2 wheels
(std_msgs, geometry_msgs, sensor_msgs, visualization_msgs, ...) and those rosidl built from ros2/interfaces in the
test environment (tf2_msgs, vision_msgs, autoware_perception_msgs). `vils export` writes its schemas from these
definitions, so a field that differs here would be a recording the car's ROS cannot read."""
import importlib
import os

import pytest

import ros_defs
from conftest import require_ros2


@pytest.fixture(autouse=True)
def ros2():
    require_ros2()


def real_class(type_name):
    pkg, _, name = type_name.split('/')
    return getattr(importlib.import_module(f'{pkg}.msg'), name)


@pytest.mark.parametrize('type_name', ros_defs.all_types())
def test_the_definition_has_the_real_fields_and_constants(type_name):
    fields, constants = ros_defs.parse(type_name)
    cls = real_class(type_name)
    assert fields == cls.get_fields_and_field_types()
    for name, value in constants.items():
        real = getattr(cls, name)
        assert (real == value.strip('"')) if isinstance(real, str) else real == int(value), name


def test_the_standard_definitions_are_the_wheels_own():
    """Beyond the classes: the .msg text the wheels install, parsed the same way (defaults, constants, bounds)."""
    import rosidl_adapter  # noqa: F401 - the wheels' own share/ sits beside it in the environment's prefix
    import sys

    share = os.path.join(sys.prefix, 'share')
    built = {'tf2_msgs', 'vision_msgs', 'autoware_perception_msgs'}
    checked = 0
    for type_name in ros_defs.all_types():
        pkg, _, name = type_name.split('/')
        if pkg in built:
            continue
        with open(os.path.join(share, pkg, 'msg', f'{name}.msg')) as f:
            upstream = f.read()
        original = ros_defs.text
        try:
            ros_defs.text = lambda t: upstream
            theirs = ros_defs.parse(type_name)
        finally:
            ros_defs.text = original
        assert ros_defs.parse(type_name) == theirs, type_name
        checked += 1
    assert checked >= 20
