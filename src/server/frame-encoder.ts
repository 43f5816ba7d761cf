/**
 * The frame-encoder sink of a hosted scene: each published frame built into its wire form once, encoded once as
 * JSON (and once as binary when a client asked for it) for every consumer — the stream clients, the recorder,
 * Foxglove — and broadcast to the stream clients, with the encoding and step timings the status shows.
 */
import type { GeoFrame } from '../geo/frame.js';
import type { ClientRegistry } from './clients.js';
import { RollingStats } from '../util/rolling-stats.js';
import type { FrameSink, PublishedFrame } from '../session/runner.js';
import { NpcFrameBuilder, type NpcStatesFrame } from './wire.js';
import type { SignalEntry } from '../scene/signals/signal-entries.js';
import { encodeNpcStatesBinary } from './wire-binary.js';

export class FrameEncoder implements FrameSink {
  readonly encodeMs = new RollingStats(600);
  readonly broadcastMs = new RollingStats(600);
  /** per policy step (from the frames; a batch of steps shows its last): inference and the whole step [ms] */
  readonly inferenceMs = new RollingStats(600);
  readonly stepMs = new RollingStats(600);
  lastFrame: PublishedFrame | null = null;
  private lastTimings: unknown = null;
  private textFrame: PublishedFrame | null = null;
  private text = '';
  private wireFrame: PublishedFrame | null = null;
  private wire: NpcStatesFrame | null = null;
  /** the frames' NPC entries (reused) and their projections (once per NPC and position) */
  private readonly builder = new NpcFrameBuilder();
  private binaryFrame: PublishedFrame | null = null;
  private binary: Buffer = Buffer.alloc(0);

  constructor(private readonly geo: GeoFrame, private readonly clients: ClientRegistry) {}

  publish(frame: PublishedFrame): void {
    this.lastFrame = frame;
    const timings = frame.snapshot.timings;
    if (timings && timings !== this.lastTimings) {
      this.lastTimings = timings;
      this.inferenceMs.push(timings.inference_ms);
      this.stepMs.push(timings.scene_ms);
    }
    if (this.clients.size === 0) return;
    const t0 = performance.now();
    const text = this.frameText(frame);
    const t1 = performance.now();
    this.clients.broadcast(text, () => this.frameBinary(frame));
    this.encodeMs.push(t1 - t0);
    this.broadcastMs.push(performance.now() - t0);
  }

  /** The npc_states JSON of a frame, encoded once for every consumer (clients, recorder, Foxglove). */
  frameText(frame: PublishedFrame): string {
    if (this.textFrame !== frame) {
      this.text = JSON.stringify(this.wireFrameOf(frame));
      this.textFrame = frame;
    }
    return this.text;
  }

  /** The binary npc_states of a frame (wire-binary.ts), encoded once for every client that asked for it. */
  frameBinary(frame: PublishedFrame): Buffer {
    if (this.binaryFrame !== frame) {
      this.binary = encodeNpcStatesBinary(this.wireFrameOf(frame));
      this.binaryFrame = frame;
    }
    return this.binary;
  }

  /** The signal group states of a frame as the JSON frame carries them. */
  frameSignals(frame: PublishedFrame): SignalEntry[] {
    return this.wireFrameOf(frame).signals ?? [];
  }

  /** The wire form of a frame, built once for its JSON and binary encodings (its NPC entries are reused by the next frame's). */
  private wireFrameOf(frame: PublishedFrame): NpcStatesFrame {
    if (this.wireFrame !== frame || !this.wire) {
      this.wire = this.builder.build(this.geo, frame.snapshot, frame.state, frame.wallTimeS);
      this.wireFrame = frame;
    }
    return this.wire;
  }
}
