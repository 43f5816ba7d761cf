/** Where the installed project lives (package.json named "vils"), from dist/ or from the sources. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'vils') return dir;
      } catch {
        /* keep walking */
      }
    }
    dir = dirname(dir);
  }
  return process.cwd();
}
