/**
 * A minimal well-formedness check for the generated SVG (the repository has no XML parser and the tests add no
 * dependency): every tag is a plain name with double-quoted attributes, tags nest and close in order under one
 * root, and text and attribute values hold no raw `<` and only the five XML entities or character references.
 * Returns '' when well-formed, else what is wrong and where.
 */
const TAG = /^<(\/?)([A-Za-z][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/?)>$/;
const BAD_AMP = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

export function wellFormedXml(doc: string): string {
  const s = doc.replace(/^<\?xml[^>]*\?>\s*/, '').trim();
  const stack: string[] = [];
  let roots = 0;
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    const text = s.slice(i, lt < 0 ? s.length : lt);
    if (BAD_AMP.test(text)) return `bad & in text at ${i}: ${text.slice(0, 40)}`;
    if (text.trim() && stack.length === 0) return `text outside the root at ${i}`;
    if (lt < 0) break;
    const gt = s.indexOf('>', lt);
    if (gt < 0) return `unclosed tag at ${lt}`;
    const tag = s.slice(lt, gt + 1);
    const m = TAG.exec(tag);
    if (!m) return `malformed tag at ${lt}: ${tag.slice(0, 60)}`;
    if (BAD_AMP.test(m[3])) return `bad & in attributes at ${lt}`;
    const [, close, name, , selfClose] = m;
    if (close) {
      if (selfClose || m[3]) return `malformed end tag at ${lt}`;
      const open = stack.pop();
      if (open !== name) return `</${name}> at ${lt} closes <${open ?? 'nothing'}>`;
    } else {
      if (stack.length === 0 && ++roots > 1) return `a second root element at ${lt}`;
      if (!selfClose) stack.push(name);
    }
    i = gt + 1;
  }
  if (stack.length) return `unclosed <${stack.join('> <')}>`;
  return roots === 1 ? '' : 'no root element';
}
