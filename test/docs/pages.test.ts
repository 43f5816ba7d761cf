/**
 * The command blocks of the pages under docs/ that start no server on port 8000, as a new user runs them on a
 * fresh clone without ../shared (issue 27 item 1); test/docs/readme.test.ts runs the rest. A page added to
 * docs/ is run here unless readme.test.ts or pages-2.test.ts names it. See test/docs/harness.ts.
 */
import { PAGES, PAGES_SECOND, PAGES_WITH_SERVERS, runPages } from './harness.js';

runPages(PAGES.filter((p) => !PAGES_WITH_SERVERS.includes(p) && !PAGES_SECOND.includes(p)));
