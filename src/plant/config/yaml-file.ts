/**
 * Reads one YAML file into plain data. Duplicate mapping keys are an error naming the key and both lines,
 * unless `allowDuplicateKeys` is set: then the last value wins (PyYAML's behaviour) and a warning is returned.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, type Node, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import { ConfigError } from './errors.js';

export interface YamlReadOptions {
  allowDuplicateKeys?: boolean;
}

export interface YamlFile {
  path: string;
  data: unknown;
  warnings: string[];
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function findDuplicates(node: unknown, path: string, lc: LineCounter, out: { key: string; line: number; firstLine: number }[]): void {
  if (isMap(node)) {
    const seen = new Map<string, number>();
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const k = keyText(item.key);
      const range = (item.key as Node | null)?.range;
      const line = range ? lc.linePos(range[0]).line : 0;
      const full = path ? `${path}.${k}` : k;
      const first = seen.get(k);
      if (first !== undefined) out.push({ key: full, line, firstLine: first });
      else seen.set(k, line);
      findDuplicates(item.value, full, lc, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findDuplicates(item, `${path}[${i}]`, lc, out));
  }
}

/** Parses YAML text (`path` is used in messages only). */
export function parseYamlText(text: string, path: string, opts: YamlReadOptions = {}): YamlFile {
  const lc = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    throw new ConfigError(path, undefined, `YAML syntax error${pos ? ` at line ${pos.line}` : ''}: ${e.message.split('\n')[0]}`);
  }
  const dups: { key: string; line: number; firstLine: number }[] = [];
  findDuplicates(doc.contents, '', lc, dups);
  const warnings: string[] = [];
  if (dups.length > 0) {
    if (!opts.allowDuplicateKeys) {
      const d = dups[0];
      throw new ConfigError(path, d.key, `duplicate key at line ${d.line} (first defined at line ${d.firstLine}); remove one, or load with duplicate keys allowed (last value wins)`);
    }
    for (const d of dups) warnings.push(`${path}: key '${d.key}' appears twice (lines ${d.firstLine} and ${d.line}); the last value is used`);
  }
  return { path, data: doc.toJS({ maxAliasCount: 100 }) as unknown, warnings };
}

export function readYamlFile(path: string, opts: YamlReadOptions = {}): YamlFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(path, undefined, `cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseYamlText(text, path, opts);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
