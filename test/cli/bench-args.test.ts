/** The benchmarks' flags (bench/args.ts): --help prints the benchmark's own header and its flags; a bad flag is refused with the reason, exit 2, no stack trace. */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { benchArgs } from '../../bench/args.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const ENGINE = pathToFileURL(join(PROJECT_ROOT, 'bench', 'engine.ts')).href;
const options = { json: { type: 'boolean' as const }, steps: { type: 'string' as const } };

function run(argv: string[]): { code: number | null; out: string; err: string; values?: Record<string, unknown> } {
  const saved = process.argv;
  const out: string[] = [], err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
  vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
  vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
    throw Object.assign(new Error('exit'), { code });
  }) as never);
  process.argv = [saved[0], 'bench', ...argv];
  try {
    const { values } = benchArgs(ENGINE, { options });
    return { code: null, out: out.join('\n'), err: err.join('\n'), values };
  } catch (e) {
    return { code: (e as { code: number }).code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.argv = saved;
  }
}

describe('benchmark flags', () => {
  afterEach(() => vi.restoreAllMocks());

  it('parses the flags it knows', () => {
    expect(run(['--json', '--steps', '30']).values).toEqual({ json: true, steps: '30' });
  });

  it('--help prints the benchmark\'s header and its flags, exit 0', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Engine benchmark: `npm run bench:engine/);
    expect(r.out).toMatch(/flags: --json --steps <value>$/);
  });

  it('an unknown flag: the reason and the flags it takes, exit 2', () => {
    const r = run(['--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^Unknown option '--bogus'/);
    expect(r.err).toMatch(/flags: --json --steps <value> \(--help says what each does\)/);
    expect(r.err).not.toMatch(/at .*\.js:\d+/);
  });
});
