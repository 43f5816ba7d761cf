/** `vils serve` as a child process for the benchmarks: started on a free port, stopped cleanly. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../src/util/project-root.js';

/** Starts `vils serve --port 0 --host 127.0.0.1 <args>`; resolves with its base URL once it says it is ready. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 30000, cpus?: string): Promise<{ child: ChildProcess; base: string }> {
  // VILS_BENCH_NODE_ARGS adds node options to the server's command (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
  const command = [process.execPath, ...(process.env.VILS_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), join(projectRoot(), 'dist', 'src', 'cli', 'vils.js'), 'serve', '--port', '0', '--host', '127.0.0.1', ...args];
  // `cpus`: run it pinned to those CPUs (taskset -c)
  const child = cpus === undefined
    ? spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env })
    : spawn('taskset', ['-c', cpus, ...command], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const base: string = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /VILS ready in [0-9.]+ s on (http:\/\/[0-9.]+:[0-9]+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    setTimeout(() => reject(new Error(`server did not start within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return { child, base };
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
export async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
