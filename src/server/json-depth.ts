/**
 * How deeply a JSON text nests arrays and objects, read from the text before it is parsed (issue 26, item 5): a
 * REST body of 10,000 nested arrays parsed fine (V8's JSON.parse does not recurse) but then overflowed the stack
 * of everything that walks it recursively — the recorder's JSON.stringify among them, so the command went missing
 * from the recording while the scene had answered it. Such a body is refused at the edge instead (HTTP 400,
 * naming the limit), before any route, the scene or the recorder sees a parsed value; the refusal is recorded
 * like any other.
 */

/** The deepest nesting of arrays and objects a request body may have (the deepest real body, a signal plan, nests 4). */
export const MAX_BODY_DEPTH = 32;

/**
 * The nesting depth of arrays and objects in a JSON text, counted up to `limit + 1` (it stops reading there).
 * Brackets inside strings do not count; a text that is not JSON gets some number, and the parser says what is
 * wrong with it.
 */
export function jsonNesting(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return deepest;
}

/** Why a JSON body is refused for its nesting, or null when it is not. */
export function bodyDepthRefusal(text: string, limit = MAX_BODY_DEPTH): string | null {
  const depth = jsonNesting(text, limit);
  return depth > limit ? `body: arrays and objects nested more than ${limit} levels deep (at most ${limit}); refused unread` : null;
}
