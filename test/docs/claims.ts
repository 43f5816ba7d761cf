/**
 * What the pages claim beyond their command blocks (issue 46 item 5), read as text so the docs tests can hold the
 * code to it: the JSON bodies a reader copies from prose (`PUT /api/signals/J1 {…}`, a message `{"type": …}`) and
 * from `curl -d '…'`, the web map's keys as docs/web-map.md's table lists them against the keys the page handles
 * (src/web/input.ts) and its help overlay (src/web/index.html), and development.md's source layout against src/.
 */

/** The prose of a page: its fenced blocks left out (their lines blanked, so line numbers still count). */
export function prose(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((l) => {
      if (/^\s*```/.test(l)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : l;
    })
    .join('\n');
}

/** Every inline code span of the prose, with its line: spans may run over a line break, as Markdown lets them. */
export function inlineCode(text: string): Array<{ code: string; line: number }> {
  const p = prose(text);
  const out: Array<{ code: string; line: number }> = [];
  for (const m of p.matchAll(/`([^`]+)`/g)) out.push({ code: m[1].replace(/\s*\n\s*/g, ' '), line: p.slice(0, m.index).split('\n').length });
  return out;
}

/**
 * A written-out body to copy, not a sketch of one: sketches say so with … or ... or a printf format, or list the
 * fields without values (`{"veh", "t", x, …}`).
 */
const sketched = (s: string) => /…|\.\.\.|%[.\d]*[a-z]/.test(s) || /^\{"[^"]*",/.test(s);

/**
 * JSON a reader would copy from the prose: a request written as `METHOD /path {body}` and a span that starts as a
 * JSON object does (`{"`); each with what it is said to be.
 */
export function proseJson(text: string): Array<{ json: string; line: number; what: string }> {
  const out: Array<{ json: string; line: number; what: string }> = [];
  for (const { code, line } of inlineCode(text)) {
    const req = /^(GET|POST|PUT|PATCH|DELETE) (\/\S+) (\{.*\})$/.exec(code);
    if (req) out.push({ json: req[3], line, what: `${req[1]} ${req[2]}'s body` });
    else if (code.startsWith('{"') && !sketched(code)) out.push({ json: code, line, what: 'a JSON object' });
  }
  return out;
}

/** The JSON bodies of curl commands (`-d '…'` / `--data '…'` with a JSON content type) in a shell block. */
export function curlBodies(body: string): string[] {
  const out: string[] = [];
  for (const cmd of body.split('\n')) {
    if (!/\bcurl\b/.test(cmd) || !/content-type: application\/json/i.test(cmd)) continue;
    for (const m of cmd.matchAll(/(?:-d|--data(?:-raw)?) '([^']*)'/g)) out.push(m[1]);
  }
  return out;
}

/** A key as the page's handler sees it (KeyboardEvent.key): letters upper-case, the docs' names made keys. */
export function keyName(k: string): string {
  const names: Record<string, string> = { Space: ' ', Del: 'Delete', Esc: 'Escape', '−': '-' };
  return names[k] ?? (k.length === 1 ? k.toUpperCase() : k);
}

/** The keys of docs/web-map.md's key table (its first column's code spans). */
export function documentedKeys(webMapMd: string): string[] {
  const keys: string[] = [];
  for (const row of webMapMd.split('\n').filter((l) => /^\| `/.test(l))) {
    const first = row.split('|')[1];
    for (const m of first.matchAll(/`([^`]+)`/g)) keys.push(keyName(m[1]));
  }
  return keys;
}

/** Aliases the page takes for another key: shown once, under the key they stand for. */
const ALIASES: Record<string, string> = { '?': 'H', '=': '+', _: '-', Backspace: 'Delete' };

/** The keys the page handles (src/web/input.ts's key switch), aliases folded into their key. */
export function handledKeys(inputTs: string): string[] {
  const body = inputTs.slice(inputTs.indexOf('switch (k)'), inputTs.indexOf('default:', inputTs.indexOf('switch (k)')));
  const keys = [...body.matchAll(/case '([^']+)':/g)].map((m) => keyName(m[1])).map((k) => ALIASES[k] ?? k);
  return [...new Set(keys)];
}

/** The keys of the help overlay (index.html's <kbd> in the #help table). */
export function helpKeys(indexHtml: string): string[] {
  const help = indexHtml.slice(indexHtml.indexOf('<div id="help"'), indexHtml.indexOf('</div>', indexHtml.indexOf('<div id="help"')));
  return [...new Set([...help.matchAll(/<kbd>([^<]+)<\/kbd>/g)].map((m) => keyName(m[1])))];
}

/** The src/ folders development.md's layout names (`src/x/` at the start of a line of its text block). */
export function layoutFolders(developmentMd: string): string[] {
  const block = developmentMd.slice(developmentMd.indexOf('## Layout'));
  return [...block.matchAll(/^src\/([a-z0-9/-]+)\/\s/gm)].map((m) => m[1]);
}
