/**
 * The benchmarks' command lines: node's parseArgs, with `--help` printing the benchmark's own header comment
 * (what it measures, its flags) and an unknown or malformed flag refused with the reason and the flags it takes,
 * instead of a stack trace.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs over process.argv for the benchmark whose module URL is `moduleUrl`. */
export function benchArgs<O extends Options>(moduleUrl: string, config: { options: O; allowPositionals?: boolean }) {
  const argv = process.argv.slice(2);
  const flags = Object.entries(config.options).map(([k, o]) => `--${k}${o.type === 'string' ? ' <value>' : ''}`).join(' ');
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${header(moduleUrl)}\n\nflags: ${flags}`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options: config.options, allowPositionals: config.allowPositionals ?? false, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message.split('\n')[0]}\nflags: ${flags} (--help says what each does)`);
    process.exit(2);
  }
}

/** The first doc comment of the benchmark's file, as text. */
function header(moduleUrl: string): string {
  try {
    const src = readFileSync(fileURLToPath(moduleUrl), 'utf8');
    const m = /\/\*\*([\s\S]*?)\*\//.exec(src);
    if (m) return m[1].split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim();
  } catch {
    // (the source is not beside it)
  }
  return fileURLToPath(moduleUrl);
}
