// @ts-check
/**
 * The MCAP writer thread (plain ESM JavaScript so that it runs as is from the sources and from dist/:
 * worker threads do not get the TypeScript loader the tests use). It owns everything that costs time:
 * building records, CRCs, zstd compression of chunks (@foxglove/wasm-zstd) and file writes, so none of it
 * runs on the server's loop. Protocol (postMessage), see writer.ts:
 *
 *   in:  {op:'init', ...}   {op:'batch', items:[{ch, t: bigint ns, data: string|Uint8Array}], bytes, sim: number|null}   {op:'close'}
 *   out: {op:'ready'} {op:'ack', bytes, fileBytes, chunks, writes, heap} {op:'segment', file, index} {op:'deleted', file}
 *        {op:'error', message} {op:'closed', files}
 *
 * Flushing (what a killed process loses): a chunk is closed, compressed and written when it passes chunkSize
 * (1 MB of records), and — unless flushS is 0 — as soon as it holds flushS of wall-clock time (from its first
 * message; a timer closes it even when nothing more comes) or flushS of simulation time (the batches carry
 * the simulation time of the frames in them, so a clock faster than real time is covered too). Writes go
 * straight to the file (writeSync: the kernel holds them when the process is killed; fsync only at the end of
 * a segment), so a SIGKILL loses the open chunk and whatever the loop and this thread had not got to: at
 * most about flushS plus a frame of simulation time while the thread keeps up.
 *
 * Rotation: when a segment passes maxFileBytes it is finished (summary and index written) and the next one
 * starts with the same schemas, channels and session metadata (its segment number), and the latest message
 * of every latched channel (the map, the config). Size cap: after a rotation, the oldest recordings in the
 * folder (vils-*.mcap, by modification time) are deleted until the folder holds at most maxTotalBytes; the
 * segment being written is never deleted.
 */
import { closeSync, openSync, readdirSync, statSync, unlinkSync, writeSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import zstd from '@foxglove/wasm-zstd';
import { FlushableMcapWriter } from './mcap-file-writer.mjs';

if (!parentPort) throw new Error('mcap-worker.mjs runs as a worker thread');
const port = parentPort;
const encoder = new TextEncoder();

/** write(2) calls made, in every segment (for the benchmark: the cost of flushing more often) */
let writeCalls = 0;

/** A synchronous file sink (this thread may block; the server's loop never waits for it). */
class FileWritable {
  /** @param {string} path */
  constructor(path) {
    this.fd = openSync(path, 'wx');
    this.pos = 0n;
  }
  /** @param {Uint8Array} buffer */
  write(buffer) {
    let off = 0;
    while (off < buffer.byteLength) {
      off += writeSync(this.fd, buffer, off, buffer.byteLength - off);
      writeCalls++;
    }
    this.pos += BigInt(buffer.byteLength);
  }
  position() {
    return this.pos;
  }
  close() {
    try {
      fsyncSync(this.fd);
    } catch {
      /* fsync is best effort (some file systems refuse it) */
    }
    closeSync(this.fd);
  }
}

/** @type {any} */
let cfg = null;
/** @type {FlushableMcapWriter | null} */
let writer = null;
/** @type {FileWritable | null} */
let file = null;
let segment = -1;
/** @type {string[]} */
const files = [];
/** channel index → MCAP channel id in the current segment */
/** @type {number[]} */
let channelIds = [];
/** latest message of each latched channel (index → {t, data}) */
/** @type {Map<number, {t: bigint, data: Uint8Array}>} */
const latched = new Map();
/** @type {Uint32Array} */
let sequences = new Uint32Array(0);
let failed = false;
/** serialises every message (init, batches, timed flushes, close) */
let chain = Promise.resolve();
/** chunks written, in every segment */
let chunks = 0;
/** the open chunk: when its first message came (performance.now() ms), the first simulation time in it */
let chunkOpenedMs = 0;
/** @type {number | null} */
let chunkFirstSim = null;
/** @type {ReturnType<typeof setTimeout> | null} */
let flushTimer = null;

/** @param {Uint8Array} chunkData */
function compressChunk(chunkData) {
  if (chunkData.byteLength === 0) return { compression: '', compressedData: chunkData };
  return { compression: 'zstd', compressedData: zstd.compress(chunkData, cfg.zstdLevel) };
}

function segmentPath(index) {
  return join(cfg.dir, `${cfg.baseName}-${String(index).padStart(3, '0')}.mcap`);
}

async function openSegment() {
  segment++;
  const path = segmentPath(segment);
  file = new FileWritable(path);
  writer = new FlushableMcapWriter({ writable: file, chunkSize: cfg.chunkSize, compressChunk });
  writer.start({ profile: cfg.profile, library: cfg.library });
  /** @type {Map<string, number>} */
  const schemaIds = new Map();
  for (const s of cfg.schemas) schemaIds.set(s.name, writer.registerSchema({ name: s.name, encoding: s.encoding, data: encoder.encode(s.data) }));
  channelIds = [];
  for (const c of cfg.channels) {
    channelIds.push(writer.registerChannel({
      topic: c.topic, messageEncoding: c.messageEncoding, schemaId: c.schema ? schemaIds.get(c.schema) ?? 0 : 0, metadata: new Map(Object.entries(c.metadata ?? {})),
    }));
  }
  for (const m of cfg.metadata) {
    writer.addMetadata({ name: m.name, metadata: new Map(Object.entries({ ...m.metadata, segment: String(segment) })) });
  }
  if (segment === 0) {
    for (const a of cfg.attachments ?? []) {
      writer.addAttachment({ name: a.name, mediaType: a.mediaType, logTime: BigInt(a.logTime), createTime: BigInt(a.logTime), data: a.data });
    }
  }
  for (const [ch, m] of [...latched].sort((a, b) => a[0] - b[0])) addMessage(ch, m.t, m.data);
  files.push(path);
  port.postMessage({ op: 'segment', file: path, index: segment });
}

/** @param {number} ch @param {bigint} t @param {Uint8Array} data */
function addMessage(ch, t, data) {
  if (!writer) return;
  const sequence = sequences[ch]++;
  const before = writer.statistics.chunkCount;
  writer.addMessage({ channelId: channelIds[ch], sequence, logTime: t, publishTime: t, data });
  chunks += writer.statistics.chunkCount - before;
  // this message opened a chunk (one closed by its size leaves none open)
  if (writer.chunkMessages === 1) {
    chunkOpenedMs = performance.now();
    chunkFirstSim = null;
  }
}

/** Closes the open chunk (written to the file at once). */
function flushChunk() {
  if (!writer || writer.chunkMessages === 0) return;
  writer.flushChunk();
  chunks++;
}

/**
 * After a batch: the open chunk is closed once it holds flushS of wall-clock or simulation time; otherwise a
 * timer closes it when its wall-clock time is up, whether more comes or not.
 * @param {number | null} sim the simulation time of the batch's frames
 */
function flushByTime(sim) {
  if (!(cfg.flushS > 0) || !writer || writer.chunkMessages === 0) return;
  if (sim !== null && (chunkFirstSim === null || sim < chunkFirstSim)) chunkFirstSim = sim;
  const age = performance.now() - chunkOpenedMs;
  if (age >= cfg.flushS * 1000 || (sim !== null && chunkFirstSim !== null && sim - chunkFirstSim >= cfg.flushS - 1e-9)) {
    flushChunk();
    return;
  }
  if (flushTimer === null) {
    flushTimer = setTimeout(() => {
      flushTimer = null;
      chain = chain.then(() => {
        if (failed) return;
        try {
          const before = chunks;
          flushByTime(null);
          if (chunks !== before) port.postMessage({ op: 'ack', bytes: 0, fileBytes: Number(file?.position() ?? 0n), chunks, writes: writeCalls });
        } catch (err) {
          fail(err);
        }
      });
    }, Math.max(1, cfg.flushS * 1000 - age));
  }
}

async function finishSegment() {
  if (!writer || !file) return;
  const before = writer.statistics.chunkCount;
  writer.end();
  chunks += writer.statistics.chunkCount - before;
  file.close();
  writer = null;
  file = null;
}

function enforceTotalCap() {
  if (!(cfg.maxTotalBytes > 0)) return;
  const current = segmentPath(segment);
  /** @type {Array<{path: string, size: number, mtime: number}>} */
  const all = [];
  for (const name of readdirSync(cfg.dir)) {
    if (!/^vils-.*\.mcap$/.test(name)) continue;
    const path = join(cfg.dir, name);
    try {
      const st = statSync(path);
      all.push({ path, size: st.size, mtime: st.mtimeMs });
    } catch {
      /* gone meanwhile */
    }
  }
  let total = all.reduce((s, f) => s + f.size, 0);
  all.sort((a, b) => a.mtime - b.mtime || (a.path < b.path ? -1 : 1));
  for (const f of all) {
    if (total <= cfg.maxTotalBytes) break;
    if (f.path === current) continue;
    try {
      unlinkSync(f.path);
      total -= f.size;
      port.postMessage({ op: 'deleted', file: f.path });
    } catch {
      /* not ours to delete after all */
    }
  }
}

/** @param {any} batch */
async function writeBatch(batch) {
  const limit = BigInt(cfg.maxFileBytes);
  for (const item of batch.items) {
    const data = typeof item.data === 'string' ? encoder.encode(item.data) : item.data;
    if (cfg.latched.includes(item.ch)) latched.set(item.ch, { t: item.t, data });
    addMessage(item.ch, item.t, data);
    // the file grows a chunk at a time; past the limit, the segment ends here
    if (file && file.position() > limit) {
      await finishSegment();
      await openSegment();
      enforceTotalCap();
    }
  }
  flushByTime(typeof batch.sim === 'number' ? batch.sim : null);
  port.postMessage({ op: 'ack', bytes: batch.bytes, fileBytes: Number(file?.position() ?? 0n), chunks, writes: writeCalls, heap: heapNow() });
}

/** This thread's own V8 heap and its WebAssembly memory (zstd), which the server's memory figures do not include [bytes]. */
function heapNow() {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, total: h.total_heap_size, external: h.external_memory };
}

/** @param {unknown} err */
function fail(err) {
  failed = true;
  port.postMessage({ op: 'error', message: err instanceof Error ? err.message : String(err) });
}

port.on('message', (msg) => {
  chain = chain.then(async () => {
    if (msg.op === 'close') {
      if (flushTimer !== null) clearTimeout(flushTimer);
      flushTimer = null;
      try {
        if (!failed) await finishSegment();
      } catch (err) {
        fail(err);
      }
      port.postMessage({ op: 'closed', files });
      return;
    }
    if (failed) {
      if (msg.op === 'batch') port.postMessage({ op: 'ack', bytes: msg.bytes, fileBytes: 0 });
      return;
    }
    try {
      if (msg.op === 'init') {
        cfg = msg;
        sequences = new Uint32Array(cfg.channels.length);
        await zstd.isLoaded;
        await openSegment();
        enforceTotalCap();
        port.postMessage({ op: 'ready' });
      } else if (msg.op === 'batch') {
        await writeBatch(msg);
      }
    } catch (err) {
      fail(err);
      if (msg.op === 'batch') port.postMessage({ op: 'ack', bytes: msg.bytes, fileBytes: 0 });
    }
  });
});
