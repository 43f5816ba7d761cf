/**
 * Batch runs beyond one machine on BullMQ (Redis): `vils batch --queue redis://host:port` enqueues a campaign's
 * runs (QueueExecutor) and `vils worker --queue ...` processes them on any number of machines (startQueueWorker),
 * each with a pool of worker threads. A worker needs the same project checkout (the scenario files are named
 * relative to the project root) and returns each run's metrics, CSVs (gzip) and resolved YAML through Redis, so
 * the producer writes the same files as a local run. Job ids are the campaign's signature and the run id:
 * enqueueing a campaign again (a resumed `vils batch`) reuses runs a worker already finished.
 *
 * No silent hangs: BullMQ reconnects to Redis forever by design, so a wrong address used to wait without a word.
 * Both ends now wait at most CONNECT_TIMEOUT_MS for the first connection and fail with the address, the cause
 * (ECONNREFUSED, ENOTFOUND, ...) and how to start Redis (waitReady); once connected, BullMQ's own reconnection
 * applies. A producer whose runs no worker takes for `noWorkerHintS` says so, with the command that starts one,
 * and keeps waiting.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type ConnectionOptions, type Job, Queue, QueueEvents, Worker } from 'bullmq';
import type { Campaign, RunJob } from './campaign.js';
import { ThreadPool } from './pool.js';
import type { RunResult } from './run-job.js';
import type { Executor } from './runner.js';

export const DEFAULT_QUEUE = 'vils-batch';
/** How long `vils batch --queue` / `vils worker` wait for Redis's first answer before giving up. */
export const CONNECT_TIMEOUT_MS = 5000;
/** How long the producer waits for a worker to take one of its runs before it prints how to start one. */
export const NO_WORKER_HINT_S = 5;

/** The command that starts a worker for this queue (the hint printed while no worker takes a run). */
export function workerCommand(url: string, queueName = DEFAULT_QUEUE): string {
  return `npx vils worker --queue ${url}${queueName !== DEFAULT_QUEUE ? ` --queue-name ${queueName}` : ''}`;
}

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const START_REDIS = 'Start Redis with `redis-server` (or `redis-server --port <port>`; Debian/Ubuntu: `sudo apt-get install redis-server` runs it as a service on port 6379), or point --queue at a running one.';

/** The address without its password, for messages. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** Redis did not answer at the address given (the message says where, why and what to do). */
export class RedisUnreachableError extends Error {
  override name = 'RedisUnreachableError';
}

/** Connection failure → the error the CLI prints: the address, what failed, how to start Redis. */
function redisError(url: string, err: Error | null, timeoutMs: number): RedisUnreachableError {
  const c = redisConnection(url) as { host: string; port: number };
  const where = `Redis at ${shownUrl(url)} (${c.host}:${c.port})`;
  if (!err) return new RedisUnreachableError(`no answer from ${where} within ${timeoutMs / 1000} s. ${START_REDIS}`);
  const code = (err as { code?: string }).code;
  const what = code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  if (code && NETWORK_ERRORS.has(code)) return new RedisUnreachableError(`cannot reach ${where}: ${what}. ${START_REDIS}`);
  return new RedisUnreachableError(`${where} did not answer as Redis: ${what} (check that the address is a Redis server's, and the password and database in --queue)`);
}

interface Connecting {
  waitUntilReady(): Promise<unknown>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
  close(): Promise<void>;
}

/**
 * Waits until every client is connected, failing on the first connection error or after `timeoutMs`; on failure
 * the clients are closed (a bounded wait: a client that never connected may not close cleanly).
 */
async function waitReady(url: string, clients: Connecting[], timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  let onError: (err: Error) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all(clients.map((c) => c.waitUntilReady())),
      new Promise<never>((_, reject) => {
        onError = (err) => reject(redisError(url, err, timeoutMs));
        for (const c of clients) c.on('error', onError);
        timer = setTimeout(() => reject(redisError(url, null, timeoutMs)), timeoutMs);
      }),
    ]);
  } catch (err) {
    const ignore = () => undefined;
    for (const c of clients) c.on('error', ignore);
    const closing = clients.map((c) => {
      const p = c.close();
      // BullMQ 5: closing a connection still initializing removes all its listeners, and then the rejected
      // initialization emits 'error' on it — an uncaught exception. Listen again right after close() began.
      for (const k of ['connection', 'blockingConnection']) {
        const conn = (c as unknown as Record<string, unknown>)[k];
        if (conn instanceof EventEmitter) conn.on('error', ignore);
      }
      return p;
    });
    await Promise.race([Promise.allSettled(closing), new Promise((r) => setTimeout(r, 1000).unref())]);
    throw err instanceof RedisUnreachableError ? err : redisError(url, err as Error, timeoutMs);
  } finally {
    clearTimeout(timer);
    for (const c of clients) c.off('error', onError);
  }
}

/** redis://[:password@]host:port[/db] → BullMQ connection options. */
export function redisConnection(url: string): ConnectionOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`--queue ${url}: expected redis://host:port`);
  }
  if (u.protocol !== 'redis:') throw new Error(`--queue ${url}: expected a redis:// address`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`--queue ${url}: bad database number '${u.pathname.slice(1)}'`);
  // disconnectTimeout (ioredis, default 2 s): how long a closing socket the peer does not close is kept; a peer that
  // accepted but never answered kept a failed `vils batch` alive 4 s after its message
  return { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : 6379, db, password: u.password ? decodeURIComponent(u.password) : undefined, maxRetriesPerRequest: null, disconnectTimeout: 500 };
}

/** What travels through Redis: the result with its CSVs gzipped (base64). */
interface WireResult extends Omit<RunResult, 'csv'> {
  csvGz: Record<string, string>;
}

function toWire(r: RunResult): WireResult {
  const { csv, ...rest } = r;
  return { ...rest, csvGz: Object.fromEntries(Object.entries(csv).map(([k, v]) => [k, gzipSync(v).toString('base64')])) };
}

function fromWire(w: WireResult): RunResult {
  const { csvGz, ...rest } = w;
  const metrics = Object.fromEntries(Object.entries(rest.metrics).map(([k, v]) => [k, v === null ? NaN : v]));
  return { ...rest, metrics, csv: Object.fromEntries(Object.entries(csvGz).map(([k, v]) => [k, gunzipSync(Buffer.from(v, 'base64')).toString('utf8')])) };
}

export function campaignKey(c: Campaign): string {
  return createHash('sha1').update(JSON.stringify([c.name, c.jobs.map((j) => [j.runId, j.scenario, j.overrides, j.metrics])])).digest('hex').slice(0, 12);
}

export interface QueueExecutorOptions {
  queueName?: string;
  /** how many runs the producer waits on at once (the workers decide how many run); default: all */
  size?: number;
  /** called once when no worker has taken one of the campaign's runs for `noWorkerHintS` (it keeps waiting) */
  onWaiting?: (message: string) => void;
  noWorkerHintS?: number;
  /** the wait for Redis's first answer */
  connectTimeoutMs?: number;
}

export class QueueExecutor implements Executor {
  /** a worker took (or had already finished) one of the campaign's runs */
  private taken = false;
  private hintTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly key: string,
    readonly size: number,
    private readonly url: string,
    private readonly opts: QueueExecutorOptions,
  ) {
    events.on('active', ({ jobId }) => {
      if (jobId.startsWith(`${key}__`)) this.progress();
    });
  }

  /** Connects (failing within `connectTimeoutMs` with the address and the cause when Redis does not answer). */
  static async connect(url: string, campaign: Campaign, opts: QueueExecutorOptions = {}): Promise<QueueExecutor> {
    const connection = redisConnection(url);
    const name = opts.queueName ?? DEFAULT_QUEUE;
    // the Queue first: it closes cleanly when it never connected (a QueueEvents' close waits for its connection)
    const queue = new Queue(name, { connection });
    await waitReady(url, [queue], opts.connectTimeoutMs);
    const events = new QueueEvents(name, { connection });
    try {
      await waitReady(url, [events], opts.connectTimeoutMs);
    } catch (err) {
      await queue.close();
      throw err;
    }
    const size = opts.size ?? campaign.jobs.length;
    // every run awaited (Job.waitUntilFinished) listens for the queue's 'closing' until it finishes: `size` at
    // once, which printed a MaxListenersExceededWarning for any campaign of more than 10 runs
    queue.setMaxListeners(size + 10);
    return new QueueExecutor(queue, events, campaignKey(campaign), size, url, opts);
  }

  private progress(): void {
    this.taken = true;
    clearTimeout(this.hintTimer);
  }

  /** Armed by the first run queued: no run taken within the time → the hint, once. */
  private armHint(): void {
    if (this.taken || this.hintTimer || !this.opts.onWaiting) return;
    const afterS = this.opts.noWorkerHintS ?? NO_WORKER_HINT_S;
    this.hintTimer = setTimeout(() => {
      void this.queue
        .getWorkersCount()
        .catch(() => null)
        .then((n) => {
          if (this.taken) return;
          const name = this.opts.queueName ?? DEFAULT_QUEUE;
          const workers = n === null ? '' : n === 0 ? ' (no worker is connected)' : ` (${n} worker(s) connected, busy with other runs or another queue)`;
          this.opts.onWaiting!(
            `waiting for a worker: no run taken from queue ${name} on ${shownUrl(this.url)} in ${afterS} s${workers}. ` +
              `Start one (on this or any machine with the same project checkout): ${workerCommand(shownUrl(this.url), name)}`,
          );
        });
    }, afterS * 1000);
    this.hintTimer.unref();
  }

  async run(job: RunJob): Promise<RunResult> {
    const id = `${this.key}__${job.runId}`;
    const j = await this.queue.add(job.runId, job, { jobId: id, attempts: 1, removeOnFail: false, removeOnComplete: false });
    this.armHint();
    try {
      const w = (await j.waitUntilFinished(this.events)) as WireResult;
      this.progress();
      const r = fromWire(w);
      await j.remove().catch(() => undefined);
      return r;
    } catch (err) {
      this.progress();
      return { runId: job.runId, index: job.index, status: 'failed', error: `queue: ${(err as Error).message}`, overrides: job.overrides, metrics: {}, csv: {}, resolvedYaml: '', simTimeS: 0, wallS: 0 };
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.hintTimer);
    await this.events.close();
    await this.queue.close();
  }
}

export interface QueueWorkerHandle {
  worker: Worker;
  processed(): number;
  close(): Promise<void>;
}

/** A BullMQ worker running `concurrency` jobs at once on as many threads. */
export async function startQueueWorker(url: string, opts: { concurrency: number; queueName?: string; onResult?: (r: RunResult) => void; connectTimeoutMs?: number }): Promise<QueueWorkerHandle> {
  // Redis checked first with a Queue on the same connection options (a Worker that never connected does not close)
  const probe = new Queue(opts.queueName ?? DEFAULT_QUEUE, { connection: redisConnection(url) });
  await waitReady(url, [probe], opts.connectTimeoutMs);
  await probe.close();
  const pool = new ThreadPool(opts.concurrency);
  let processed = 0;
  const worker = new Worker(
    opts.queueName ?? DEFAULT_QUEUE,
    async (job: Job<RunJob>) => {
      const r = await pool.run(job.data);
      processed++;
      opts.onResult?.(r);
      return toWire(r);
    },
    { connection: redisConnection(url), concurrency: opts.concurrency },
  );
  await worker.waitUntilReady();
  return {
    worker,
    processed: () => processed,
    async close() {
      await worker.close();
      await pool.close();
    },
  };
}
