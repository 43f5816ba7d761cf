/**
 * Writes a file a user named on the command line (`--out`, `--plot`, `--trace`), making its folder first: a
 * user who asks for `results/plot.svg` on a fresh clone expects the file, not ENOENT for a folder nobody made.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeOutputFile(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}
