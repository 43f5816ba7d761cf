/** Types of mcap-file-writer.mjs (plain JavaScript, for the writer thread). */
import type { McapTypes } from '@mcap/core';

export interface SyncWritable {
  write(buffer: Uint8Array): void;
  position(): bigint;
}

export type CompressChunk = (chunkData: Uint8Array) => { compression: string; compressedData: Uint8Array };

export class FlushableMcapWriter {
  constructor(options: { writable: SyncWritable; chunkSize?: number; compressChunk?: CompressChunk });
  readonly statistics: McapTypes.Statistics;
  /** messages in the open chunk (not yet in the file) */
  get chunkMessages(): number;
  start(header: McapTypes.Header): void;
  registerSchema(info: Omit<McapTypes.Schema, 'id'>): number;
  registerChannel(info: Omit<McapTypes.Channel, 'id'>): number;
  addMessage(message: McapTypes.Message): void;
  addAttachment(attachment: McapTypes.Attachment): void;
  addMetadata(metadata: McapTypes.Metadata): void;
  /** Closes the open chunk: compressed and written with its message indexes (nothing when it is empty). */
  flushChunk(): void;
  /** Closes the open chunk and writes the data end, the summary and the footer. */
  end(): void;
}
