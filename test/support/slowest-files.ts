/** A vitest reporter that lists the ten slowest test files after each run (import, collection and tests). */
import type { Reporter, TestModule } from 'vitest/node';

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, s: (d.collectDuration + d.duration + d.setupDuration + d.prepareDuration) / 1000 };
      })
      .sort((a, b) => b.s - a.s)
      .slice(0, 10);
    if (rows.length === 0) return;
    const lines = rows.map((r) => `  ${r.s.toFixed(1).padStart(6)} s  ${r.file}`);
    process.stdout.write(`\nThe ten slowest test files:\n${lines.join('\n')}\n`);
  }
}
