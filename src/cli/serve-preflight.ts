/**
 * What `vils serve` checks before it loads anything (the model, the map's scene, the recorder): that its port can
 * be listened on, that its maps are there and that its record folder can be written. Loading takes seconds on a
 * quiet machine and over a minute on a busy one, and a start that failed after it left a recording behind: every
 * problem found here is said at once, and nothing has been written.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { missingMap } from '../map/map-files.js';

/** Why the server could not listen, in words a user can act on. */
export function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host}:${port}`;
  if (err.code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use (EADDRINUSE) — another VILS or another program is serving there; stop it, or choose another port with --port`;
  if (err.code === 'EACCES') return `cannot listen on ${where}: permission denied (EACCES) — ports below 1024 need privileges; choose --port 1024 or above`;
  if (err.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: this machine has no address ${host} (EADDRNOTAVAIL) — check --host`;
  return `cannot listen on ${where}: ${err.message}`;
}

/** Null when host:port can be listened on now (it is let go at once), else why not. Port 0 (any free one) always can. */
export function portProblem(host: string, port: number): Promise<string | null> {
  if (port === 0) return Promise.resolve(null);
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => done(listenFailure(err, host, port)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => done(null)));
  });
}

/** Null when recordings can be written into `dir` (made if missing, so its nearest existing folder must be writable). */
export function recordDirProblem(dir: string): string | null {
  const abs = resolve(dir);
  let existing = abs;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) return `cannot record into ${abs}: ${existing} is not a folder (--record-dir, or --no-record)`;
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch {
    return `cannot record into ${abs}: ${existing === abs ? 'the folder' : `${existing}, where it would be made,`} is not writable by this user (--record-dir, or --no-record)`;
  }
  return null;
}

export interface ServeStart {
  /** where the server will listen; the Foxglove port beside it when one is given */
  listens: Array<{ host: string; port: number; what: string }>;
  /** every map a scene will load, with the setting that named it */
  maps: Array<{ path: string; what: string }>;
  /** the record folder (absolute), or null with --no-record */
  recordDir: string | null;
}

/** Every problem with a start, in the order a user would fix them; [] when it can go ahead. */
export async function serveStartProblems(start: ServeStart): Promise<string[]> {
  const problems: string[] = [];
  for (const l of start.listens) {
    const p = await portProblem(l.host, l.port);
    if (p) problems.push(l.what === '--port' ? p : `${l.what}: ${p}`);
  }
  for (const m of start.maps) {
    const p = missingMap(m.path);
    if (p) problems.push(`${m.what}: ${p}`);
  }
  if (start.recordDir !== null) {
    const p = recordDirProblem(start.recordDir);
    if (p) problems.push(p);
  }
  return problems;
}
