/**
 * Writes small torch-format zip checkpoints for tests: a pickle (protocol 2) of
 * {'parameters': OrderedDict(name -> float32 tensor)} plus raw little-endian storages.
 */
import { zipSync } from 'fflate';

class PickleWriter {
  private parts: number[] = [];
  op(...bytes: number[]): this { this.parts.push(...bytes); return this; }
  str(s: string): this {
    const b = new TextEncoder().encode(s);
    this.op(0x58, b.length & 0xff, (b.length >> 8) & 0xff, (b.length >> 16) & 0xff, (b.length >>> 24) & 0xff);
    this.parts.push(...b);
    return this;
  }
  int(n: number): this { return this.op(0x4a, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff); }
  global(module: string, name: string): this {
    this.op(0x63);
    this.parts.push(...new TextEncoder().encode(`${module}\n${name}\n`));
    return this;
  }
  tuple(values: number[]): this { this.op(0x28); for (const v of values) this.int(v); return this.op(0x74); }
  bytes(): Uint8Array { return Uint8Array.from(this.parts); }
}

export interface TestTensor { shape: number[]; data: Float32Array }

export function picklePolicy(tensors: Map<string, TestTensor>, extra: (w: PickleWriter) => void = () => {}): Uint8Array {
  const w = new PickleWriter();
  w.op(0x80, 2, 0x7d, 0x28).str('parameters').global('collections', 'OrderedDict').op(0x29, 0x52, 0x28);
  let key = 0;
  for (const [name, t] of tensors) {
    const stride = t.shape.map((_, i) => t.shape.slice(i + 1).reduce((a, b) => a * b, 1));
    w.str(name).global('torch._utils', '_rebuild_tensor_v2').op(0x28);
    w.op(0x28).str('storage').global('torch', 'FloatStorage').str(String(key++)).str('cpu').int(t.data.length).op(0x74, 0x51);
    w.int(0).tuple(t.shape).tuple(stride).op(0x89).global('collections', 'OrderedDict').op(0x29, 0x52, 0x74, 0x52);
  }
  w.op(0x75);
  extra(w);
  w.op(0x75, 0x2e);
  return w.bytes();
}

export function writeTorchZip(tensors: Map<string, TestTensor>, archive = 'test_policy', pickle = picklePolicy(tensors)): Uint8Array {
  const files: Record<string, Uint8Array> = {
    [`${archive}/data.pkl`]: pickle,
    [`${archive}/byteorder`]: new TextEncoder().encode('little'),
    [`${archive}/version`]: new TextEncoder().encode('3\n'),
  };
  let key = 0;
  for (const t of tensors.values()) {
    files[`${archive}/data/${key++}`] = new Uint8Array(t.data.buffer.slice(0));
  }
  return zipSync(files, { level: 0 });
}
