"""A live `vils serve` (the built project, bin/vils.js) on a free loopback port, for the bridge tests."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, config):
        self.port = free_port()
        self.config = config
        self.proc = None

    @property
    def http(self):
        return f'http://127.0.0.1:{self.port}'

    @property
    def ws(self):
        return f'ws://127.0.0.1:{self.port}/ws/vils/stream'

    def start(self):
        fd, path = tempfile.mkstemp(suffix='.json')
        with os.fdopen(fd, 'w') as f:
            json.dump(self.config, f)
        self.proc = subprocess.Popen(['node', os.path.join(ROOT, 'bin', 'vils.js'), 'serve', '--host', '127.0.0.1', '--port', str(self.port),
                                      '--config', path, '--no-record', '--log-level', 'warn'], cwd=ROOT,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f'vils serve exited: {self.proc.stderr.read().decode()[-2000:]}')
            try:
                with urllib.request.urlopen(self.http + '/api/health', timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError('vils serve did not come up within 60 s')

    def get(self, path):
        with urllib.request.urlopen(self.http + path, timeout=5) as r:
            return json.loads(r.read())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope='module')
def server():
    if not os.path.exists(os.path.join(ROOT, 'dist', 'src', 'cli', 'vils.js')):
        pytest.fail('the project is not built: run `npm ci` (or `npm run build`) first')
    s = LiveServer({'npc_target': 20, 'publish_hz': 10}).start()
    yield s
    s.stop()


def require_ros2():
    """Skips a test of the real rclpy where it is not installed (the stand-in run), or fails it when it must be
    there: npm test runs this suite again in .venv-ros2 with VILS_REAL_ROS2=1."""
    import importlib.util

    if importlib.util.find_spec('rclpy') is not None:
        return
    if os.environ.get('VILS_REAL_ROS2') == '1':
        pytest.fail('VILS_REAL_ROS2=1 but rclpy is not importable: build .venv-ros2 (/usr/bin/python3 ros2/tools/ros2_venv.py)')
    pytest.skip('real rclpy not installed here (npm test runs these in .venv-ros2)')
