/**
 * Reading recordings: the records of one MCAP file in file order (= the order they were written, which is
 * the order things happened), streamed so a file of any size, or one cut short by a crash (no summary),
 * reads up to its last complete chunk; and the segments of one session (…-000.mcap, -001, …) in order.
 */
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { McapStreamReader, type McapTypes } from '@mcap/core';
import zstd from '@foxglove/wasm-zstd';

export interface RecordedMessage {
  topic: string;
  schemaName: string | null;
  logTime: bigint;
  data: Uint8Array;
}

export type RecordItem =
  | { type: 'message'; message: RecordedMessage }
  | { type: 'metadata'; name: string; metadata: Map<string, string> }
  | { type: 'attachment'; name: string; mediaType: string; data: Uint8Array };

export interface ReadOptions {
  /** only messages on these topics (metadata and attachments always) */
  topics?: ReadonlySet<string>;
}

/** Where a file stopped: complete (footer read) or cut short, with the bytes left unread. */
export interface ReadEnd {
  complete: boolean;
  trailingBytes: number;
}

const decoder = new TextDecoder();

export function decodeJson<T = unknown>(data: Uint8Array): T {
  return JSON.parse(decoder.decode(data)) as T;
}

/** Every record of a file in file order. `end` is filled in when the generator finishes. */
export async function* readRecording(path: string, opts: ReadOptions = {}, end?: ReadEnd): AsyncGenerator<RecordItem> {
  await zstd.isLoaded;
  const reader = new McapStreamReader({
    decompressHandlers: { zstd: (buf, size) => zstd.decompress(buf, Number(size)) },
    validateCrcs: true,
  });
  const channels = new Map<number, McapTypes.Channel>();
  const schemas = new Map<number, McapTypes.Schema>();
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const chunk of stream) {
    reader.append(chunk as Buffer);
    for (let r: McapTypes.TypedMcapRecord | undefined; (r = reader.nextRecord()); ) {
      switch (r.type) {
        case 'Schema': schemas.set(r.id, r); break;
        case 'Channel': channels.set(r.id, r); break;
        case 'Message': {
          const ch = channels.get(r.channelId);
          if (!ch) throw new Error(`${path}: message on unknown channel ${r.channelId}`);
          if (opts.topics && !opts.topics.has(ch.topic)) break;
          yield { type: 'message', message: { topic: ch.topic, schemaName: schemas.get(ch.schemaId)?.name ?? null, logTime: r.logTime, data: r.data } };
          break;
        }
        case 'Metadata': yield { type: 'metadata', name: r.name, metadata: r.metadata }; break;
        case 'Attachment': yield { type: 'attachment', name: r.name, mediaType: r.mediaType, data: r.data }; break;
        default: break;
      }
    }
  }
  if (end) {
    end.complete = reader.done();
    end.trailingBytes = reader.bytesRemaining();
  }
}

const SEGMENT = /^(.*)-(\d{3})\.mcap$/;

/**
 * The segments of the session a file belongs to, from the first: <base>-000.mcap, -001, … as long as they
 * exist. Throws when the first segment is missing (exact replay starts from the session's start).
 */
export function sessionSegments(path: string): string[] {
  const m = SEGMENT.exec(basename(path));
  if (!m) return [path];
  const dir = dirname(path);
  const first = join(dir, `${m[1]}-000.mcap`);
  if (!existsSync(first)) {
    const have = readdirSync(dir).filter((n) => n.startsWith(`${m[1]}-`)).sort();
    throw new Error(`${path} is segment ${Number(m[2])} of a session whose first segment (${basename(first)}) is gone (the folder's size cap deletes the oldest files); segments here: ${have.join(', ') || 'none'}`);
  }
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const p = join(dir, `${m[1]}-${String(i).padStart(3, '0')}.mcap`);
    if (!existsSync(p)) break;
    out.push(p);
  }
  return out;
}

/**
 * Every record of a session's segments in order (metadata and latched repeats of later segments included).
 * `onEnd` hears how each file ended once it has been read to its end: complete, or cut short (a recording whose
 * process was killed has no footer, and perhaps half a record).
 */
export async function* readSession(
  files: readonly string[],
  opts: ReadOptions = {},
  onEnd?: (file: string, end: ReadEnd) => void,
): AsyncGenerator<RecordItem & { file: string; segment: number }> {
  for (const [segment, file] of files.entries()) {
    const end: ReadEnd = { complete: false, trailingBytes: 0 };
    for await (const item of readRecording(file, opts, end)) yield { ...item, file, segment };
    onEnd?.(file, end);
  }
}
