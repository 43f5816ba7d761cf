/**
 * src/record — recordings and replay: the MCAP writer (its thread compresses and writes), the reader, the
 * scene-call log, exact NPC-state encodings, Foxglove message builders, and exact replay on simulation time.
 * The server-side wiring (what is recorded from a live host) is src/server/recording.ts.
 */
export * from './exact.js';
export * from './foxglove-messages.js';
export * from './log.js';
export * from './reader.js';
export * from './replay.js';
export * from './writer.js';
