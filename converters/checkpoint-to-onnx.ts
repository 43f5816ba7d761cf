/** CLI entry of the checkpoint → ONNX converter: `npm run build:policy -- --checkpoint <pt> --out <onnx>`. */
import { main } from '../src/policy/convert-cli.js';

process.exitCode = main(process.argv.slice(2));
