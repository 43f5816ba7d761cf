/**
 * The thread of a served scenario's simulated egos (started by sim-ego-thread.ts; it runs the compiled
 * dist/src/session/sim-ego-worker.js): the scenario loaded again from its resolved document, the egos' plants
 * (SimEgo) on their own paced loop (sim-ego-loop.ts), and their comms link (src/scenario/comms-link.ts) — the
 * VDS1 command ports, STATE and sensor channels, the fail-safe watchdog and the JSON data port's state — all
 * opened here, so nothing the main thread does (an NPC step, 20 viewers' frames) delays a STATE datagram or a
 * command. The main thread gets the egos' reports (it submits them as scene inputs: logged, replayed) and the
 * loop's figures; it sends the scene's timeline, every policy step's traffic and the data port's requests.
 *
 * Sleeping: a 1 kHz schedule needs wake-ups finer than a timer's millisecond, and spinning on setImmediate
 * would take a core the NPCs and viewers need on a 2-core machine. A worker may block, so the last stretch
 * before a tick is an Atomics.wait of at most 1 ms at a time, with a turn of the event loop (commands, the main
 * thread's messages) between.
 *
 * Scheduling: on a machine busy with other work an ordinary thread waits for a core up to a few milliseconds
 * after its timer fired, whatever its niceness (the scheduler lets the running task finish its slice), so by
 * default (`vils serve --ego-priority fifo`) the thread asks for the real-time scheduler (SCHED_FIFO: it runs as
 * soon as it wakes). It sleeps between ticks and takes a few percent of a core; the kernel caps real-time tasks
 * at 95 % of each second anyway. Without CAP_SYS_NICE it is refused and the thread runs as it is.
 */
import { execFileSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { setImmediate as immediate, setTimeout as sleepMs } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { EgoCommsLink } from '../scenario/comms-link.js';
import { scenarioFromDocument } from '../scenario/config.js';
import { SimEgo } from '../scenario/sim-ego.js';
import type { Clock } from '../time/clock.js';
import { PlantLoop } from './sim-ego-loop.js';
import { threadTaskId } from '../util/thread-id.js';
import type { EgoPriority, FromWorker, IoCall, SimEgoWorkerData, ToWorker, WorkerStats } from './sim-ego-protocol.js';

/** The runner's clock in this thread: seconds since the main thread's performance.now() = 0. */
export function workerClock(originNs: bigint): Clock {
  // performance.now() counts on process.hrtime's clock from this thread's own origin: one offset, taken once
  const offsetS = Number(process.hrtime.bigint() - originNs) / 1e9 - performance.now() / 1000;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const now = () => performance.now() / 1000 + offsetS;
  return {
    now,
    async sleepUntil(t: number): Promise<void> {
      for (;;) {
        await immediate(); // the event loop first: commands, the main thread's messages, STATE leaving
        const ms = (t - now()) * 1000;
        if (ms <= 0) return;
        if (ms > 3) await sleepMs(Math.floor(ms - 2));
        else if (ms > 0.05) Atomics.wait(cell, 0, 0, Math.min(ms - 0.03, 1));
      }
    },
  };
}

/** Applies the scheduling to this thread (Linux: a thread of its own, named by /proc/thread-self); says what it did. */
export function applyPriority(p: EgoPriority): string {
  if (p === null) return 'normal';
  try {
    const tid = threadTaskId();
    if (p === 'fifo') execFileSync('chrt', ['-f', '-p', '10', String(tid)], { stdio: 'pipe', timeout: 5000 });
    else setPriority(tid, p);
    return p === 'fifo' ? 'fifo 10' : `nice ${p}`;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    const why = e.stderr?.toString().trim().split('\n').pop() || e.code || e.message;
    return `normal (${p === 'fifo' ? 'fifo' : `nice ${p}`} refused: ${why})`;
  }
}

const port = parentPort;
if (port) void main(workerData as SimEgoWorkerData, (m) => port.postMessage(m), (fn) => port.on('message', fn), () => port.close());

async function main(data: SimEgoWorkerData, post: (m: FromWorker) => void, onMessage: (fn: (m: ToWorker) => void) => void, closePort: () => void): Promise<void> {
  let link: EgoCommsLink | null = null;
  try {
    const priority = applyPriority(data.priority);
    const scenario = await scenarioFromDocument(data.doc, data.file);
    const specs = data.egoIds.map((id) => {
      const s = scenario.egos.find((e) => e.id === id);
      if (!s) throw new Error(`${data.file}: no ego ${id}`);
      return s;
    });
    const egos = specs.map((s) => new SimEgo(s, { ground: scenario.map.ground, line: scenario.map.line, cmdTimeoutS: data.cmdTimeoutS, record: false }));
    let epoch = 0;
    const stats = (): WorkerStats => ({
      ticks: loop.ticks, overruns: loop.overruns, skippedTicks: loop.skippedTicks, maxLateMs: loop.maxLateS * 1000, lateHistogram: [...loop.lateHistogram],
      aheadMs: loop.aheadS * 1000, running: loop.running, egos: loop.egoRows(),
      exposure: link?.exposure() ?? { bind: '', allow: [], refused_sources: 0, max_auto_subscribers: 0 }, handlerErrors: link?.handlerErrors ?? 0,
    });
    const loop: PlantLoop = new PlantLoop({
      clock: workerClock(data.originNs),
      egos,
      reportEveryUs: data.reportEveryUs,
      onReports: (reports, wallS) => post({ type: 'reports', epoch, wallS, reports }),
      onStats: () => post({ type: 'stats', stats: stats() }),
    });
    link = await EgoCommsLink.open(egos, scenario.run.mode === 'rt_comms' ? scenario.run.comms : null, { now: () => loop.plantTime, bindAddress: data.bindAddress, running: () => loop.running });
    const io = (call: IoCall): unknown => {
      const p = link!.dataPort;
      switch (call.op) {
        case 'command': return p.command(call.cmd);
        case 'snapshot': return p.snapshot();
        case 'targets': return p.targets();
        case 'setTargets': return p.setTargets(call.patch);
      }
    };
    let closing: Promise<void> | null = null;
    onMessage((m) => {
      switch (m.type) {
        case 'timeline':
          if (m.epoch === epoch) loop.setTimeline(m.timeline);
          return;
        case 'reset':
          epoch = m.epoch;
          loop.reset();
          return;
        case 'traffic':
          if (m.epoch === epoch) loop.observe(m.t, m.npcs, m.egos, m.stops);
          return;
        case 'io':
          post({ type: 'io', id: m.id, value: io(m.call) });
          return;
        case 'fault':
          throw new Error(m.message);
        case 'close':
          closing ??= (async () => {
            loop.close();
            await link?.close();
            post({ type: 'closed' });
            closePort();
          })();
      }
    });
    post({ type: 'ready', cmdPorts: [...link.cmdPorts], stats: stats(), priority });
    await loop.run();
  } catch (err) {
    await link?.close().catch(() => undefined);
    post({ type: 'failed', message: (err as Error).message ?? String(err) });
    closePort();
  }
}
