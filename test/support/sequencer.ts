/**
 * The order the suite's files start in (vitest.config.ts `sequence.sequencer`). vitest starts the files it has
 * timed before slowest first, from its cache — which a fresh clone (CI) does not have: there the docs tests, each
 * a chain of commands over two to three minutes, could start last and hold the run up alone at its end (a quiet
 * fresh clone took 776 s where a warm one took about 500). So the longest files go first whatever the cache says,
 * and the browser files, which take turns at one Chromium (test/web/browser.ts browserLock), are spaced out
 * between them so that a worker seldom waits for the lock. `--sequence.shuffle.files` still shuffles.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** longest first (the run's "ten slowest" list), a browser file after every few */
const FIRST = [
  'test/docs/readme.test.ts',
  'test/docs/pages.test.ts',
  'test/docs/pages-2.test.ts',
  'test/scenario/demo-lap.test.ts',
  'test/web/web-map.browser.test.ts',
  'test/scene/ego-scenarios-kcity.test.ts',
  'test/cli/process-hygiene.test.ts',
  'test/scenario/bounded-memory.test.ts',
  'test/web/story-panel.test.ts',
  'test/policy/inference-thread.test.ts',
  'test/server/stream.test.ts',
  'test/scenario/queue-hints.test.ts',
  'test/web/signals.browser.test.ts',
  'test/cli/serve.test.ts',
  'test/ros2/bridge.test.ts',
  'test/server/serve-scenario-autopilot.test.ts',
  'test/web/kcity.browser.test.ts',
  'test/scenario/batch.test.ts',
  'test/server/serve-scenario.test.ts',
  'test/web/token.browser.test.ts',
  'test/scene/ego-scenarios.test.ts',
  'test/record/sigkill-recording.test.ts',
  'test/web/time-panel.browser.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cached = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = FIRST.findIndex((p) => f.moduleId.endsWith(p));
      return i < 0 ? FIRST.length : i;
    };
    // a stable sort: the files not listed keep vitest's order (slowest first where it has timed them)
    return [...cached].sort((a, b) => rank(a) - rank(b));
  }
}
