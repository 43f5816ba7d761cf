"""Reads an MCAP that `vils export` wrote with independent readers and holds it against the VILS recording it came
from and against the bridge's own conversions (test/export/ros2-export.test.ts runs it in .venv-ros2):

    python check_export.py <recording.mcap> <export.mcap>

- every message is decoded by mcap-ros2-support (a pure-Python ROS 2 CDR reader) from the schema in the file;
- every schema's fields are those of the real rclpy classes (the wheels' and those rosidl built here);
- each frame's markers, hold texts, detections, Autoware objects, traffic lights and signals' JSON are what
  vils_bridge.convert makes of the recorded npc_states frame; each ego's NavSatFix is its recorded ego_state.

Prints a JSON summary; exits 1 with the first difference.
"""
import importlib
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from mcap.reader import make_reader  # noqa: E402
from mcap_ros2.decoder import DecoderFactory  # noqa: E402

from vils_bridge import convert  # noqa: E402

F32 = lambda v: struct.unpack('<f', struct.pack('<f', v))[0]  # noqa: E731 - a float32 field's value


def fail(text):
    print(f'check_export: {text}', file=sys.stderr)
    sys.exit(1)


def check(cond, text):
    if not cond:
        fail(text)


def schema_fields(schema_text, type_name):
    """{field: rosidl type string} of the root type of a ros2msg schema, read the way ros_defs reads .msg files."""
    import ros_defs
    root = schema_text.split('\n' + '=' * 80 + '\n')[0]
    original = ros_defs.text
    try:
        ros_defs.text = lambda t: root
        return ros_defs.parse(type_name)[0]
    finally:
        ros_defs.text = original


def main(recording, exported):
    sys.path.insert(0, os.path.dirname(__file__))
    from visualization_msgs.msg import Marker  # the real class's constants (TEXT_VIEW_FACING 9, ADD 0)
    from autoware_perception_msgs.msg import ObjectClassification, Shape  # CAR 1, BICYCLE 6, PEDESTRIAN 7; BOUNDING_BOX 0, CYLINDER 1
    frames, fixes = [], {}
    with open(recording, 'rb') as f:
        for _, channel, message in make_reader(f).iter_messages(topics=['/vils/npc_states', '/vils/inputs/stream']):
            data = json.loads(message.data)
            if channel.topic == '/vils/npc_states':
                frames.append((message.log_time, data))
            elif data['outcome'] == 'ok' and '"ego_state"' in data['message']:
                m = json.loads(data['message'])
                fixes.setdefault(m.get('ego_id', 'ego'), []).append((message.log_time, m))

    decoded = {}
    schemas = {}
    with open(exported, 'rb') as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        check(reader.get_header().profile == 'ros2', 'the profile is not ros2')
        for schema, channel, message, msg in reader.iter_decoded_messages():
            check(schema.encoding == 'ros2msg' and channel.message_encoding == 'cdr', f'{channel.topic}: {schema.encoding}/{channel.message_encoding}')
            schemas[channel.topic] = (schema.name, schema.data.decode())
            decoded.setdefault(channel.topic, []).append((message.log_time, msg))

    # the schemas carry the real definitions' fields
    for topic, (name, text) in schemas.items():
        pkg, _, typ = name.split('/')
        cls = getattr(importlib.import_module(f'{pkg}.msg'), typ)
        check(schema_fields(text, name) == cls.get_fields_and_field_types(), f'{topic}: the schema of {name} differs from the real class')

    # each frame as the bridge converts it
    for topic in ('/vils/npcs/markers', '/vils/npcs/holds', '/vils/npcs/detections', '/vils/npcs/objects', '/perception/traffic_light_recognition/traffic_signals', '/vils/signals'):
        check(len(decoded.get(topic, [])) == len(frames), f'{topic}: {len(decoded.get(topic, []))} messages for {len(frames)} frames')
    tl = convert.TRAFFIC_LIGHT_ELEMENT_1X
    for i, (log_time, frame) in enumerate(frames):
        markers = decoded['/vils/npcs/markers'][i]
        check(markers[0] == log_time, 'markers not at the frame\'s log time')
        want = convert.npc_markers(frame)
        got = markers[1].markers
        check([m.id for m in got] == [w['id'] for w in want], f'frame {i}: marker ids')
        sec, nsec = convert.frame_stamp(frame)
        for m, w in zip(got, want):
            check((m.header.stamp.sec, m.header.stamp.nanosec, m.header.frame_id, m.ns, m.type, m.action) == (sec, nsec, 'vils_map', w['ns'], getattr(Marker, w['type']), Marker.ADD), f'frame {i}: marker header')
            check((m.pose.position.x, m.pose.position.y, m.pose.position.z) == w['position'], f'frame {i}: marker position')
            check(all(math.isclose(a, b, rel_tol=0, abs_tol=1e-15) for a, b in zip((m.pose.orientation.x, m.pose.orientation.y, m.pose.orientation.z, m.pose.orientation.w), w['orientation'])), f'frame {i}: marker orientation')
            check((m.scale.x, m.scale.y, m.scale.z) == w['scale'] and (m.color.r, m.color.g, m.color.b, m.color.a) == tuple(F32(c) for c in w['color']), f'frame {i}: marker scale/colour')
            check((m.lifetime.sec, m.lifetime.nanosec) == (0, int(w['lifetime_s'] * 1e9)), f'frame {i}: marker lifetime')
        holds = decoded['/vils/npcs/holds'][i]
        check(holds[0] == log_time, 'holds not at the frame\'s log time')
        want = convert.npc_hold_markers(frame)
        got = holds[1].markers
        check([(m.id, m.text) for m in got] == [(w['id'], w['text']) for w in want], f'frame {i}: hold ids/texts {[(m.id, m.text) for m in got]}')
        for m, w in zip(got, want):
            check((m.header.stamp.sec, m.header.stamp.nanosec, m.header.frame_id, m.ns, m.type, m.action) == (sec, nsec, 'vils_map', w['ns'], getattr(Marker, w['type']), Marker.ADD), f'frame {i}: hold header')
            check((m.pose.position.x, m.pose.position.y, m.pose.position.z) == w['position'], f'frame {i}: hold position')
            check((m.pose.orientation.x, m.pose.orientation.y, m.pose.orientation.z, m.pose.orientation.w) == w['orientation'], f'frame {i}: hold orientation')
            check((m.scale.x, m.scale.y, m.scale.z) == w['scale'] and (m.color.r, m.color.g, m.color.b, m.color.a) == tuple(F32(c) for c in w['color']), f'frame {i}: hold scale/colour')
            check((m.lifetime.sec, m.lifetime.nanosec) == (0, int(w['lifetime_s'] * 1e9)), f'frame {i}: hold lifetime')
        dets = decoded['/vils/npcs/detections'][i][1]
        for d, w in zip(dets.detections, convert.npc_detections(frame)):
            check(d.id == w['id'] and d.results[0].hypothesis.class_id == w['class_id'] and d.results[0].hypothesis.score == w['score'], f'frame {i}: detection')
            check((d.bbox.size.x, d.bbox.size.y, d.bbox.size.z) == w['size'] and (d.bbox.center.position.x, d.bbox.center.position.y) == w['position'][:2], f'frame {i}: detection box')
        check(len(dets.detections) == len(frame.get('npcs', [])), f'frame {i}: detections')
        objs = decoded['/vils/npcs/objects'][i][1]
        check(len(objs.objects) == len(frame.get('npcs', [])), f'frame {i}: objects')
        for o, w in zip(objs.objects, convert.predicted_objects(frame)):
            check(bytes(o.object_id.uuid) == w['uuid'], f'frame {i}: object uuid')
            tw = o.kinematics.initial_twist_with_covariance.twist.linear
            check(all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) for a, b in zip((tw.x, tw.y, tw.z), w['twist_linear'])), f'frame {i}: object twist')
            check([(c.label, c.probability) for c in o.classification] == [(getattr(ObjectClassification, w['label']), 1.0)], f'frame {i}: object class')
            check(o.shape.type == getattr(Shape, w['shape']), f'frame {i}: object shape')
            check((o.shape.dimensions.x, o.shape.dimensions.y, o.shape.dimensions.z) == w['dimensions'], f'frame {i}: object dimensions')
        groups = convert.traffic_light_groups(frame)
        lights = decoded['/perception/traffic_light_recognition/traffic_signals'][i][1]
        check((lights.stamp.sec, lights.stamp.nanosec) == groups['stamp'], f'frame {i}: lights stamp')
        got = [(g.traffic_light_group_id, [(e.color, e.shape, e.status, e.confidence) for e in g.elements]) for g in lights.traffic_light_groups]
        want = [(g['traffic_light_group_id'], [(tl['color'][e['color']], tl['shape'][e['shape']], tl['status'][e['status']], e['confidence']) for e in g['elements']])
                for g in groups['traffic_light_groups']]
        check(got == want, f'frame {i}: traffic lights {got} != {want}')
        side = decoded['/vils/signals'][i][1]
        check(json.loads(side.data) == json.loads(convert.signals_json(frame)), f'frame {i}: signals JSON')

    # each ego's fixes, as they came in
    for ego, sent in fixes.items():
        got = decoded.get(f'/vils/egos/{ego}/fix', [])
        check(len(got) == len(sent), f'ego {ego}: {len(got)} fixes for {len(sent)} ego_state messages')
        for (t, m), (lt, fix) in zip(sent, got):
            sec, nsec = convert.frame_stamp({'timestamp': m['timestamp']})
            check(lt == t and (fix.latitude, fix.longitude) == (m['data']['lat'], m['data']['lon']), f'ego {ego}: fix position')
            check((fix.header.stamp.sec, fix.header.stamp.nanosec) == (sec, nsec) and fix.status.status == 0, f'ego {ego}: fix stamp/status')

    (_, tf_static), = decoded['/tf_static']
    (t,) = tf_static.transforms
    check((t.header.frame_id, t.child_frame_id) == ('map', 'vils_map'), '/tf_static frames')
    ego_frames = sum(1 for _, fr in frames if fr.get('egos'))
    check(len(decoded.get('/tf', [])) == ego_frames, f'/tf: {len(decoded.get("/tf", []))} for {ego_frames} frames with egos')
    print(json.dumps({'frames': len(frames), 'held': sum(len(convert.npc_hold_markers(fr)) for _, fr in frames),
                      'topics': {k: len(v) for k, v in sorted(decoded.items())}, 'types': {k: v[0] for k, v in sorted(schemas.items())}}))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
