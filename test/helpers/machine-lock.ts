/**
 * A lock on something this machine has one of (a Chromium to draw with, the VDS1 default ports 7001/7002), held
 * by one test process at a time across every test file, and across every checkout on the machine that uses the
 * same name: a directory in the temporary folder with the holder's pid. A lock left by a dead process is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function machineLock(name: string, timeoutMs: number): Promise<() => void> {
  const lock = join(tmpdir(), `${name}.lock`);
  const t0 = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch {
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being created or removed */
      }
      let alive = true;
      if (Number.isInteger(owner)) {
        try {
          process.kill(owner, 0);
        } catch {
          alive = false;
        }
      }
      if (!alive) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - t0 > timeoutMs) throw new Error(`another test (pid ${owner}) held ${lock} for ${timeoutMs / 1000} s`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
}
