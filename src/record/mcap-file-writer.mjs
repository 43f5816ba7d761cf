// @ts-check
/**
 * An MCAP file writer whose open chunk can be closed at any moment (`flushChunk`), for the writer thread
 * (mcap-worker.mjs): @mcap/core's McapWriter closes a chunk only when it passes its size, and nothing else can
 * close it (its #finalizeChunk is private), so a process killed mid-chunk loses everything since the last full
 * chunk (1 MB of records: 2.3 s of the default scene, 20 NPCs at 10 Hz). This is McapWriter (@mcap/core 2.2.2, MIT,
 * src/McapWriter.ts) without append mode, with synchronous writes (the thread may block; the server's loop
 * never waits for it), the same records in the same order, built with @mcap/core's own McapRecordBuilder and
 * McapChunkBuilder: chunked and indexed (message indexes after every chunk; in the summary the schemas,
 * channels, statistics, metadata, attachment and chunk indexes, and the summary offsets).
 */
import * as zlib from 'node:zlib';
import { McapChunkBuilder, McapRecordBuilder, Opcode } from '@mcap/core';

/** @type {Uint32Array | null} */
let table = null;
/**
 * CRC-32 (IEEE, as MCAP uses) of `data` continued from `crc` (the CRC of what came before; 0 at the start).
 * @param {Uint8Array} data @param {number} crc
 */
function crc32(data, crc = 0) {
  // node:zlib has it from Node 20.15; before, a table
  if (typeof zlib.crc32 === 'function') return zlib.crc32(data, crc);
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * The summary's chunk indexes, packed in growing typed arrays: a segment closes a chunk every 0.25 s (4 a second,
 * 512 MB take about an hour), and as objects (a Map of the channels' message-index offsets, BigInts) each took
 * ~1.1 kB of the writer thread's heap, 0.23 MB a minute until the segment ends; packed, ~0.25 kB. `at(i)` gives
 * back the record McapRecordBuilder.writeChunkIndex takes, its offsets in the order they were added.
 */
class ChunkIndexList {
  constructor() {
    this.length = 0;
    /** per chunk: messageStartTime, messageEndTime, chunkStartOffset, chunkLength, messageIndexLength, compressedSize, uncompressedSize */
    this.fixed = new BigUint64Array(7 * 256);
    /** per chunk: where its (channel id, offset) pairs start in `pairs`, and the compression's index in `compressions` */
    this.pairStart = new Uint32Array(257);
    this.compression = new Uint8Array(256);
    /** channel id, message index offset, … */
    this.pairs = new BigUint64Array(2 * 4096);
    /** @type {string[]} */
    this.compressions = [];
  }

  /** @template {BigUint64Array | Uint32Array | Uint8Array} T @param {T} a @param {number} need @returns {T} */
  static grow(a, need) {
    if (need <= a.length) return a;
    let n = a.length * 2;
    while (n < need) n *= 2;
    const b = /** @type {T} */ (new /** @type {any} */ (a.constructor)(n));
    b.set(/** @type {any} */ (a));
    return b;
  }

  /** @param {{ messageStartTime: bigint, messageEndTime: bigint, chunkStartOffset: bigint, chunkLength: bigint, messageIndexOffsets: Map<number, bigint>, messageIndexLength: bigint, compression: string, compressedSize: bigint, uncompressedSize: bigint }} c */
  push(c) {
    const i = this.length;
    this.fixed = ChunkIndexList.grow(this.fixed, 7 * (i + 1));
    this.pairStart = ChunkIndexList.grow(this.pairStart, i + 2);
    this.compression = ChunkIndexList.grow(this.compression, i + 1);
    const f = this.fixed, o = 7 * i;
    f[o] = c.messageStartTime;
    f[o + 1] = c.messageEndTime;
    f[o + 2] = c.chunkStartOffset;
    f[o + 3] = c.chunkLength;
    f[o + 4] = c.messageIndexLength;
    f[o + 5] = c.compressedSize;
    f[o + 6] = c.uncompressedSize;
    let k = this.compressions.indexOf(c.compression);
    if (k < 0) k = this.compressions.push(c.compression) - 1;
    if (k > 255) throw new Error('ChunkIndexList: more than 256 compressions');
    this.compression[i] = k;
    let p = this.pairStart[i];
    this.pairs = ChunkIndexList.grow(this.pairs, p + 2 * c.messageIndexOffsets.size);
    for (const [channelId, offset] of c.messageIndexOffsets) {
      this.pairs[p++] = BigInt(channelId);
      this.pairs[p++] = offset;
    }
    this.pairStart[i + 1] = p;
    this.length++;
  }

  /** @param {number} i */
  at(i) {
    const f = this.fixed, o = 7 * i;
    /** @type {Map<number, bigint>} */
    const messageIndexOffsets = new Map();
    for (let p = this.pairStart[i]; p < this.pairStart[i + 1]; p += 2) messageIndexOffsets.set(Number(this.pairs[p]), this.pairs[p + 1]);
    return {
      messageStartTime: f[o], messageEndTime: f[o + 1], chunkStartOffset: f[o + 2], chunkLength: f[o + 3], messageIndexOffsets,
      messageIndexLength: f[o + 4], compression: this.compressions[this.compression[i]], compressedSize: f[o + 5], uncompressedSize: f[o + 6],
    };
  }
}

/**
 * @typedef {{ write(buffer: Uint8Array): void, position(): bigint }} SyncWritable
 * @typedef {(chunkData: Uint8Array) => { compression: string, compressedData: Uint8Array }} CompressChunk
 */

export class FlushableMcapWriter {
  /** @param {{ writable: SyncWritable, chunkSize?: number, compressChunk?: CompressChunk }} options */
  constructor({ writable, chunkSize = 1024 * 1024, compressChunk }) {
    this.writable = writable;
    this.chunkSize = chunkSize;
    this.compressChunk = compressChunk;
    this.records = new McapRecordBuilder();
    this.chunk = new McapChunkBuilder({ useMessageIndex: true });
    this.nextSchemaId = 1;
    this.nextChannelId = 0;
    /** @type {Map<number, any>} */
    this.schemas = new Map();
    /** @type {Map<number, any>} */
    this.channels = new Map();
    /** @type {Set<number>} */
    this.writtenSchemaIds = new Set();
    /** @type {Set<number>} */
    this.writtenChannelIds = new Set();
    /** CRC-32 of the data section so far */
    this.dataSectionCrc = 0;
    this.statistics = {
      messageCount: 0n, schemaCount: 0, channelCount: 0, attachmentCount: 0, metadataCount: 0, chunkCount: 0,
      messageStartTime: 0n, messageEndTime: 0n, /** @type {Map<number, bigint>} */ channelMessageCounts: new Map(),
    };
    this.chunkIndexes = new ChunkIndexList();
    /** @type {any[]} */
    this.attachmentIndexes = [];
    /** @type {any[]} */
    this.metadataIndexes = [];
  }

  /** messages in the open chunk (not yet in the file) */
  get chunkMessages() {
    return this.chunk.numMessages;
  }

  /** Writes the data-section records built so far. */
  writeData() {
    const buf = this.records.buffer;
    if (buf.byteLength === 0) return;
    this.dataSectionCrc = crc32(buf, this.dataSectionCrc);
    this.writable.write(buf);
    this.records.reset();
  }

  /** @param {{ profile: string, library: string }} header */
  start(header) {
    this.records.writeMagic();
    this.records.writeHeader(header);
    this.writeData();
  }

  /** @param {{ name: string, encoding: string, data: Uint8Array }} info */
  registerSchema(info) {
    const id = this.nextSchemaId++;
    this.schemas.set(id, { ...info, id });
    this.statistics.schemaCount++;
    return id;
  }

  /** @param {{ topic: string, messageEncoding: string, schemaId: number, metadata: Map<string, string> }} info */
  registerChannel(info) {
    const id = this.nextChannelId++;
    this.channels.set(id, { ...info, id });
    this.statistics.channelCount++;
    return id;
  }

  /** @param {{ channelId: number, sequence: number, logTime: bigint, publishTime: bigint, data: Uint8Array }} message */
  addMessage(message) {
    const st = this.statistics;
    if (st.messageCount === 0n) {
      st.messageStartTime = message.logTime;
      st.messageEndTime = message.logTime;
    } else {
      if (message.logTime < st.messageStartTime) st.messageStartTime = message.logTime;
      if (message.logTime > st.messageEndTime) st.messageEndTime = message.logTime;
    }
    st.channelMessageCounts.set(message.channelId, (st.channelMessageCounts.get(message.channelId) ?? 0n) + 1n);
    st.messageCount++;
    // the channel (and its schema) go into the chunk where the channel is first used
    if (!this.writtenChannelIds.has(message.channelId)) {
      const channel = this.channels.get(message.channelId);
      if (!channel) throw new Error(`addMessage: no channel ${message.channelId}`);
      if (channel.schemaId !== 0 && !this.writtenSchemaIds.has(channel.schemaId)) {
        const schema = this.schemas.get(channel.schemaId);
        if (!schema) throw new Error(`addMessage: no schema ${channel.schemaId}`);
        this.chunk.addSchema(schema);
        this.writtenSchemaIds.add(channel.schemaId);
      }
      this.chunk.addChannel(channel);
      this.writtenChannelIds.add(message.channelId);
    }
    this.chunk.addMessage(message);
    if (this.chunk.byteLength > this.chunkSize) this.flushChunk();
  }

  /** @param {{ name: string, mediaType: string, logTime: bigint, createTime: bigint, data: Uint8Array }} attachment */
  addAttachment(attachment) {
    const length = this.records.writeAttachment(attachment);
    this.statistics.attachmentCount++;
    this.attachmentIndexes.push({
      logTime: attachment.logTime, createTime: attachment.createTime, name: attachment.name, mediaType: attachment.mediaType,
      offset: this.writable.position(), dataSize: BigInt(attachment.data.byteLength), length,
    });
    this.writeData();
  }

  /** @param {{ name: string, metadata: Map<string, string> }} metadata */
  addMetadata(metadata) {
    const length = this.records.writeMetadata(metadata);
    this.statistics.metadataCount++;
    this.metadataIndexes.push({ name: metadata.name, offset: this.writable.position(), length });
    this.writeData();
  }

  /** Closes the open chunk: compressed, written with its message indexes. Nothing to do when it is empty. */
  flushChunk() {
    const chunk = this.chunk;
    if (chunk.numMessages === 0) return;
    this.statistics.chunkCount++;
    const chunkData = chunk.buffer;
    let compression = '';
    let compressedData = chunkData;
    if (this.compressChunk) ({ compression, compressedData } = this.compressChunk(chunkData));
    const chunkRecord = {
      messageStartTime: chunk.messageStartTime, messageEndTime: chunk.messageEndTime,
      uncompressedSize: BigInt(chunkData.length), uncompressedCrc: crc32(chunkData), compression, records: compressedData,
    };
    const chunkStartOffset = this.writable.position();
    const chunkLength = this.records.writeChunk(chunkRecord);
    this.writeData();
    const messageIndexStart = this.writable.position();
    let messageIndexLength = 0n;
    /** @type {Map<number, bigint>} */
    const messageIndexOffsets = new Map();
    for (const index of chunk.indices) {
      messageIndexOffsets.set(index.channelId, messageIndexStart + messageIndexLength);
      messageIndexLength += this.records.writeMessageIndex(index);
    }
    this.chunkIndexes.push({
      messageStartTime: chunkRecord.messageStartTime, messageEndTime: chunkRecord.messageEndTime, chunkStartOffset, chunkLength,
      messageIndexOffsets, messageIndexLength, compression, compressedSize: BigInt(compressedData.byteLength), uncompressedSize: chunkRecord.uncompressedSize,
    });
    chunk.reset();
    this.writeData();
  }

  /** Closes the open chunk and writes the data end, the summary and the footer. */
  end() {
    this.flushChunk();
    this.records.writeDataEnd({ dataSectionCrc: this.dataSectionCrc });
    this.writable.write(this.records.buffer);
    this.records.reset();

    const w = this.writable;
    const r = this.records;
    /** @type {Array<{ groupOpcode: number, groupStart: bigint, groupLength: bigint }>} */
    const offsets = [];
    const summaryStart = w.position();
    let summaryCrc = 0;
    const flush = () => {
      summaryCrc = crc32(r.buffer, summaryCrc);
      w.write(r.buffer);
      r.reset();
    };
    /** @param {number} groupOpcode @param {() => bigint} writeGroup */
    const group = (groupOpcode, writeGroup) => {
      flush();
      const groupStart = w.position();
      offsets.push({ groupOpcode, groupStart, groupLength: writeGroup() });
    };
    group(Opcode.SCHEMA, () => [...this.schemas.values()].reduce((n, s) => n + r.writeSchema(s), 0n));
    group(Opcode.CHANNEL, () => [...this.channels.values()].reduce((n, c) => n + r.writeChannel(c), 0n));
    group(Opcode.STATISTICS, () => r.writeStatistics(this.statistics));
    group(Opcode.METADATA_INDEX, () => this.metadataIndexes.reduce((n, m) => n + r.writeMetadataIndex(m), 0n));
    group(Opcode.ATTACHMENT_INDEX, () => this.attachmentIndexes.reduce((n, a) => n + r.writeAttachmentIndex(a), 0n));
    group(Opcode.CHUNK_INDEX, () => {
      let n = 0n;
      for (let i = 0; i < this.chunkIndexes.length; i++) n += r.writeChunkIndex(this.chunkIndexes.at(i));
      return n;
    });
    flush();
    const summaryOffsetStart = w.position();
    const summaryLength = summaryOffsetStart - summaryStart;
    for (const o of offsets) if (o.groupLength !== 0n) r.writeSummaryOffset(o);
    summaryCrc = crc32(r.buffer, summaryCrc);
    const footer = { summaryStart: summaryLength === 0n ? 0n : summaryStart, summaryOffsetStart, summaryCrc: 0 };
    // the summary CRC covers the footer's opcode, length and two offsets too
    const head = new DataView(new ArrayBuffer(1 + 8 + 8 + 8));
    head.setUint8(0, Opcode.FOOTER);
    head.setBigUint64(1, 8n + 8n + 4n, true);
    head.setBigUint64(1 + 8, footer.summaryStart, true);
    head.setBigUint64(1 + 8 + 8, footer.summaryOffsetStart, true);
    footer.summaryCrc = crc32(new Uint8Array(head.buffer), summaryCrc);
    r.writeFooter(footer);
    r.writeMagic();
    w.write(r.buffer);
    r.reset();
  }
}
