/**
 * `vils realtime` for bench:cosim: the same command (src/cli/realtime.ts) without the `vils` dispatcher, so the
 * benchmark loads only the co-simulation code and does not depend on the rest of the CLI building.
 */
import { realtimeCommand } from '../src/cli/realtime.js';

process.exitCode = await realtimeCommand.run(process.argv.slice(2));
