/**
 * How a long-running `vils` command (`vils serve`, `npm start`) stops: on SIGINT (Ctrl-C), SIGTERM and SIGHUP
 * (the terminal closed), and when the process that started it goes away, each with a log line saying why.
 *
 * Why a parent watch: `npm start` runs the server as npm → `sh -c "node dist/src/cli/vils.js start"` → node
 * (dash does not exec the command). `kill <npm pid>` makes npm forward SIGTERM to the shell only, which dies and
 * leaves the server running as an orphan, holding its port; `kill -9 <npm pid>` leaves both the shell and the
 * server. Nothing reaches the server through its stdio either: npm gives it the terminal (stdin never ends when
 * npm dies) and no IPC channel. So the server polls its ancestry instead: its own parent (`process.ppid`
 * changing means the parent exited, which is immune to pid reuse and zombies) and, when the parent is the
 * shell an npm script runs in (npm_lifecycle_event set, Linux /proc), the npm process above it. A process
 * started by init or a container runtime (parent pid 0 or 1, systemd, `docker run`) has nothing to follow.
 * VILS_PARENT_WATCH=off turns the watch off (e.g. `setsid nohup node dist/src/cli/vils.js start &` from a script
 * that exits).
 */
import { readFileSync } from 'node:fs';

export interface StopLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface StopOptions {
  log: StopLog;
  /** closes what the command started (the server); bounded by `graceMs` */
  close: () => Promise<void>;
  /** at most this long for `close` before exiting anyway (a client that never answers the close handshake) */
  graceMs?: number;
  /** how often the ancestry is checked */
  pollMs?: number;
  env?: NodeJS.ProcessEnv;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh', 'mksh', 'busybox']);

/** `/proc/<pid>/stat` split after the command name (which may hold spaces and parentheses), or null. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function procName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Whether a process is still running (an exited one waiting to be reaped, a zombie, is not). */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  if (stat) return stat[0] !== 'Z' && stat[0] !== 'X';
  if (process.platform === 'linux') return false; // no /proc entry: gone
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The processes whose exit stops the server, nearest first: the parent, and the npm (or other package manager)
 * process above the `sh -c` it runs scripts in. Empty when started by init or a container runtime.
 */
export function watchedAncestors(env: NodeJS.ProcessEnv = process.env): number[] {
  const parent = process.ppid;
  if (!(parent > 1)) return [];
  const pids = [parent];
  if (env.npm_lifecycle_event !== undefined && SHELLS.has(procName(parent) ?? '')) {
    const grand = Number(procStat(parent)?.[1]);
    if (grand > 1) pids.push(grand);
  }
  return pids;
}

/**
 * Installs the signal handlers and the parent watch. The first reason logs `<reason>: stopping`, closes and
 * exits 0; a second signal while closing exits at once (1).
 */
export function stopWithParent(opts: StopOptions): void {
  const { log, close, graceMs = 2000, pollMs = 500, env = process.env } = opts;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = (reason: string) => {
    if (stopping) {
      log.warn(`${reason} while stopping: exiting now`);
      process.exit(1);
    }
    stopping = true;
    clearInterval(timer);
    log.info(`${reason}: stopping`);
    setTimeout(() => {
      log.warn(`not closed within ${graceMs} ms: exiting anyway`);
      process.exit(0);
    }, graceMs).unref();
    close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error(`closing failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  for (const sig of SIGNALS) process.on(sig, () => stop(`received ${sig}`));

  const off = /^(0|off|false|no)$/i.test(env.VILS_PARENT_WATCH ?? '');
  const watched = off ? [] : watchedAncestors(env);
  const parent = watched[0];
  if (parent === undefined) return;
  let noticed = false;
  timer = setInterval(() => {
    if (stopping || noticed) return;
    if (process.ppid === parent && watched.every(isAlive)) return;
    noticed = true;
    // npm dies a moment after the shell it forwarded SIGTERM to: name the farthest ancestor gone once it had time to
    setTimeout(() => {
      const gone = [...watched].reverse().find((pid) => !isAlive(pid)) ?? parent;
      stop(`parent process ${gone} exited`);
    }, Math.min(pollMs, 300)).unref();
  }, pollMs);
  timer.unref();
}
