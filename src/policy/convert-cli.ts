/**
 * GPUDrive checkpoint → ONNX converter.
 *   npm run build:policy -- --checkpoint <file.pt> --out models/<name>.onnx [--size-scale 0.7]
 */
import { parseArgs } from 'node:util';
import { writeModelFromCheckpoint } from './model-files.js';
import { DEFAULT_SIZE_SCALE } from './convert.js';

const USAGE = `usage: npm run build:policy -- --checkpoint <file.pt> --out <model.onnx> [--size-scale ${DEFAULT_SIZE_SCALE}]

Converts a GPUDrive late-fusion PPO checkpoint (torch zip format; no Python needed) to an ONNX model
with input obs[N,2984] and outputs logits[N,91], action[N]. --size-scale is the factor the policy was
trained with on agent length/width in its observation (0.7 for checkpoints from April 2025 on).`;

export function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        checkpoint: { type: 'string' },
        out: { type: 'string' },
        'size-scale': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.checkpoint || !values.out) {
    console.error(USAGE);
    return 2;
  }
  const scale = values['size-scale'] === undefined ? DEFAULT_SIZE_SCALE : Number(values['size-scale']);
  if (!Number.isFinite(scale) || scale <= 0) {
    console.error(`--size-scale must be a positive number, got ${values['size-scale']}`);
    return 2;
  }
  try {
    const t0 = performance.now();
    const prov = writeModelFromCheckpoint(values.checkpoint, values.out, scale);
    console.log(`wrote ${values.out} in ${(performance.now() - t0).toFixed(0)} ms`);
    console.log(`  source   ${prov.source_file} (sha256 ${prov.source_sha256.slice(0, 16)}…)`);
    console.log(`  run      ${prov.source_model_name}, update ${prov.training_update}, ${prov.training_scenes}`);
    console.log(`  params   ${prov.parameters}, size scale ${prov.size_scale}`);
    return 0;
  } catch (err) {
    console.error(`build:policy: ${(err as Error).message}`);
    return 1;
  }
}


