/** `vils build-policy`: the checkpoint → ONNX converter (same as `npm run build:policy`). */
import { main } from '../policy/convert-cli.js';
import type { Command } from './commands.js';

export const buildPolicyCommand: Command = {
  name: 'build-policy',
  summary: 'convert a GPUDrive checkpoint (.pt) to an ONNX policy model',
  usage: 'vils build-policy --checkpoint <file.pt> --out <model.onnx> [--size-scale 0.7]',
  async run(argv) {
    return main(argv);
  },
};
