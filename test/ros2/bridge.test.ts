// The ROS 2 bridge's Python modules (ros2/vils_bridge) under pytest, against a live `vils serve` that its
// conftest starts, twice: with Debian's python3 (rclpy and the message packages replaced by stand-ins), and in the
// project's own ROS 2 (.venv-ros2: PyPI's Jazzy wheels, and the message packages PyPI lacks built by rosidl),
// where the bridge runs as its own process and a second real node checks every message it receives over DDS.
// The 5-minute soak and the 60 s load run are not part of `npm test` (see docs/ros2.md).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { PYTHON, ROS2_PYTHON } from '../support/prerequisites.mjs';

function pytest(python: string, extraEnv: NodeJS.ProcessEnv): { status: number | null; stdout: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, VILS_SOAK: '0', VILS_LOAD: '0', ...extraEnv };
  delete env.CI; // the soak runs on request only
  const r = spawnSync(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rs', join('ros2', 'vils_bridge', 'test')], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) console.error(r.stdout, r.stderr);
  return { status: r.status, stdout: r.stdout ?? '' };
}

describe.skipIf(!have('python'))('the ROS 2 bridge (pytest, stand-ins for rclpy)', () => {
  it('passes its pytest suite against a live server', () => {
    const r = pytest(PYTHON, {});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\d+ passed/);
  }, 300_000);
});

describe.skipIf(!have('ros2'))('the ROS 2 bridge (pytest, real rclpy and DDS in .venv-ros2)', () => {
  it('passes the same suite and the real-ROS tests, none of them skipped for want of rclpy', () => {
    const r = pytest(ROS2_PYTHON, { VILS_REAL_ROS2: '1' });
    expect(r.status).toBe(0);
    const passed = Number(/(\d+) passed/.exec(r.stdout)?.[1] ?? 0);
    expect(passed).toBeGreaterThan(60); // the stand-in suite and every definition and DDS test
    expect(r.stdout).not.toMatch(/real rclpy not installed/);
  }, 300_000);
});
