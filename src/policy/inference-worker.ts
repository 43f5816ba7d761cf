/**
 * The inference thread (started by inference-thread.ts; it runs the compiled dist/src/policy/inference-worker.js):
 * one native session on the policy's graph, run on request. The caller's tensors live in shared memory (the
 * native binding takes no shared buffer), so each run copies the feeds' used part into this thread's own
 * buffers, runs, and copies the outputs back. Requests and answers are counters in a shared Int32Array
 * (Atomics.wait / notify: no event-loop turn on either side), bindings of new tensors come as messages read
 * synchronously from the port.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { loadNativeSession, type Feeds } from './native.js';
import { CTL, OP, SPIN_MAX_MS, type BindMessage, type InferenceWorkerData, type SharedTensor } from './inference-protocol.js';
import type { BoundTensor } from './rows.js';
import { threadTaskId } from '../util/thread-id.js';

interface OwnTensor {
  readonly shared: SharedTensor['data'];
  readonly own: BoundTensor;
}
interface Binding {
  readonly feeds: readonly OwnTensor[];
  readonly fetches: readonly OwnTensor[];
  readonly feedsByName: Feeds;
  readonly fetchesByName: Feeds;
}

const data = workerData as InferenceWorkerData;
const ctl = new Int32Array(data.control);
const ms = new Float64Array(data.timing);
const port: MessagePort = data.port;
const bindings = new Map<number, Binding>();

function own(t: SharedTensor): OwnTensor {
  const Ctor = t.data.constructor as new (n: number) => SharedTensor['data'];
  return { shared: t.data, own: { type: t.type, dims: [...t.dims], data: new Ctor(t.data.length), location: 'cpu' } };
}

function bind(m: BindMessage): void {
  const feeds = m.feeds.map(own), fetches = m.fetches.map(own);
  const byName = (list: readonly OwnTensor[], names: readonly string[]): Feeds => Object.fromEntries(list.map((t, k) => [names[k], t.own]));
  bindings.set(m.id, { feeds, fetches, feedsByName: byName(feeds, m.feeds.map((t) => t.name)), fetchesByName: byName(fetches, m.fetches.map((t) => t.name)) });
}

/** elements a tensor's dims name */
function count(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

function run(native: ReturnType<typeof loadNativeSession>): void {
  const b = bindings.get(ctl[CTL.binding]);
  if (!b) throw new Error(`no binding ${ctl[CTL.binding]}`);
  let k = CTL.dims;
  for (const t of b.feeds) {
    t.own.dims[0] = ctl[k++];
    const n = count(t.own.dims);
    (t.own.data as Float32Array).set((t.shared as Float32Array).subarray(0, n));
  }
  for (const t of b.fetches) t.own.dims[0] = ctl[k++];
  const t0 = performance.now();
  native.run(b.feedsByName, b.fetchesByName, {});
  ms[0] = performance.now() - t0;
  for (const t of b.fetches) (t.shared as Float32Array).set((t.own.data as Float32Array).subarray(0, count(t.own.dims)));
}

function serve(): void {
  const native = loadNativeSession(data.graph, data.intraOpThreads, data.memPattern);
  let seen = 0, rung = 0;
  for (;;) {
    const bell = Atomics.load(ctl, CTL.bell);
    if (bell === rung) {
      Atomics.wait(ctl, CTL.bell, rung);
      continue;
    }
    rung = bell;
    if (Atomics.load(ctl, CTL.request) === seen) {
      // a hint: a request comes soon (the caller is observing); look for it without sleeping
      const until = performance.now() + SPIN_MAX_MS;
      while (Atomics.load(ctl, CTL.request) === seen && performance.now() < until);
      if (Atomics.load(ctl, CTL.request) === seen) continue;
      rung = Atomics.load(ctl, CTL.bell);
    }
    seen = Atomics.load(ctl, CTL.request);
    const t0 = performance.now();
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) bind(m.message as BindMessage);
    const op = ctl[CTL.op];
    if (op === OP.close) {
      // answered once the session is gone: a process that exits while the thread is still disposing it aborts
      native.dispose();
      Atomics.store(ctl, CTL.done, seen);
      Atomics.notify(ctl, CTL.done);
      return;
    }
    if (op === OP.run) run(native);
    ms[1] = performance.now() - t0;
    Atomics.store(ctl, CTL.done, seen);
    Atomics.notify(ctl, CTL.done);
  }
}

/** this thread's task id, 0 where there is none (not Linux) */
function taskId(): number {
  try {
    return threadTaskId() || 0;
  } catch {
    return 0;
  }
}

Atomics.store(ctl, CTL.tid, taskId());
try {
  serve();
} catch (err) {
  port.postMessage({ error: (err as Error).message });
  Atomics.store(ctl, CTL.failed, 1);
  Atomics.store(ctl, CTL.done, -1);
  Atomics.notify(ctl, CTL.done);
}
port.close();
