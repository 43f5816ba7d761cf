/**
 * Install step (`prepare`): builds models/gpudrive-policy.onnx from the S75 checkpoint the repository ships
 * (models/checkpoints/; VILS_CHECKPOINT for another) when the model is missing. Never fails the install:
 * without a checkpoint it says how to get one.
 */
import { existsSync } from 'node:fs';
import { defaultCheckpointPath, defaultModelPath, writeModelFromCheckpoint } from '../src/policy/model-files.js';

const model = defaultModelPath();
const checkpoint = defaultCheckpointPath();
if (existsSync(model)) {
  console.log(`vils: policy model present at ${model}`);
} else if (existsSync(checkpoint)) {
  try {
    const prov = writeModelFromCheckpoint(checkpoint, model);
    console.log(`vils: built ${model} from ${prov.source_file}`);
  } catch (err) {
    console.warn(`vils: could not build the default policy model: ${(err as Error).message}`);
  }
} else {
  console.warn(
    `vils: no policy model at ${model} and no checkpoint at ${checkpoint}.\n` +
      '      Convert a GPUDrive checkpoint with: npm run build:policy -- --checkpoint <file.pt> --out models/gpudrive-policy.onnx',
  );
}
