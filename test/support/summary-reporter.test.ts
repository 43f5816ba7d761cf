/**
 * The run's summary (test/support/summary-reporter.ts, issue 46 item 7), on fixture files run by vitest itself: a
 * failed beforeAll is a failure with its tests not run (vitest lists them as skipped), each skip reason is said
 * once with its counts (it was said once per file), and the run closes on "N passed, N failed, N skipped".
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';

describe('the summary at the end of a run', () => {
  it('names a failed hook as a failure, says each skip reason once, and closes on the counts', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', VILS_SKIP_LOG: join(tmpdir(), `vils-fixture-skips-${process.pid}.jsonl`) };
    delete env.CI;
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(PROJECT_ROOT, 'test', 'support', 'fixtures', 'vitest.fixture.config.ts')], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 120_000 });
    const out = r.stdout + r.stderr;
    expect(r.status, out).toBe(1);
    expect(out).toContain('Failed in a hook (the tests it kept from running count as failed):');
    expect(out).toMatch(/ {2}FAIL test\/support\/fixtures\/hook\.fixture\.ts > a suite with a slow hook: Hook timed out in 50ms\. — 2 tests not run/);
    expect(out).toContain('Skipped, by reason:');
    expect(out.match(/shared missing: \.\.\/shared not found/g), out).toHaveLength(1);
    expect(out).toContain('  2 tests in 2 files: shared missing: ../shared not found (the fixture says so)');
    expect(out).toContain('  2 tests in 2 files: a note of its own');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed, 4 skipped');
  }, 120_000);
});
