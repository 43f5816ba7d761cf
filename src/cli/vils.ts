/**
 * `vils` command-line entry. Subcommands are registered in COMMANDS; `vils --help` lists them.
 */
import type { Command } from './commands.js';
import { UsageError } from './commands.js';
import { demoCommand } from './demo.js';
import { buildPolicyCommand } from './build-policy.js';
import { evalCommand } from './eval.js';
import { serveCommand } from './serve.js';
import { geoCommand } from './geo.js';
import { convertMapCommand } from './convert-map.js';
import { renderMapCommand } from './render-map.js';
import { driveCommand } from './drive.js';
import { plantCommand } from './plant.js';
import { realtimeCommand } from './realtime.js';
import { timeGridCommand } from './time-grid.js';
import { replayCommand } from './replay.js';
import { exportCommand } from './export.js';
import { COMMAND_HELP } from './help.js';
import { runCommand } from './run.js';
import { batchCommand } from './batch.js';
import { workerCommand } from './worker.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root.js';

const startCommand: Command = {
  name: 'start',
  summary: 'start the VILS server on its built-in default (the demo track, port 8000)',
  usage: 'vils start [serve options]',
  run: (argv) => serveCommand.run(argv),
};

export const COMMANDS: readonly Command[] = [startCommand, serveCommand, geoCommand, convertMapCommand, renderMapCommand, driveCommand, evalCommand, plantCommand, realtimeCommand, runCommand, batchCommand, workerCommand, replayCommand, exportCommand, timeGridCommand, demoCommand, buildPolicyCommand];

/** The flags of a command with their defaults (`vils start` takes those of `vils serve`). */
export function commandHelp(name: string): string {
  const h = COMMAND_HELP[name === 'start' ? 'serve' : name];
  return h ? `\n${h}` : '';
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'vils — Vehicle-In-the-Loop Simulation server',
    '',
    'usage: vils <command> [options]      (vils <command> --help for its options; vils --version)',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

/** `vils <version>` and the Node.js it runs on: what a bug report needs first. */
function version(): string {
  const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
  return `vils ${pkg.version} (node ${process.versions.node})`;
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(version());
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    console.error(`vils: unknown command '${name}'\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`usage: ${cmd.usage}\n\n${cmd.summary}${commandHelp(cmd.name)}`);
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (err) {
    const e = err as Error;
    console.error(`vils ${name}: ${e.message}`);
    if (err instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`usage: ${cmd.usage}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
