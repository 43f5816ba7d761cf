/**
 * The public protocol's messages, each defined once: as a JSON schema (`as const`), with its TypeScript type
 * derived from it. Nothing here runs on import, so the page (src/web) takes its types from here without pulling
 * server code into its bundle.
 */
export * from './frame.js';
export * from './map.js';
export * from './npc-view.js';
export type { WireType } from './derive.js';
