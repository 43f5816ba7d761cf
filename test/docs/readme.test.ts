/**
 * The README's commands as a new user runs them on a fresh clone without ../shared (issue 27 item 1), and
 * the checks of every page as text. With the pages that start servers on port 8000 (they run one after the
 * other in this file; the other pages run in test/docs/pages.test.ts). See test/docs/harness.ts.
 */
import { checkPages, PAGES_WITH_SERVERS, runPages } from './harness.js';

checkPages();
runPages(PAGES_WITH_SERVERS);
