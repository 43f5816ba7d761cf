/**
 * The command blocks of more pages under docs/ that start no server on port 8000 (harness.ts PAGES_SECOND: the
 * benchmarks, the map converter, the NPC pages), run beside test/docs/pages.test.ts so that neither is a long chain
 * alone. See test/docs/harness.ts. A page here must not also run in readme.test.ts: docs/ros2.md once was in both, and
 * its `vils serve --port 8000` met the README's server on the same port (EADDRINUSE).
 */
import { expect, it } from 'vitest';
import { PAGES_SECOND, PAGES_WITH_SERVERS, runPages } from './harness.js';

it('runs no page that starts a server on port 8000 (those run one after the other in readme.test.ts)', () => {
  expect(PAGES_SECOND.filter((p) => PAGES_WITH_SERVERS.includes(p))).toEqual([]);
});

runPages(PAGES_SECOND);
