/**
 * The fenced blocks of the README and the pages under docs/, with what the docs tests (test/docs/readme.test.ts, pages.test.ts) do with
 * each `sh` block. The instruction is an HTML comment right before the fence (invisible on GitHub):
 *
 *   (none)                          run the block in bash (set -e): every line must succeed
 *   <!-- doc-test: exits N (why) --> run it; it must exit with status N
 *   <!-- doc-test: server -->       a `vils serve`/`npm start` that keeps running: wait until its /api/health
 *                                   answers (the port from --port, else 8000); the blocks after it talk to it
 *   <!-- doc-test: background "text" -->  a process that keeps running: wait until its output has the text
 *   <!-- doc-test: briefly S -->    each line must still be running, or have exited 0, after S seconds (a
 *                                   benchmark or an endless client: started, not waited for)
 *   <!-- doc-test: suite (why) -->  `npm test` / `.ci/run` themselves: checked to be what .ci/run runs, not run
 *   <!-- doc-test: skip needs ../shared|ROS 2|Docker (why) -->  skipped, saying so
 *
 * and, alone on a line, `<!-- doc-test: stop-server -->` stops what a server or background block started (as
 * Ctrl-C does), as does the next server or background block and the end of the page.
 */
export type Mode =
  | { kind: 'run' }
  | { kind: 'exits'; status: number }
  | { kind: 'server' }
  | { kind: 'background'; ready: string }
  | { kind: 'briefly'; seconds: number }
  | { kind: 'suite' }
  | { kind: 'skip'; reason: string };

export type DocStep =
  | { type: 'block'; file: string; line: number; lang: string; body: string; mode: Mode }
  | { type: 'stop'; file: string; line: number };

const SKIP_REASONS = /^needs (\.\.\/shared|ROS 2|Docker)\b/;

export function parseMode(text: string | undefined): Mode {
  if (text === undefined) return { kind: 'run' };
  const t = text.trim();
  let m: RegExpMatchArray | null;
  if ((m = t.match(/^exits (\d+)\b/))) return { kind: 'exits', status: Number(m[1]) };
  if (/^server\b/.test(t)) return { kind: 'server' };
  if ((m = t.match(/^background "([^"]+)"/))) return { kind: 'background', ready: m[1] };
  if ((m = t.match(/^briefly (\d+(?:\.\d+)?)\b/))) return { kind: 'briefly', seconds: Number(m[1]) };
  if (/^suite\b/.test(t)) return { kind: 'suite' };
  if ((m = t.match(/^skip (.+)$/))) {
    if (!SKIP_REASONS.test(m[1])) throw new Error(`a skipped block must say "needs ../shared", "needs ROS 2" or "needs Docker", not "${m[1]}"`);
    return { kind: 'skip', reason: m[1] };
  }
  throw new Error(`unknown doc-test instruction "${t}"`);
}

/** Every fenced block and stop marker of one Markdown file, in order. Throws on a fence without a language. */
export function parseDoc(file: string, text: string): DocStep[] {
  const lines = text.split('\n');
  const steps: DocStep[] = [];
  let pending: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = line.match(/^\s*<!-- doc-test: (.*?) -->\s*$/);
    if (marker) {
      if (marker[1].trim() === 'stop-server') steps.push({ type: 'stop', file, line: i + 1 });
      else pending = marker[1];
      continue;
    }
    const fence = line.match(/^(\s*)```(\S*)\s*$/);
    if (!fence) {
      if (line.trim() !== '') pending = undefined;
      continue;
    }
    const indent = fence[1].length;
    const lang = fence[2];
    if (lang === '') throw new Error(`${file}:${i + 1}: a fenced block without a language (sh for commands; text, yaml, json … otherwise)`);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) body.push(lines[j++].slice(indent));
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: a fenced block that is never closed`);
    let mode: Mode;
    try {
      mode = lang === 'sh' ? parseMode(pending) : { kind: 'run' };
    } catch (e) {
      throw new Error(`${file}:${i + 1}: ${(e as Error).message}`);
    }
    if (pending !== undefined && lang !== 'sh') throw new Error(`${file}:${i + 1}: a doc-test instruction before a ${lang} block (only sh blocks are run)`);
    steps.push({ type: 'block', file, line: i + 1, lang, body: body.join('\n'), mode });
    pending = undefined;
    i = j;
  }
  return steps;
}

/** The port a server command listens on: its --port, else 8000 (vils serve's default). */
export function serverPort(command: string): number {
  const m = command.match(/--port[= ](\d+)/);
  return m ? Number(m[1]) : 8000;
}
