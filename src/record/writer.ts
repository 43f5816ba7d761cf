/**
 * An MCAP recording being written: the loop-side half. Messages are queued and handed to the writer thread
 * (mcap-worker.mjs) once per event-loop turn; the thread builds, compresses (zstd) and writes the chunks,
 * rotates segments and keeps the folder under its size cap. Nothing here waits for the disk.
 *
 * What a killed process loses: a chunk is written when it passes `chunkSize` and, unless `flushS` is 0, once
 * it holds `flushS` (0.25 s) of wall-clock time or of simulation time (given by `simTime`, once per frame), so
 * a SIGKILL loses about that much and a frame (and whatever the thread had not yet got to), where chunks
 * closed by size alone lost up to a whole 1 MB chunk (2.3 s of the default scene, 20 NPCs at 10 Hz).
 *
 * Never blocking also means never growing without bound: when more than `maxPendingBytes` are queued but not
 * yet written (a slow disk), further messages are dropped and counted — first the bulky ones (frames and
 * visualisation), and only past twice that limit the essential ones (the scene-call log); a recording that
 * lost an essential message says so (`stats.lostEssential`) and replay refuses it at that point.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../util/project-root.js';

export interface SchemaSpec {
  name: string;
  /** 'jsonschema' */
  encoding: string;
  /** the schema text */
  data: string;
}

export interface ChannelSpec {
  topic: string;
  schema: SchemaSpec | null;
  messageEncoding: string;
  /** repeated at the start of every segment (the map, the config) */
  latched?: boolean;
  /** needed for replay: dropped only as a last resort */
  essential?: boolean;
  metadata?: Record<string, string>;
}

export interface RecordingOptions {
  dir: string;
  /** file name without segment number and extension, e.g. vils-default-20250101-120000-ab12 */
  baseName: string;
  /** a segment is finished and the next one started past this size [bytes] */
  maxFileBytes: number;
  /** oldest recordings in `dir` are deleted past this total [bytes]; 0 = no cap */
  maxTotalBytes: number;
  chunkSize?: number;
  /**
   * a chunk is also closed once it holds this much wall-clock or simulation time [s] (DEFAULT_FLUSH_S); 0: by
   * its size only
   */
  flushS?: number;
  zstdLevel?: number;
  /** queued-but-unwritten bytes beyond which messages are dropped */
  maxPendingBytes?: number;
  profile?: string;
  metadata?: Array<{ name: string; metadata: Record<string, string> }>;
  /** written into the first segment only */
  attachments?: Array<{ name: string; mediaType: string; data: Uint8Array; logTime: bigint }>;
}

export interface RecordingStats {
  messages: number;
  /** payload bytes handed to the writer thread */
  bytesIn: number;
  /** bytes of the segment being written (compressed, on disk) */
  fileBytes: number;
  /** bytes of every segment finished so far plus the current one */
  bytesWritten: number;
  pendingBytes: number;
  /** chunks written (every segment) */
  chunks: number;
  /** write(2) calls the writer thread made (every segment) */
  writeCalls: number;
  dropped: number;
  lostEssential: boolean;
  files: string[];
  deleted: string[];
  error: string | null;
  /** the writer thread's own V8 heap (used, total) and external memory (zstd's WebAssembly memory among it) [bytes] */
  threadHeap: { used: number; total: number; external: number } | null;
}

interface Item {
  ch: number;
  t: bigint;
  data: string | Uint8Array;
}

export const DEFAULT_CHUNK_SIZE = 1 << 20;
/** a chunk holds at most this much wall-clock or simulation time [s]: what a SIGKILL loses, about */
export const DEFAULT_FLUSH_S = 0.25;
export const DEFAULT_ZSTD_LEVEL = 1;

/** The writer thread's script: plain JavaScript under src/, the same file from the sources and from dist/. */
/** The writer thread's young generation [MB] (V8's semi-spaces; see the constructor). */
export const WORKER_YOUNG_GENERATION_MB = 6;

export function workerScript(): string {
  return join(projectRoot(), 'src', 'record', 'mcap-worker.mjs');
}

export class RecordingWriter {
  private readonly worker: Worker;
  private readonly topics = new Map<string, number>();
  private queue: Item[] = [];
  private queuedBytes = 0;
  private flushScheduled = false;
  private lastT = 0n;
  /** the simulation time of the frames queued since the last hand-over (null: none) */
  private queuedSim: number | null = null;
  private closing: Promise<string[]> | null = null;
  private finishedBytes = 0;
  private readonly listeners: Array<(e: { type: 'segment' | 'deleted' | 'error'; detail: string }) => void> = [];
  readonly stats: RecordingStats = {
    messages: 0, bytesIn: 0, fileBytes: 0, bytesWritten: 0, pendingBytes: 0, chunks: 0, writeCalls: 0, dropped: 0, lostEssential: false, files: [], deleted: [], error: null, threadHeap: null,
  };
  private readonly maxPending: number;

  private constructor(readonly options: RecordingOptions, readonly channels: readonly ChannelSpec[]) {
    this.maxPending = options.maxPendingBytes ?? 32 * 1024 * 1024;
    channels.forEach((c, i) => {
      if (this.topics.has(c.topic)) throw new Error(`channel ${c.topic} given twice`);
      this.topics.set(c.topic, i);
    });
    // a small young generation: the thread allocates fast (every frame's text, chunk buffers), and left to V8's
    // default its new space grows in steps to ~48 MB and back (a soak's RSS moved ±25 MB with it); 6 MB keeps
    // the thread's heap at 12–21 MB (bench:soak)
    this.worker = new Worker(workerScript(), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    this.worker.unref();
  }

  /** Starts a recording; resolves once the first segment is open (rejects if it cannot be). */
  static async open(options: RecordingOptions, channels: readonly ChannelSpec[]): Promise<RecordingWriter> {
    mkdirSync(options.dir, { recursive: true });
    const w = new RecordingWriter(options, channels);
    await w.init();
    return w;
  }

  on(listener: (e: { type: 'segment' | 'deleted' | 'error'; detail: string }) => void): void {
    this.listeners.push(listener);
  }

  private init(): Promise<void> {
    const o = this.options;
    const schemas = new Map<string, SchemaSpec>();
    for (const c of this.channels) if (c.schema) schemas.set(c.schema.name, c.schema);
    return new Promise((resolve, reject) => {
      let ready = false;
      this.worker.on('message', (m: { op: string; [k: string]: unknown }) => {
        switch (m.op) {
          case 'ready': ready = true; resolve(); break;
          case 'ack':
            this.stats.pendingBytes -= m.bytes as number;
            this.stats.fileBytes = m.fileBytes as number;
            this.stats.bytesWritten = this.finishedBytes + this.stats.fileBytes;
            this.stats.chunks = m.chunks as number;
            this.stats.writeCalls = m.writes as number;
            if (m.heap) this.stats.threadHeap = m.heap as RecordingStats['threadHeap'];
            break;
          case 'segment':
            if (this.stats.files.length > 0) this.finishedBytes = this.stats.bytesWritten;
            this.stats.files.push(m.file as string);
            this.emit('segment', m.file as string);
            break;
          case 'deleted': this.stats.deleted.push(m.file as string); this.emit('deleted', m.file as string); break;
          case 'error':
            this.stats.error = m.message as string;
            this.emit('error', m.message as string);
            if (!ready) reject(new Error(`recording ${o.dir}: ${m.message as string}`));
            break;
        }
      });
      this.worker.on('error', (err) => {
        this.stats.error = err.message;
        this.emit('error', err.message);
        if (!ready) reject(err);
      });
      this.worker.postMessage({
        op: 'init', dir: o.dir, baseName: o.baseName, maxFileBytes: o.maxFileBytes, maxTotalBytes: o.maxTotalBytes,
        chunkSize: o.chunkSize ?? DEFAULT_CHUNK_SIZE, flushS: o.flushS ?? DEFAULT_FLUSH_S, zstdLevel: o.zstdLevel ?? DEFAULT_ZSTD_LEVEL, profile: o.profile ?? '', library: 'vils',
        schemas: [...schemas.values()],
        channels: this.channels.map((c) => ({ topic: c.topic, schema: c.schema?.name ?? null, messageEncoding: c.messageEncoding, metadata: c.metadata })),
        latched: this.channels.flatMap((c, i) => (c.latched ? [i] : [])),
        metadata: o.metadata ?? [],
        attachments: (o.attachments ?? []).map((a) => ({ ...a, logTime: a.logTime.toString() })),
      });
    });
  }

  private emit(type: 'segment' | 'deleted' | 'error', detail: string): void {
    for (const l of this.listeners) l({ type, detail });
  }

  /** Channel index of a topic (for write). */
  channel(topic: string): number {
    const i = this.topics.get(topic);
    if (i === undefined) throw new Error(`no channel ${topic} in this recording`);
    return i;
  }

  /**
   * Queues one message (a JSON text or bytes) at wall-clock time `timeNs`; log times are kept strictly
   * increasing, so the file's time order is the order of the calls. Returns false when it was dropped.
   */
  write(ch: number, timeNs: bigint, data: string | Uint8Array): boolean {
    if (this.closing || this.stats.error) return false;
    const size = typeof data === 'string' ? data.length : data.byteLength;
    const pending = this.stats.pendingBytes + this.queuedBytes;
    const essential = this.channels[ch].essential === true;
    if (pending + size > (essential ? 2 * this.maxPending : this.maxPending)) {
      this.stats.dropped++;
      if (essential) this.stats.lostEssential = true;
      return false;
    }
    const t = timeNs > this.lastT ? timeNs : this.lastT + 1n;
    this.lastT = t;
    this.queue.push({ ch, t, data });
    this.queuedBytes += size;
    this.stats.messages++;
    this.stats.bytesIn += size;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /**
   * The simulation time of what is being written (a frame's): the thread closes a chunk once it holds
   * `flushS` of it, so a clock faster than real time loses no more than a real-time one.
   */
  simTime(t: number): void {
    if (Number.isFinite(t)) this.queuedSim = t;
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.queue.length === 0) return;
    const items = this.queue;
    const bytes = this.queuedBytes;
    const sim = this.queuedSim;
    this.queue = [];
    this.queuedBytes = 0;
    this.queuedSim = null;
    this.stats.pendingBytes += bytes;
    this.worker.postMessage({ op: 'batch', items, bytes, sim });
  }

  /** Writes what is queued, finishes the segment (summary, index) and ends the thread; the files written. */
  close(): Promise<string[]> {
    if (this.closing) return this.closing;
    this.flush();
    this.worker.ref(); // keep the process up until the segment is finished
    this.closing = new Promise<string[]>((resolve) => {
      const done = (files: string[]) => {
        void this.worker.terminate();
        resolve(files);
      };
      this.worker.on('message', (m: { op: string; files?: string[] }) => {
        if (m.op === 'closed') done(m.files ?? this.stats.files);
      });
      this.worker.once('exit', () => resolve(this.stats.files));
      this.worker.postMessage({ op: 'close' });
    });
    return this.closing;
  }
}
