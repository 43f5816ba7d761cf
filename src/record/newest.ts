/**
 * The newest recording of a folder that holds something to replay: `vils replay recordings/` (the README's way).
 * By modification time, newest first, the first whose session has at least one frame — a server stopped before
 * its first frame, or any file that is not a recording, is passed over and named.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRecording } from './reader.js';

const FRAME_TOPICS: ReadonlySet<string> = new Set(['/vils/frame']);

/** Does the file hold a /vils/frame message? Reads up to the first one (a cut-short file as far as it goes). */
export async function holdsFrames(file: string): Promise<boolean> {
  try {
    for await (const item of readRecording(file, { topics: FRAME_TOPICS })) if (item.type === 'message') return true;
  } catch {
    /* not a recording, or broken before its first frame */
  }
  return false;
}

export interface NewestRecording {
  /** the newest recording with frames, or null */
  file: string | null;
  /** newer .mcap files passed over for holding no frame */
  empty: string[];
}

export async function newestRecording(dir: string): Promise<NewestRecording> {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.mcap'))
    .map((n) => ({ path: join(dir, n), mtimeMs: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? 1 : -1));
  const empty: string[] = [];
  for (const f of files) {
    if (await holdsFrames(f.path)) return { file: f.path, empty };
    empty.push(f.path);
  }
  return { file: null, empty };
}
