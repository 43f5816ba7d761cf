/**
 * Which CPUs the server's threads run on (`vils serve --cpus auto|all|<list>`).
 *
 * A simulated ego's 1 kHz plant runs in a real-time thread of its own, but the stack it co-simulates with (an
 * Autoware bridge, a controller, a logger) is usually an ordinary process on the same machine: it wakes for every
 * STATE, and when every CPU is busy (the NPC step's few-millisecond bursts on one, anything else on another) the
 * kernel lets the running task finish its slice first, so the peer reads STATE late. With `auto`, a server whose
 * egos run in that thread on the real-time scheduler keeps all its threads (the NPC step, frames, the web and the
 * API, V8's helpers, the egos' thread) on one CPU, the last it may use, and leaves the others to its peers; the
 * egos' thread still preempts the NPC step on their shared CPU at once. On this 2-core machine the share of STATE
 * periods a plain listener sees more than 1 ms off falls from about 1 % to about 0.3 % (bench:serve-cosim).
 * Otherwise `auto` leaves the server where the operating system puts it. The choice is made here (pure);
 * `applyCpus` is the adapter (Linux: taskset from util-linux, every thread of the process; threads started later
 * inherit the CPUs of the thread that starts them).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type CpuSetting = 'auto' | 'all' | readonly number[];

/** The largest CPU number accepted in a list (Linux's NR_CPUS is at most 8192). */
const MAX_CPU = 8191;

/** Parses `auto`, `all` or a CPU list as taskset and /proc write it ("1", "0,2-3"); throws with the reason. */
export function parseCpuSetting(v: string | undefined): CpuSetting {
  if (v === undefined || v === 'auto') return 'auto';
  if (v === 'all') return 'all';
  return parseCpuList(v, '--cpus');
}

/** "0,2-3" → [0, 2, 3] (sorted, each once); throws naming `what` on anything else. */
export function parseCpuList(v: string, what = 'a CPU list'): number[] {
  const out = new Set<number>();
  const bad = () => new Error(`${what} must be auto, all or a list of CPU numbers such as 1 or 0,2-3, got ${JSON.stringify(v)}`);
  if (v.trim() === '') throw bad();
  for (const part of v.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw bad();
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a > b || b > MAX_CPU) throw bad();
    for (let c = a; c <= b; c++) out.add(c);
  }
  return [...out].sort((x, y) => x - y);
}

/** [0, 2, 3] → "0,2-3". */
export function formatCpuList(cpus: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length; ) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    parts.push(j === i ? String(cpus[i]) : `${cpus[i]}-${cpus[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The CPUs a process may run on, from its /proc/<pid>/status text (null: not stated). */
export function allowedCpus(statusText: string): number[] | null {
  const m = /^Cpus_allowed_list:\s*(\S+)\s*$/m.exec(statusText);
  return m ? parseCpuList(m[1]) : null;
}

export interface CpuChoice {
  /** the CPUs to keep every thread on, null: leave the process as it is */
  cpus: number[] | null;
  /** why, in words for the start-up line and GET /api/status */
  reason: string;
}

/**
 * What `setting` means for a process allowed on `allowed` whose simulated egos do (`egoThread`) or do not run in
 * their own real-time thread. A list naming a CPU the process may not use is refused, naming it.
 */
export function chooseCpus(setting: CpuSetting, allowed: readonly number[], egoThread: boolean): CpuChoice {
  if (setting === 'all') return { cpus: null, reason: 'all its CPUs (--cpus all)' };
  if (setting === 'auto') {
    if (!egoThread) return { cpus: null, reason: 'all its CPUs (no simulated egos in a real-time thread)' };
    if (allowed.length < 2) return { cpus: null, reason: 'all its CPUs (only one to run on)' };
    const last = allowed[allowed.length - 1];
    return { cpus: [last], reason: `CPU ${last}, leaving ${formatCpuList(allowed.slice(0, -1))} to the stacks it co-simulates with (--cpus auto; --cpus all opts out)` };
  }
  const outside = setting.filter((c) => !allowed.includes(c));
  if (outside.length > 0) throw new Error(`--cpus ${formatCpuList(setting)}: this process may only run on CPUs ${formatCpuList(allowed)}, not ${formatCpuList(outside)}`);
  return { cpus: [...setting], reason: `CPUs ${formatCpuList(setting)} (--cpus)` };
}

/** The CPUs a process's main thread may run on now (Linux), null where /proc does not say. */
export function processCpus(pid = process.pid): number[] | null {
  try {
    return allowedCpus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Keeps every thread of a process (by default this one) on `cpus`. Returns null when done, else why not (no
 * taskset, not permitted): the process then runs as it is.
 */
export function applyCpus(cpus: readonly number[], pid = process.pid): string | null {
  try {
    execFileSync('taskset', ['-a', '-c', '-p', formatCpuList(cpus), String(pid)], { stdio: 'pipe', timeout: 5000 });
    return null;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') return 'taskset (util-linux) is not installed';
    const why = e.stderr?.toString().trim().split('\n').pop();
    return why || e.message;
  }
}
