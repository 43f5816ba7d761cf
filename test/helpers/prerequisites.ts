/**
 * Whether a test file may use Chromium, redis-server, python3's modules or ../shared. Missing, its tests skip
 * with the reason printed; with CI set the file fails with that reason instead: in CI a skip would hide a
 * failure. The table of what is checked and which Debian packages provide it is test/support/prerequisites.mjs
 * (npm test installs what it can from it before vitest starts).
 */
import { appendFileSync } from 'node:fs';
import { expect } from 'vitest';
import { PREREQUISITES, type Prerequisite } from '../support/prerequisites.mjs';

const known = new Map<Prerequisite['key'], string | null>();

export class MissingPrerequisite extends Error {}

/** true when `key` is present; else false after a warning, or (CI set) throws why it is missing */
export function have(key: Prerequisite['key']): boolean {
  const p = PREREQUISITES.find((q) => q.key === key)!;
  if (!known.has(key)) known.set(key, p.check());
  const missing = known.get(key);
  if (missing === null) return true;
  const apt = p.apt.length > 0 ? `install Debian's ${p.apt.join(' ')} (npm test does so when run as root)` : '';
  const fix = [apt, p.install ? `then run ${p.install} (npm test does)` : ''].filter(Boolean).join(', ') || 'it cannot be installed from a package';
  const msg = `${missing}: ${p.used} need it; ${fix}`;
  if (process.env.CI) throw new MissingPrerequisite(`CI is set, so this is a failure, not a skip: ${msg}`);
  noteSkip(`${key} missing: ${msg}`);
  return false;
}

/**
 * A reason for tests of the file being collected to skip, for the run's summary (test/support/summary-reporter.ts
 * says each reason once at the end, with how many tests and files it kept from running; it used to be one warning
 * per file, ~30 times). Without the reporter's log (a file run some other way) it is a warning, as before.
 */
export function noteSkip(reason: string): void {
  const log = process.env.VILS_SKIP_LOG;
  const file = expect.getState().testPath ?? '';
  if (log) appendFileSync(log, `${JSON.stringify({ file, reason })}\n`);
  else console.warn(`[vils tests] SKIPPED: ${reason}`);
}
