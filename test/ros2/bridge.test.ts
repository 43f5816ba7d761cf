// The ROS 2 bridge's Python modules (ros2/vils_bridge) under pytest, against a live `vils serve` that its
// conftest starts. ROS 2 itself is not needed: the tests cover the conversion and the client. The 5-minute
// soak is not part of `npm test` (run it with VILS_SOAK=1, see docs/ros2.md).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { PYTHON } from '../support/prerequisites.mjs';

const ready = have('python');

describe.skipIf(!ready)('the ROS 2 bridge (pytest)', () => {
  it('passes its pytest suite against a live server', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, VILS_SOAK: '0' };
    delete env.CI; // the soak runs on request only
    const r = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join('ros2', 'vils_bridge', 'test')], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 240_000 });
    if (r.status !== 0) console.error(r.stdout, r.stderr);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\d+ passed/);
  }, 300_000);
});
