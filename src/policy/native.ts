/**
 * onnxruntime-node's native session, called directly: its run() is synchronous (the package's own `run()` wraps
 * it in a setImmediate), so a policy step never yields to the event loop in its middle. Shared by the in-thread
 * PolicySession and the inference thread (inference-worker.ts), which each load the model into one.
 */
import { createRequire } from 'node:module';
import type { BoundTensor } from './rows.js';

export type Feeds = Readonly<Record<string, BoundTensor>>;

export interface NativeSession {
  run(feeds: Feeds, fetches: Feeds, options: object): unknown;
  dispose(): void;
}

interface NativeBinding {
  InferenceSession: new () => NativeSession & {
    loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: object): void;
  };
}

let nativeBinding: NativeBinding | null = null;
/**
 * onnxruntime-node's native binding. It is where onnxruntime-node 1.2x and 1.30 keep it; a version without it is
 * refused with the reason.
 */
function loadNativeBinding(): NativeBinding {
  if (nativeBinding) return nativeBinding;
  let found: NativeBinding | null = null;
  let why = 'it has no InferenceSession';
  try {
    const require = createRequire(import.meta.url);
    const m = require('onnxruntime-node/dist/binding.js') as { binding: NativeBinding; initOrt: () => void };
    m.initOrt();
    if (typeof m.binding?.InferenceSession === 'function') found = m.binding;
  } catch (err) {
    why = (err as Error).message;
  }
  if (!found) throw new Error(`onnxruntime-node's native binding (onnxruntime-node/dist/binding.js) is not usable: ${why}. VILS runs the policy synchronously through it; install the onnxruntime-node version in package.json`);
  nativeBinding = found;
  return found;
}

/**
 * A native session on an ONNX graph. `memPattern`: memory patterns are planned per input shape, so only for
 * graphs whose shapes stay (the full graph; the rows graph's change every step).
 */
export function loadNativeSession(graph: Uint8Array, intraOpThreads: number, memPattern: boolean): NativeSession {
  const native = new (loadNativeBinding().InferenceSession)();
  native.loadModel(graph.buffer as ArrayBuffer, graph.byteOffset, graph.byteLength, {
    intraOpNumThreads: intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential' as const,
    graphOptimizationLevel: 'all' as const,
    enableMemPattern: memPattern,
  });
  return native;
}
