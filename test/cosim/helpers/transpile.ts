/**
 * Runs parts of src/ the way Node runs them in production (TypeScript's own emit, plain ESM, a fresh process):
 * transpiles the import closure of some entry files into a temporary folder under node_modules/.cache (so
 * package imports resolve), where a probe script can import them. Used where a test needs a real process
 * (signals) or V8 as production sees it (heap growth per tick).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../helpers/shared.js';

export interface Transpiled {
  dir: string;
  /** Writes a probe script (ESM) into the folder; returns its path. */
  probe(name: string, code: string): string;
  remove(): void;
}

function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = resolve(dirname(f), m[1]).replace(/\.js$/, '.ts');
      if (existsSync(target)) queue.push(target);
    }
    // the inference thread's worker is started from its file at run time
    if (f.endsWith(join('policy', 'inference-thread.ts'))) queue.push(join(dirname(f), 'inference-worker.ts'));
    // and so is the simulated egos' thread's (beside it, it needs no dist/)
    if (f.endsWith(join('session', 'sim-ego-thread.ts'))) queue.push(join(dirname(f), 'sim-ego-worker.ts'));
    // the comms templates are imported from their folder at run time
    if (f.endsWith(join('templates', 'registry.ts'))) for (const n of readdirSync(dirname(f))) if (n.endsWith('.ts')) queue.push(join(dirname(f), n));
  }
  return seen;
}

/** Transpiles the closure of `entries` (paths relative to the project root). */
export function transpile(entries: string[]): Transpiled {
  const cache = join(PROJECT_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'vils-cosim-test-'));
  for (const file of closure(entries.map((e) => join(PROJECT_ROOT, e)))) {
    if (!statSync(file).isFile()) continue;
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, useDefineForClassFields: true },
    }).outputText;
    const dest = join(dir, relative(PROJECT_ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, out);
  }
  return {
    dir,
    probe(name, code) {
      const p = join(dir, name);
      writeFileSync(p, code);
      return p;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
