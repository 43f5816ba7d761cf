#!/usr/bin/env node
/**
 * npm test: makes sure of what the tests need beyond npm, then runs vitest (arguments are passed on, e.g.
 * `npm test -- --sequence.shuffle.files` or `npm test -- test/server`).
 *
 * Missing Debian packages (test/support/prerequisites.mjs lists them) are installed with apt-get when this runs
 * as root on Debian; a prerequisite made by a command of the project's own (the ROS 2 environment, .venv-ros2:
 * PyPI's wheels) is then made with that command. Otherwise the exact command is printed and the tests that need
 * it skip with that reason, or, with CI set, the run stops here: in CI a skip would hide a failure.
 * VILS_TEST_NO_INSTALL=1 only checks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PREREQUISITES, PROJECT_ROOT } from './support/prerequisites.mjs';

const log = (line) => console.log(`[npm test] ${line}`);
const ci = Boolean(process.env.CI);

function missingNow() {
  return PREREQUISITES.map((p) => ({ p, why: p.check() })).filter((m) => m.why !== null);
}

/** the Debian packages of a list that are not installed (all of them where there is no dpkg) */
function notInstalled(names) {
  if (names.length === 0) return [];
  const q = spawnSync('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Status}\\n', ...names], { encoding: 'utf8' });
  const installed = new Set((q.stdout ?? '').split('\n').filter((l) => l.endsWith(' installed')).map((l) => l.split(' ')[0].split(':')[0]));
  return names.filter((n) => !installed.has(n));
}

const noInstall = process.env.VILS_TEST_NO_INSTALL === '1';
let missing = missingNow();
const packages = notInstalled([...new Set(missing.flatMap((m) => m.p.apt))]);
if (packages.length > 0) {
  const command = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && !noInstall;
  for (const m of missing.filter((x) => x.p.apt.length > 0)) log(`missing for ${m.p.used}: ${m.why}`);
  if (canInstall) {
    log(`installing Debian's ${packages.join(' ')}: ${command}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', ...packages], { stdio: 'inherit', env }) : update;
    if (install.status !== 0) log(`apt-get failed (exit ${install.status}); run it yourself: ${command}`);
    missing = missingNow();
  } else {
    log(`to install them, run as root: ${command}`);
  }
}
// made by a command of the project's own once its Debian packages are there (a missing one says so itself)
for (const m of missing.filter((x) => x.p.install)) {
  if (noInstall) {
    log(`missing for ${m.p.used}: ${m.why}`);
    continue;
  }
  log(`making the ${m.p.key} prerequisite (for ${m.p.used}): ${m.p.install}`);
  const made = spawnSync(m.p.install, { shell: true, stdio: 'inherit', cwd: PROJECT_ROOT });
  if (made.status !== 0) log(`${m.p.install} failed (exit ${made.status})`);
}
missing = missingNow();
for (const m of missing) {
  log(`${ci ? 'MISSING' : 'skipping'} ${m.p.used}: ${m.why}`);
}
if (ci && missing.length > 0) {
  log(`CI is set: every test must run, so this run stops (${missing.map((m) => m.p.key).join(', ')} missing)`);
  process.exit(1);
}

const vitest = join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: PROJECT_ROOT, stdio: 'inherit' });
process.exit(run.status ?? 1);
