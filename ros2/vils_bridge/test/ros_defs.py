"""The message definitions in ros2/interfaces (what `vils export` writes its schemas from and what the test
environment's rosidl built tf2_msgs, vision_msgs and autoware_perception_msgs from), read two ways:

- as rosidl's Python classes report their fields (``get_fields_and_field_types()``: 'double', 'sequence<...>'),
  to hold them against the real classes, field for field;
- as a rosbags type store (a pure-Python ROS 2 CDR serialiser from PyPI), to decode what real rclpy serialises.
"""
import glob
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
INTERFACES = os.path.join(ROOT, 'ros2', 'interfaces')

# .msg primitive -> the name rosidl's Python classes give it
PRIMITIVES = {'bool': 'boolean', 'byte': 'octet', 'char': 'uint8', 'float32': 'float', 'float64': 'double', 'string': 'string', 'wstring': 'wstring',
              **{t: t for t in ('int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64')}}


def all_types():
    """['pkg/msg/Type', ...] of every definition."""
    return sorted(f'{p.split(os.sep)[-3]}/msg/{os.path.splitext(os.path.basename(p))[0]}'
                  for p in glob.glob(os.path.join(INTERFACES, '*', 'msg', '*.msg')))


def text(type_name):
    pkg, _, name = type_name.split('/')
    with open(os.path.join(INTERFACES, pkg, 'msg', f'{name}.msg')) as f:
        return f.read()


def parse(type_name):
    """(fields, constants) of one definition: fields {name: rosidl type string}, constants {name: value text}."""
    pkg = type_name.split('/')[0]
    fields, constants = {}, {}
    for line in text(type_name).splitlines():
        line = line.strip()
        if line.startswith('#'):
            continue
        line = line.split('#', 1)[0].strip() if '"' not in line else line
        if not line:
            continue
        typ, rest = line.split(None, 1)
        if '=' in rest and not rest.startswith('<'):
            name, value = (s.strip() for s in rest.split('=', 1))
            constants[name] = value
            continue
        name = rest.split()[0]  # a default value may follow
        m = re.fullmatch(r'([\w/]+)(?:<=(\d+))?(\[(<=)?(\d*)\])?', typ)
        base, str_bound, array, bounded, size = m.groups()
        if base in PRIMITIVES:
            elem = PRIMITIVES[base] + (f'<{str_bound}>' if str_bound else '')
        else:
            elem = base.replace('/msg/', '/') if '/' in base else f'{pkg}/{base}'
        if array is None:
            fields[name] = elem
        elif bounded:
            fields[name] = f'sequence<{elem}, {size}>'
        elif size:
            fields[name] = f'{elem}[{size}]'
        else:
            fields[name] = f'sequence<{elem}>'
    return fields, constants


def typestore():
    """A rosbags type store knowing every definition in ros2/interfaces (and nothing else)."""
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.EMPTY)
    types = {}
    for t in all_types():
        types.update(get_types_from_msg(text(t), t))
    store.register(types)
    return store
