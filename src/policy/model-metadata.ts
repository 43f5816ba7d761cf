/** Reads the metadata_props (provenance, size scale) of an ONNX model file. */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export function readModelMetadata(bytes: Uint8Array): Record<string, string> {
  const model = onnx.ModelProto.decode(bytes);
  const out: Record<string, string> = {};
  for (const p of model.metadataProps) if (p.key) out[p.key] = p.value ?? '';
  return out;
}
