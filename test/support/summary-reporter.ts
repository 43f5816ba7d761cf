/**
 * A vitest reporter that ends a run with what the default one leaves unclear (issue 46 item 7):
 *
 * - a failure in a hook is a failure: vitest lists the tests of a suite whose beforeAll failed (a hook timeout on
 *   a loaded machine) as skipped; here each failed hook is named with its error and the tests it kept from running,
 *   and they count as failed;
 * - the skips, once each, by reason: a test's own note (`ctx.skip(note)`), the reason in its name (the docs tests'
 *   "— needs Docker"), or the reason the file gave when it was collected (test/helpers/prerequisites.ts noteSkip,
 *   written to VILS_SKIP_LOG), with how many tests and files each kept from running;
 * - a closing line "N passed, N failed, N skipped" alone on a line.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

interface SkipNote {
  file: string;
  reason: string;
}

/** Suites (and modules) whose own hooks failed, with the errors. */
function failedHooks(m: TestModule): Array<{ where: TestModule | TestSuite; errors: string[] }> {
  const out: Array<{ where: TestModule | TestSuite; errors: string[] }> = [];
  const visit = (s: TestModule | TestSuite) => {
    const errs = s.errors();
    if (errs.length) out.push({ where: s, errors: errs.map((e) => (e.message ?? String(e)).split('\n')[0]) });
    for (const child of s.children.suites()) visit(child);
  };
  visit(m);
  return out;
}

function under(t: TestCase, s: TestModule | TestSuite): boolean {
  for (let p: TestModule | TestSuite = t.parent; ; p = (p as TestSuite).parent) {
    if (p === s) return true;
    if (p.type === 'module') return false;
  }
}

export default class SummaryReporter implements Reporter {
  private readonly log = process.env.VILS_SKIP_LOG ?? '';

  onInit(): void {
    if (this.log) rmSync(this.log, { force: true });
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const notes: SkipNote[] = this.log && existsSync(this.log)
      ? readFileSync(this.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SkipNote)
      : [];
    if (this.log) rmSync(this.log, { force: true });
    let passed = 0;
    let failed = 0;
    const hookLines: string[] = [];
    const skips = new Map<string, { tests: number; files: Set<string> }>();
    for (const m of modules) {
      const file = m.relativeModuleId;
      const hooks = failedHooks(m);
      const notRun = new Set<TestCase>();
      for (const h of hooks) {
        const kept = [...h.where.children.allTests()].filter((t) => t.result().state !== 'passed' && t.result().state !== 'failed');
        for (const t of kept) notRun.add(t);
        failed += Math.max(1, kept.length);
        const name = h.where.type === 'module' ? file : `${file} > ${h.where.fullName}`;
        hookLines.push(`  FAIL ${name}: ${h.errors.join('; ')} — ${kept.length} test${kept.length === 1 ? '' : 's'} not run`);
      }
      const fileNotes = notes.filter((n) => relative(process.cwd(), n.file) === file || n.file === m.moduleId).map((n) => n.reason);
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state === 'passed') passed++;
        else if (r.state === 'failed') failed++;
        else if (!notRun.has(t) && !hooks.some((h) => under(t, h.where))) {
          const reason = (r.state === 'skipped' ? r.note : undefined) ?? / — ((?:needs|skip) .+)$/.exec(t.name)?.[1] ?? fileNotes[0] ?? `marked ${t.options.mode} in the file`;
          const e = skips.get(reason) ?? { tests: 0, files: new Set<string>() };
          e.tests++;
          e.files.add(file);
          skips.set(reason, e);
        }
      }
    }
    const lines: string[] = [];
    if (hookLines.length) lines.push('', 'Failed in a hook (the tests it kept from running count as failed):', ...hookLines);
    const skipped = [...skips.values()].reduce((a, e) => a + e.tests, 0);
    if (skips.size) {
      lines.push('', 'Skipped, by reason:');
      for (const [reason, e] of [...skips].sort((a, b) => b[1].tests - a[1].tests)) {
        lines.push(`  ${e.tests} test${e.tests === 1 ? '' : 's'} in ${e.files.size} file${e.files.size === 1 ? '' : 's'}: ${reason}`);
      }
    }
    lines.push('', `${passed} passed, ${failed} failed, ${skipped} skipped`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
