/**
 * Reads a torch `.pt` file (the zip format of torch >= 1.6) without Python:
 * `<archive>/data.pkl` is a pickle whose tensors point at raw little-endian storages `<archive>/data/<key>`.
 */
import { unzipSync } from 'fflate';
import { PyDict, readPickle, type PyValue, type TorchTensorRef } from './pickle.js';

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

export interface Float32Tensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

export interface TorchCheckpoint {
  /** Top-level pickled object (for GPUDrive: a dict with `parameters`, `model_arch`, `update`, ...). */
  readonly root: PyValue;
  /** Every float32 tensor reachable from the state dict, by its state-dict name, contiguous copies. */
  readonly stateDict: Map<string, Float32Tensor>;
  readonly archiveName: string;
}

/** Parses a torch zip checkpoint held in memory. `label` names the file in error messages. */
export function readTorchCheckpoint(bytes: Uint8Array, label = 'checkpoint'): TorchCheckpoint {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (err) {
    throw new CheckpointError(
      `${label}: not a readable torch checkpoint (the zip archive is truncated or corrupt: ${(err as Error).message})`,
    );
  }
  const pklName = Object.keys(files).find((n) => n.endsWith('/data.pkl') || n === 'data.pkl');
  if (!pklName) throw new CheckpointError(`${label}: no data.pkl in the archive: not a torch checkpoint in zip format`);
  const prefix = pklName.slice(0, pklName.length - 'data.pkl'.length);
  let root: PyValue;
  try {
    root = readPickle(files[pklName]);
  } catch (err) {
    throw new CheckpointError(`${label}: ${(err as Error).message}`);
  }
  const byteOrder = files[`${prefix}byteorder`];
  if (byteOrder && new TextDecoder().decode(byteOrder).trim() !== 'little') {
    throw new CheckpointError(`${label}: big-endian checkpoints are not supported`);
  }

  const params = stateDictOf(root);
  const stateDict = new Map<string, Float32Tensor>();
  for (const [name, value] of params) {
    if (!isTensor(value) || value.storage.dtype !== 'float32') continue;
    stateDict.set(String(name), materialise(value, files, prefix, label, String(name)));
  }
  return { root, stateDict, archiveName: prefix.replace(/\/$/, '') };
}

/** GPUDrive saves {parameters: state_dict, ...}; a bare state_dict is accepted too. */
function stateDictOf(root: PyValue): PyDict {
  if (root instanceof PyDict) {
    for (const key of ['parameters', 'state_dict', 'model_state_dict']) {
      const v = root.get(key);
      if (v instanceof PyDict) return v;
    }
    return root;
  }
  throw new CheckpointError('checkpoint root is not a dict');
}

function isTensor(v: PyValue): v is TorchTensorRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Map) && v.kind === 'tensor';
}

function materialise(t: TorchTensorRef, files: Record<string, Uint8Array>, prefix: string, label: string, name: string): Float32Tensor {
  const raw = files[`${prefix}data/${t.storage.key}`];
  if (!raw) throw new CheckpointError(`${label}: storage ${t.storage.key} of tensor ${name} is missing from the archive`);
  if (raw.length < t.storage.numel * 4) {
    throw new CheckpointError(`${label}: storage ${t.storage.key} of tensor ${name} is truncated (${raw.length} bytes, ${t.storage.numel * 4} expected)`);
  }
  const numel = t.shape.reduce((a, b) => a * b, 1);
  // Contiguous row-major check: the only layout a saved state_dict has.
  let expected = 1;
  for (let d = t.shape.length - 1; d >= 0; d--) {
    if (t.shape[d] !== 1 && t.stride[d] !== expected) throw new CheckpointError(`${label}: tensor ${name} is not contiguous`);
    expected *= t.shape[d];
  }
  if (t.offset + numel > t.storage.numel) throw new CheckpointError(`${label}: tensor ${name} runs past its storage`);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const data = new Float32Array(numel);
  for (let i = 0; i < numel; i++) data[i] = view.getFloat32((t.offset + i) * 4, true);
  return { shape: [...t.shape], data };
}
