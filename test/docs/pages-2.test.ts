/**
 * The command blocks of more pages under docs/ that start no server on port 8000 (harness.ts PAGES_SECOND: the
 * benchmarks, the ROS 2 bridge's tests, the map converter), run beside test/docs/pages.test.ts so that neither is
 * a long chain alone. See test/docs/harness.ts.
 */
import { PAGES_SECOND, runPages } from './harness.js';

runPages(PAGES_SECOND);
