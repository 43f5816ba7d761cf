/**
 * The writer thread's MCAP writer (src/record/mcap-file-writer.mjs, issue 26 item 5): @mcap/core's McapWriter
 * with a chunk that can be closed at any moment. Closed by size only it writes the very bytes McapWriter writes;
 * closed early, the file is still a valid indexed MCAP (CRCs, chunk and message indexes, statistics), and a
 * file cut right after a closed chunk (what a SIGKILL leaves) reads every message up to there. And the writer
 * thread closes a chunk once it holds 0.25 s of simulation time (a clock faster than real time) or of wall-clock
 * time (even when nothing more comes), or — flushS 0, the old policy — by its size only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader, McapStreamReader, McapWriter, type McapTypes } from '@mcap/core';
import zstd from '@foxglove/wasm-zstd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlushableMcapWriter } from '../../src/record/mcap-file-writer.mjs';
import { RecordingWriter, type ChannelSpec } from '../../src/record/writer.js';

class Sink {
  parts: Uint8Array[] = [];
  pos = 0n;
  /** the file length after each write */
  ends: bigint[] = [];
  write(b: Uint8Array): void {
    this.parts.push(b.slice());
    this.pos += BigInt(b.byteLength);
    this.ends.push(this.pos);
  }
  position(): bigint {
    return this.pos;
  }
  bytes(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

const compressChunk = (d: Uint8Array) => (d.byteLength === 0 ? { compression: '', compressedData: d } : { compression: 'zstd', compressedData: zstd.compress(d, 1) });
const enc = new TextEncoder();

/** The same calls on either writer: 2 channels, metadata, an attachment, 600 messages of a few hundred bytes. */
async function writeSession(w: {
  start(h: McapTypes.Header): unknown; registerSchema(s: Omit<McapTypes.Schema, 'id'>): number | Promise<number>; registerChannel(c: Omit<McapTypes.Channel, 'id'>): number | Promise<number>;
  addMessage(m: McapTypes.Message): unknown; addMetadata(m: McapTypes.Metadata): unknown; addAttachment(a: McapTypes.Attachment): unknown; end(): unknown;
}, onMessage: (i: number) => void = () => {}): Promise<void> {
  await w.start({ profile: '', library: 'vils' });
  const schema = await w.registerSchema({ name: 'x', encoding: 'jsonschema', data: enc.encode('{}') });
  const a = await w.registerChannel({ topic: '/a', messageEncoding: 'json', schemaId: schema, metadata: new Map() });
  const b = await w.registerChannel({ topic: '/b', messageEncoding: 'json', schemaId: 0, metadata: new Map([['k', 'v']]) });
  await w.addMetadata({ name: 'vils.session', metadata: new Map([['segment', '0']]) });
  await w.addAttachment({ name: 'map.json', mediaType: 'application/json', logTime: 5n, createTime: 5n, data: enc.encode('{"map":1}') });
  for (let i = 0; i < 600; i++) {
    const data = enc.encode(JSON.stringify({ i, text: 'abc'.repeat(30 + (i % 50)), r: Math.sin(i) }));
    await w.addMessage({ channelId: i % 3 === 0 ? b : a, sequence: i, logTime: BigInt(1e9 + i * 1e6), publishTime: BigInt(1e9 + i * 1e6), data });
    onMessage(i);
  }
  await w.end();
}

function readable(bytes: Uint8Array): McapTypes.IReadable {
  return { size: async () => BigInt(bytes.byteLength), read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)) };
}

function streamRead(bytes: Uint8Array): { sequences: number[]; done: boolean } {
  const reader = new McapStreamReader({ decompressHandlers: { zstd: (buf, size) => zstd.decompress(buf, Number(size)) }, validateCrcs: true });
  reader.append(bytes);
  const sequences: number[] = [];
  for (let r: McapTypes.TypedMcapRecord | undefined; (r = reader.nextRecord()); ) if (r.type === 'Message') sequences.push(r.sequence);
  return { sequences, done: reader.done() };
}

beforeAll(async () => {
  await zstd.isLoaded;
});

describe('FlushableMcapWriter', () => {
  it('closing chunks by size only, it writes byte for byte what McapWriter writes', async () => {
    const ours = new Sink();
    const w = new FlushableMcapWriter({ writable: ours, chunkSize: 16 * 1024, compressChunk });
    await writeSession(w);
    const theirs = new Sink();
    await writeSession(new McapWriter({ writable: { write: async (b) => theirs.write(b), position: () => theirs.position() }, chunkSize: 16 * 1024, compressChunk }));
    expect(Buffer.from(ours.bytes()).equals(Buffer.from(theirs.bytes()))).toBe(true);
    expect(w.statistics.chunkCount).toBeGreaterThan(5);
  });

  it('closed every 7 messages, the file is a valid indexed MCAP: every message, CRCs, chunk indexes, statistics', async () => {
    const sink = new Sink();
    const w = new FlushableMcapWriter({ writable: sink, chunkSize: 1 << 20, compressChunk });
    await writeSession(w, (i) => {
      if (i % 7 === 6) w.flushChunk();
    });
    const bytes = sink.bytes();
    const reader = await McapIndexedReader.Initialize({ readable: readable(bytes), decompressHandlers: { zstd: (buf, size) => zstd.decompress(buf, Number(size)) } });
    expect(reader.chunkIndexes.length).toBe(Math.ceil(600 / 7));
    expect(reader.statistics?.messageCount).toBe(600n);
    expect(reader.statistics?.chunkCount).toBe(Math.ceil(600 / 7));
    expect([...reader.channelsById.values()].map((c) => c.topic)).toEqual(['/a', '/b']);
    expect(reader.attachmentIndexes.map((a) => a.name)).toEqual(['map.json']);
    expect(reader.metadataIndexes.map((m) => m.name)).toEqual(['vils.session']);
    const seqs: number[] = [];
    for await (const m of reader.readMessages({ validateCrcs: true })) seqs.push(m.sequence);
    expect(seqs).toEqual(Array.from({ length: 600 }, (_, i) => i));
    const whole = streamRead(bytes);
    expect(whole).toEqual({ sequences: seqs, done: true });
  });

  it('a file cut where a closed chunk ends reads every message written before the cut', async () => {
    const sink = new Sink();
    const w = new FlushableMcapWriter({ writable: sink, chunkSize: 1 << 20, compressChunk });
    /** the file length after each flush, and how many messages were in by then */
    const cuts: Array<{ at: bigint; messages: number }> = [];
    await writeSession(w, (i) => {
      if (i % 50 === 49) {
        w.flushChunk();
        expect(w.chunkMessages).toBe(0);
        cuts.push({ at: sink.pos, messages: i + 1 });
      }
    });
    const bytes = sink.bytes();
    for (const c of cuts.slice(0, -1)) {
      const got = streamRead(bytes.subarray(0, Number(c.at)));
      expect(got.done).toBe(false);
      expect(got.sequences).toEqual(Array.from({ length: c.messages }, (_, i) => i));
      // and cut anywhere inside the next chunk: the same messages, none of the next
      const mid = streamRead(bytes.subarray(0, Number(c.at) + 100));
      expect(mid.sequences.length).toBe(c.messages);
    }
  });
});

describe('RecordingWriter: when chunks are written', () => {
  const channels: ChannelSpec[] = [{ topic: '/f', schema: null, messageEncoding: 'json' }];
  const dirs: string[] = [];
  const open = (flushS: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-flush-'));
    dirs.push(dir);
    return RecordingWriter.open({ dir, baseName: 'vils-t', maxFileBytes: 1 << 30, maxTotalBytes: 0, flushS }, channels);
  };
  const turn = () => new Promise<void>((r) => setImmediate(r));
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** 100 frames, one an event-loop turn, 0.05 s of simulation time apart: 5 s of simulation time in moments */
  async function frames(w: RecordingWriter): Promise<void> {
    for (let i = 0; i < 100; i++) {
      w.simTime(i * 0.05);
      w.write(0, BigInt(i + 1), JSON.stringify({ i, pad: 'x'.repeat(200) }));
      await turn();
    }
  }

  /** the chunks of the finished file, each with its frames */
  async function chunksOf(file: string): Promise<number[]> {
    const reader = await McapIndexedReader.Initialize({ readable: readable(readFileSync(file)), decompressHandlers: { zstd: (buf, size) => zstd.decompress(buf, Number(size)) } });
    return reader.chunkIndexes.map((c) => Number(c.messageEndTime - c.messageStartTime) + 1);
  }

  it('by simulation time: a clock faster than real time gets a chunk every 0.25 s of it', async () => {
    const w = await open(0.25);
    await frames(w);
    const [file] = await w.close();
    // a chunk every 6 frames (0.25 s of simulation time spans 5 gaps of 0.05 s); a slow machine closes some
    // sooner by wall-clock time, never later
    const chunks = await chunksOf(file);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(100 / 6));
    expect(Math.max(...chunks)).toBeLessThanOrEqual(6);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('flushS 0 is the old policy: by size only (one chunk, written at the end)', async () => {
    const w = await open(0);
    await frames(w);
    expect(w.stats.chunks).toBe(0);
    const [file] = await w.close();
    expect(await chunksOf(file)).toEqual([100]);
  });

  it('by wall-clock time: a chunk nothing more comes after is written all the same', async () => {
    const w = await open(0.25);
    w.write(0, 1n, '{"only":1}');
    for (const deadline = Date.now() + 30_000; w.stats.chunks < 1; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error('the lone chunk was not written within 30 s (hang guard)');
    }
    expect(w.stats.writeCalls).toBeGreaterThan(0);
    await w.close();
  });
});
