/**
 * src/policy — the GPUDrive late-fusion PPO policy: reading torch checkpoints, exporting them to ONNX,
 * running them in onnxruntime-node (batched, argmax or seeded sampling; in the calling thread or on an
 * inference thread of their own), the 91-action table, and a
 * float64 reference forward pass used by the tests.
 */
export { ACCEL_VALUES, STEER_VALUES, ACTION_ACCEL, ACTION_STEER, actionIndex, NEUTRAL_ACTION } from './actions.js';
export * from './session.js';
export * from './rows.js';
export * from './input.js';
export * from './sampling.js';
export * from './convert.js';
export * from './model-files.js';
export * from './onnx-export.js';
export * from './reference.js';
export * from './model-metadata.js';
export * from './checkpoint/late-fusion.js';
export { readTorchCheckpoint, CheckpointError, type TorchCheckpoint, type Float32Tensor } from './checkpoint/torch-zip.js';
export { readPickle, PickleError } from './checkpoint/pickle.js';
