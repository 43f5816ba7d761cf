/**
 * The MCAP writer's chunk indexes in fixed-size records (issue 26, item 6: the soak). The writer thread closes a
 * chunk every 0.25 s and keeps each chunk's index for the summary until the segment ends (about an hour at 512 MB);
 * as objects (a Map of offsets, BigInts) they took ~1.1 kB each, 0.23 MB a minute of the thread's heap. Packed in
 * typed arrays: the objects reachable from them do not grow with the chunks, the elements grow by a fixed count per
 * chunk, and the file is still byte for byte what @mcap/core's McapWriter writes.
 */
import { McapWriter, type McapTypes } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import { FlushableMcapWriter } from '../../src/record/mcap-file-writer.mjs';

class Sink {
  parts: Uint8Array[] = [];
  pos = 0n;
  write(b: Uint8Array): void {
    this.parts.push(b.slice());
    this.pos += BigInt(b.byteLength);
  }
  position(): bigint {
    return this.pos;
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const enc = new TextEncoder();

/** 3 channels, `n` messages; chunkSize 1: every message closes a chunk (in either writer). */
async function write(w: {
  start(h: McapTypes.Header): unknown; registerChannel(c: Omit<McapTypes.Channel, 'id'>): number | Promise<number>; addMessage(m: McapTypes.Message): unknown; end(): unknown;
}, n: number): Promise<void> {
  await w.start({ profile: '', library: 'vils' });
  const ch = [await w.registerChannel({ topic: '/a', messageEncoding: 'json', schemaId: 0, metadata: new Map() }),
    await w.registerChannel({ topic: '/b', messageEncoding: 'json', schemaId: 0, metadata: new Map() }),
    await w.registerChannel({ topic: '/c', messageEncoding: 'json', schemaId: 0, metadata: new Map() })];
  for (let i = 0; i < n; i++) {
    await w.addMessage({ channelId: ch[i % 3], sequence: i, logTime: BigInt(1e9 + i * 1e6), publishTime: BigInt(1e9 + i * 1e6), data: enc.encode(`{"i":${i}}`) });
  }
}

/** Objects (not typed arrays) and typed-array elements reachable from `root`. */
function reachable(root: unknown): { objects: number; elements: number } {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let objects = 0, elements = 0;
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      elements += (v as unknown as { length: number }).length;
      continue;
    }
    objects++;
    if (Array.isArray(v)) objects += v.length;
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    for (const k of Object.getOwnPropertyNames(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return { objects, elements };
}

describe('FlushableMcapWriter chunk indexes', () => {
  it('300 vs 3,000 chunks: no more objects, a fixed number of elements per chunk, the same bytes as McapWriter', async () => {
    const counts: Array<{ objects: number; elements: number }> = [];
    for (const n of [300, 3000]) {
      const ours = new Sink();
      const w = new FlushableMcapWriter({ writable: ours, chunkSize: 1 });
      await write(w, n);
      expect(w.statistics.chunkCount).toBe(n);
      counts.push(reachable((w as unknown as { chunkIndexes: unknown }).chunkIndexes));
      w.end();
      const theirs = new Sink();
      const m = new McapWriter({ writable: { write: async (b) => theirs.write(b), position: () => theirs.position() }, chunkSize: 1 });
      await write(m, n);
      await m.end();
      expect(ours.bytes().equals(theirs.bytes())).toBe(true);
    }
    expect(counts[1].objects).toBe(counts[0].objects);
    // per chunk: 7 fixed fields, one (channel, offset) pair, its pair start and compression: 11, capacity doubling at most × 2
    expect(counts[1].elements).toBeLessThanOrEqual(2 * 11 * 3000 + 4096);
  });
});
