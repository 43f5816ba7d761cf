/**
 * A deliberately small pickle reader for `torch.save` checkpoints (pickle protocol 2, torch's default).
 *
 * It implements exactly the opcodes that `torch.save` of a dict of tensors (plus the plain Python and
 * numpy values that GPUDrive stores beside the weights) emits, and rejects every other opcode and every
 * global outside a short allow-list with a clear error. Nothing is ever executed: globals map to
 * pure-data constructors below, so an untrusted file can at worst be rejected.
 *
 * Opcodes (hex, pickle name):
 *   0x80 PROTO  0x2e STOP  0x28 MARK
 *   0x7d EMPTY_DICT  0x5d EMPTY_LIST  0x29 EMPTY_TUPLE
 *   0x74 TUPLE  0x85 TUPLE1  0x86 TUPLE2  0x87 TUPLE3
 *   0x4b BININT1  0x4d BININT2  0x4a BININT  0x8a LONG1  0x47 BINFLOAT
 *   0x4e NONE  0x88 NEWTRUE  0x89 NEWFALSE
 *   0x58 BINUNICODE  0x8c SHORT_BINUNICODE  0x42 BINBYTES  0x43 SHORT_BINBYTES
 *   0x71 BINPUT  0x72 LONG_BINPUT  0x68 BINGET  0x6a LONG_BINGET
 *   0x73 SETITEM  0x75 SETITEMS  0x61 APPEND  0x65 APPENDS
 *   0x63 GLOBAL  0x52 REDUCE  0x62 BUILD  0x51 BINPERSID
 *
 * Globals: collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch.*Storage,
 * numpy (core|_core).multiarray.scalar, numpy.dtype, _codecs.encode.
 */

export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PyValue[]
  | PyDict
  | TorchStorageRef
  | TorchTensorRef
  | NumpyDtype
  | PyGlobal;

/** A Python dict (and OrderedDict). Keys are strings or numbers, as in the checkpoints we read. */
export class PyDict extends Map<string | number, PyValue> {
  /** State given by BUILD (e.g. a state_dict's `_metadata`); kept, never interpreted. */
  buildState: PyValue = null;
}

export type StorageDtype = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';

export interface TorchStorageRef {
  readonly kind: 'storage';
  readonly key: string;
  readonly dtype: StorageDtype;
  readonly location: string;
  readonly numel: number;
}

export interface TorchTensorRef {
  readonly kind: 'tensor';
  readonly storage: TorchStorageRef;
  readonly offset: number;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
}

export interface NumpyDtype {
  readonly kind: 'numpy-dtype';
  readonly name: string;
  byteOrder: '<' | '>' | '|' | '=';
}

interface PyGlobal {
  readonly kind: 'global';
  readonly module: string;
  readonly name: string;
}

export class PickleError extends Error {
  constructor(message: string) {
    super(`pickle: ${message}`);
    this.name = 'PickleError';
  }
}

const STORAGE_DTYPES: Record<string, StorageDtype> = {
  FloatStorage: 'float32',
  DoubleStorage: 'float64',
  HalfStorage: 'float16',
  BFloat16Storage: 'bfloat16',
  LongStorage: 'int64',
  IntStorage: 'int32',
  ShortStorage: 'int16',
  CharStorage: 'int8',
  ByteStorage: 'uint8',
  BoolStorage: 'bool',
};

const ALLOWED_GLOBALS = new Set([
  'collections OrderedDict',
  'torch._utils _rebuild_tensor_v2',
  'numpy.core.multiarray scalar',
  'numpy._core.multiarray scalar',
  'numpy dtype',
  '_codecs encode',
  ...Object.keys(STORAGE_DTYPES).map((s) => `torch ${s}`),
]);

const MARK = Symbol('mark');
type StackItem = PyValue | typeof MARK;

const OPCODE_NAMES: Record<number, string> = {
  0x30: 'POP', 0x31: 'POP_MARK', 0x32: 'DUP', 0x46: 'FLOAT', 0x49: 'INT', 0x4c: 'LONG', 0x50: 'PERSID',
  0x53: 'STRING', 0x54: 'BINSTRING', 0x55: 'SHORT_BINSTRING', 0x56: 'UNICODE', 0x67: 'GET', 0x69: 'INST',
  0x6c: 'LIST', 0x64: 'DICT', 0x6f: 'OBJ', 0x70: 'PUT', 0x81: 'NEWOBJ', 0x82: 'EXT1', 0x8b: 'LONG4',
  0x8d: 'BINUNICODE8', 0x8e: 'BINBYTES8', 0x8f: 'EMPTY_SET', 0x90: 'ADDITEMS', 0x91: 'FROZENSET',
  0x92: 'NEWOBJ_EX', 0x93: 'STACK_GLOBAL', 0x94: 'MEMOIZE', 0x95: 'FRAME', 0x96: 'BYTEARRAY8',
  0x97: 'NEXT_BUFFER', 0x98: 'READONLY_BUFFER',
};

export interface PickleContext {
  /** Resolves a BINPERSID id tuple; torch uses ('storage', StorageType, key, location, numel). */
  persistentLoad(pid: PyValue): PyValue;
}

/** Parses a pickle stream into plain data. Throws PickleError for anything outside the subset. */
export function readPickle(bytes: Uint8Array, ctx: PickleContext = { persistentLoad: defaultPersistentLoad }): PyValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const stack: StackItem[] = [];
  const memo = new Map<number, PyValue>();
  let pos = 0;

  const need = (n: number): void => {
    if (pos + n > bytes.length) throw new PickleError(`unexpected end of data at offset ${pos} (needed ${n} more bytes)`);
  };
  const pop = (): PyValue => {
    const v = stack.pop();
    if (v === undefined || v === MARK) throw new PickleError(`stack underflow at offset ${pos}`);
    return v;
  };
  const top = (): PyValue => {
    const v = stack[stack.length - 1];
    if (v === undefined || v === MARK) throw new PickleError(`stack underflow at offset ${pos}`);
    return v;
  };
  const popMark = (): PyValue[] => {
    const i = stack.lastIndexOf(MARK);
    if (i < 0) throw new PickleError(`MARK expected on the stack at offset ${pos}`);
    const items = stack.splice(i + 1) as PyValue[];
    stack.pop();
    return items;
  };
  const readLine = (): string => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) throw new PickleError(`unterminated line at offset ${pos}`);
    const s = new TextDecoder('latin1').decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const setItems = (dict: PyValue, items: PyValue[]): void => {
    if (!(dict instanceof PyDict)) throw new PickleError(`SETITEM(S) on a non-dict at offset ${pos}`);
    if (items.length % 2 !== 0) throw new PickleError(`odd number of dict items at offset ${pos}`);
    for (let i = 0; i < items.length; i += 2) dict.set(dictKey(items[i]), items[i + 1]);
  };

  for (;;) {
    need(1);
    const op = bytes[pos++];
    switch (op) {
      case 0x80: // PROTO
        need(1);
        if (bytes[pos] > 2) throw new PickleError(`pickle protocol ${bytes[pos]} is not supported (torch.save writes protocol 2)`);
        pos += 1;
        break;
      case 0x2e: // STOP
        if (stack.length !== 1) throw new PickleError(`STOP with ${stack.length} items on the stack`);
        return pop();
      case 0x28: stack.push(MARK); break;
      case 0x7d: stack.push(new PyDict()); break;
      case 0x5d: stack.push([]); break;
      case 0x29: stack.push([]); break;
      case 0x74: stack.push(popMark()); break;
      case 0x85: { const a = pop(); stack.push([a]); break; }
      case 0x86: { const b = pop(); const a = pop(); stack.push([a, b]); break; }
      case 0x87: { const c = pop(); const b = pop(); const a = pop(); stack.push([a, b, c]); break; }
      case 0x4b: need(1); stack.push(bytes[pos]); pos += 1; break;
      case 0x4d: need(2); stack.push(view.getUint16(pos, true)); pos += 2; break;
      case 0x4a: need(4); stack.push(view.getInt32(pos, true)); pos += 4; break;
      case 0x8a: { // LONG1: little-endian two's complement of n bytes
        need(1);
        const n = bytes[pos++];
        need(n);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[pos + i]);
        if (n > 0 && bytes[pos + n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        pos += n;
        stack.push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
        break;
      }
      case 0x47: need(8); stack.push(view.getFloat64(pos, false)); pos += 8; break;
      case 0x4e: stack.push(null); break;
      case 0x88: stack.push(true); break;
      case 0x89: stack.push(false); break;
      case 0x58: { need(4); const n = view.getUint32(pos, true); pos += 4; need(n); stack.push(decodeUtf8(utf8, bytes.subarray(pos, pos + n), pos)); pos += n; break; }
      case 0x8c: { need(1); const n = bytes[pos++]; need(n); stack.push(decodeUtf8(utf8, bytes.subarray(pos, pos + n), pos)); pos += n; break; }
      case 0x42: { need(4); const n = view.getUint32(pos, true); pos += 4; need(n); stack.push(bytes.slice(pos, pos + n)); pos += n; break; }
      case 0x43: { need(1); const n = bytes[pos++]; need(n); stack.push(bytes.slice(pos, pos + n)); pos += n; break; }
      case 0x71: need(1); memo.set(bytes[pos], top()); pos += 1; break;
      case 0x72: need(4); memo.set(view.getUint32(pos, true), top()); pos += 4; break;
      case 0x68: case 0x6a: {
        const long = op === 0x6a;
        need(long ? 4 : 1);
        const idx = long ? view.getUint32(pos, true) : bytes[pos];
        pos += long ? 4 : 1;
        if (!memo.has(idx)) throw new PickleError(`memo key ${idx} not found at offset ${pos}`);
        stack.push(memo.get(idx) as PyValue);
        break;
      }
      case 0x73: { const v = pop(); const k = pop(); setItems(top(), [k, v]); break; }
      case 0x75: { const items = popMark(); setItems(top(), items); break; }
      case 0x61: { const v = pop(); const list = top(); if (!Array.isArray(list)) throw new PickleError(`APPEND on a non-list at offset ${pos}`); list.push(v); break; }
      case 0x65: { const items = popMark(); const list = top(); if (!Array.isArray(list)) throw new PickleError(`APPENDS on a non-list at offset ${pos}`); list.push(...items); break; }
      case 0x63: { // GLOBAL "module\nname\n"
        const module = readLine();
        const name = readLine();
        const key = `${module} ${name}`;
        if (!ALLOWED_GLOBALS.has(key)) throw new PickleError(`global ${module}.${name} is not allowed in a policy checkpoint`);
        stack.push({ kind: 'global', module, name });
        break;
      }
      case 0x52: { const args = pop(); const fn = pop(); stack.push(callGlobal(fn, args, pos)); break; }
      case 0x62: { const state = pop(); build(top(), state, pos); break; }
      case 0x51: { const pid = pop(); stack.push(ctx.persistentLoad(pid)); break; }
      default: {
        const name = OPCODE_NAMES[op] ?? 'unknown';
        throw new PickleError(`unsupported opcode 0x${op.toString(16).padStart(2, '0')} (${name}) at offset ${pos - 1}; only the torch.save subset is read`);
      }
    }
  }
}

function decodeUtf8(dec: { decode(b: Uint8Array): string }, b: Uint8Array, pos: number): string {
  try {
    return dec.decode(b);
  } catch {
    throw new PickleError(`invalid UTF-8 string at offset ${pos}`);
  }
}

function dictKey(k: PyValue): string | number {
  if (typeof k === 'string' || typeof k === 'number') return k;
  throw new PickleError(`dict key of type ${describe(k)} is not supported`);
}

function describe(v: PyValue): string {
  if (v === null) return 'None';
  if (Array.isArray(v)) return 'tuple/list';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof PyDict) return 'dict';
  if (typeof v === 'object') return v.kind;
  return typeof v;
}

function isGlobal(v: PyValue): v is PyGlobal {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Map) && v.kind === 'global';
}

function asInt(v: PyValue, what: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw new PickleError(`${what} must be an integer, got ${describe(v)}`);
}

function callGlobal(fn: PyValue, args: PyValue, pos: number): PyValue {
  if (!isGlobal(fn)) throw new PickleError(`REDUCE on a non-callable (${describe(fn)}) at offset ${pos}`);
  if (!Array.isArray(args)) throw new PickleError(`REDUCE arguments must be a tuple at offset ${pos}`);
  const key = `${fn.module} ${fn.name}`;
  switch (key) {
    case 'collections OrderedDict':
      if (args.length !== 0) throw new PickleError('OrderedDict(...) with arguments is not supported');
      return new PyDict();
    case 'torch._utils _rebuild_tensor_v2': {
      const [storage, offset, size, stride] = args;
      if (typeof storage !== 'object' || storage === null || (storage as TorchStorageRef).kind !== 'storage') {
        throw new PickleError('_rebuild_tensor_v2 expects a storage as first argument');
      }
      if (!Array.isArray(size) || !Array.isArray(stride)) throw new PickleError('_rebuild_tensor_v2 expects size and stride tuples');
      return {
        kind: 'tensor',
        storage: storage as TorchStorageRef,
        offset: asInt(offset, 'storage offset'),
        shape: size.map((s) => asInt(s, 'tensor size')),
        stride: stride.map((s) => asInt(s, 'tensor stride')),
      };
    }
    case 'numpy dtype': {
      const name = args[0];
      if (typeof name !== 'string') throw new PickleError('numpy.dtype expects a type string');
      return { kind: 'numpy-dtype', name, byteOrder: '=' };
    }
    case 'numpy.core.multiarray scalar':
    case 'numpy._core.multiarray scalar':
      return numpyScalar(args);
    case '_codecs encode': {
      const [text, encoding] = args;
      if (typeof text !== 'string' || encoding !== 'latin1') throw new PickleError('_codecs.encode is read only for latin1 strings');
      const out = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c > 0xff) throw new PickleError('_codecs.encode: character outside latin1');
        out[i] = c;
      }
      return out;
    }
    default:
      throw new PickleError(`${fn.module}.${fn.name} cannot be called here`);
  }
}

function numpyScalar(args: PyValue[]): PyValue {
  const [dtype, data] = args;
  if (typeof dtype !== 'object' || dtype === null || (dtype as NumpyDtype).kind !== 'numpy-dtype' || !(data instanceof Uint8Array)) {
    throw new PickleError('numpy scalar expects (dtype, bytes)');
  }
  const d = dtype as NumpyDtype;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const le = d.byteOrder !== '>';
  const sizes: Record<string, number> = { i8: 8, u8: 8, i4: 4, u4: 4, f8: 8, f4: 4, i2: 2, u2: 2, i1: 1, u1: 1, b1: 1 };
  const n = sizes[d.name];
  if (n === undefined) throw new PickleError(`numpy scalar of dtype ${d.name} is not supported`);
  if (data.length !== n) throw new PickleError(`numpy scalar ${d.name} needs ${n} bytes, got ${data.length}`);
  switch (d.name) {
    case 'i8': { const v = view.getBigInt64(0, le); return Number.isSafeInteger(Number(v)) ? Number(v) : v; }
    case 'u8': { const v = view.getBigUint64(0, le); return Number.isSafeInteger(Number(v)) ? Number(v) : v; }
    case 'i4': return view.getInt32(0, le);
    case 'u4': return view.getUint32(0, le);
    case 'i2': return view.getInt16(0, le);
    case 'u2': return view.getUint16(0, le);
    case 'i1': return view.getInt8(0);
    case 'u1': return view.getUint8(0);
    case 'b1': return view.getUint8(0) !== 0;
    case 'f8': return view.getFloat64(0, le);
    default: return view.getFloat32(0, le);
  }
}

function build(obj: PyValue, state: PyValue, pos: number): void {
  if (obj instanceof PyDict) {
    obj.buildState = state;
    return;
  }
  if (typeof obj === 'object' && obj !== null && (obj as NumpyDtype).kind === 'numpy-dtype') {
    // numpy dtype state: (version, byteorder, subdescr, names, fields, elsize, alignment, flags)
    if (!Array.isArray(state) || typeof state[1] !== 'string') throw new PickleError('numpy dtype state is not understood');
    const bo = state[1];
    if (bo !== '<' && bo !== '>' && bo !== '|' && bo !== '=') throw new PickleError(`numpy byte order ${bo} is not understood`);
    (obj as NumpyDtype).byteOrder = bo;
    return;
  }
  throw new PickleError(`BUILD on ${describe(obj)} is not supported at offset ${pos}`);
}

/** torch's persistent id for storages: ('storage', torch.XStorage, key, location, numel). */
export function defaultPersistentLoad(pid: PyValue): PyValue {
  if (!Array.isArray(pid) || pid[0] !== 'storage' || pid.length !== 5) {
    throw new PickleError('persistent id is not a torch storage reference');
  }
  const [, type, key, location, numel] = pid;
  if (!isGlobal(type) || type.module !== 'torch' || !(type.name in STORAGE_DTYPES)) {
    throw new PickleError('persistent id names an unknown storage type');
  }
  if (typeof key !== 'string' || typeof location !== 'string') throw new PickleError('storage key and location must be strings');
  return { kind: 'storage', key, dtype: STORAGE_DTYPES[type.name], location, numel: asInt(numel, 'storage size') };
}
