/**
 * Batch runs beyond one machine on BullMQ (Redis): `vils batch --queue redis://host:port` enqueues a campaign's
 * runs (QueueExecutor) and `vils worker --queue ...` processes them on any number of machines (startQueueWorker),
 * each with a pool of worker threads. A worker needs the same project checkout (the scenario files are named
 * relative to the project root) and returns each run's metrics, CSVs (gzip) and resolved YAML through Redis, so
 * the producer writes the same files as a local run. Job ids are the campaign's signature and the run id:
 * enqueueing a campaign again (a resumed `vils batch`) reuses runs a worker already finished.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type ConnectionOptions, type Job, Queue, QueueEvents, Worker } from 'bullmq';
import type { Campaign, RunJob } from './campaign.js';
import { ThreadPool } from './pool.js';
import type { RunResult } from './run-job.js';
import type { Executor } from './runner.js';

export const DEFAULT_QUEUE = 'vils-batch';

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
  return { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : 6379, db, password: u.password ? decodeURIComponent(u.password) : undefined, maxRetriesPerRequest: null };
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

export class QueueExecutor implements Executor {
  private constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly key: string,
    readonly size: number,
  ) {}

  /** `size` is only how many runs the producer waits on at once (the workers decide how many run). */
  static async connect(url: string, campaign: Campaign, opts: { queueName?: string; size?: number } = {}): Promise<QueueExecutor> {
    const connection = redisConnection(url);
    const name = opts.queueName ?? DEFAULT_QUEUE;
    const queue = new Queue(name, { connection });
    const events = new QueueEvents(name, { connection });
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    const size = opts.size ?? campaign.jobs.length;
    // every run awaited (Job.waitUntilFinished) listens for the queue's 'closing' until it finishes: `size` at
    // once, which printed a MaxListenersExceededWarning for any campaign of more than 10 runs
    queue.setMaxListeners(size + 10);
    return new QueueExecutor(queue, events, campaignKey(campaign), size);
  }

  async run(job: RunJob): Promise<RunResult> {
    const id = `${this.key}__${job.runId}`;
    const j = await this.queue.add(job.runId, job, { jobId: id, attempts: 1, removeOnFail: false, removeOnComplete: false });
    try {
      const w = (await j.waitUntilFinished(this.events)) as WireResult;
      const r = fromWire(w);
      await j.remove().catch(() => undefined);
      return r;
    } catch (err) {
      return { runId: job.runId, index: job.index, status: 'failed', error: `queue: ${(err as Error).message}`, overrides: job.overrides, metrics: {}, csv: {}, resolvedYaml: '', simTimeS: 0, wallS: 0 };
    }
  }

  async close(): Promise<void> {
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
export async function startQueueWorker(url: string, opts: { concurrency: number; queueName?: string; onResult?: (r: RunResult) => void }): Promise<QueueWorkerHandle> {
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
