#!/usr/bin/env node
/**
 * npm test: makes sure of what the tests need beyond npm, then runs vitest (arguments are passed on, e.g.
 * `npm test -- --sequence.shuffle.files` or `npm test -- test/server`).
 *
 * Missing Debian packages (test/support/prerequisites.mjs lists them) are installed with apt-get when this runs
 * as root on Debian; otherwise the exact command is printed and the tests that need them skip with that reason,
 * or, with CI set, the run stops here: in CI a skip would hide a failure. VILS_TEST_NO_INSTALL=1 only checks.
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

let missing = missingNow();
const packages = [...new Set(missing.flatMap((m) => m.p.apt))];
if (packages.length > 0) {
  const command = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && process.env.VILS_TEST_NO_INSTALL !== '1';
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
