/**
 * `vils replay <file.mcap>`: exact replay of a recorded session (bit-for-bit comparison of every NPC state,
 * the first difference reported), or with --play, the recording played back to clients as if live.
 *   vils replay <file.mcap> [--model <onnx>] [--allow-model-mismatch] [--allow-partial] [--all] [--json]
 * A recording cut short (its process killed: no footer) is replayed as far as it goes, said so, and exits 3
 * unless --allow-partial. One with no frame (a server stopped before its first) checked nothing: said so, exit 4.
 * A folder (`vils replay recordings/`) replays its newest recording that holds frames.
 *   vils replay <file.mcap> --play [--speed 1] [--loop] [--port 8000] [--host 0.0.0.0]
 */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newestRecording } from '../record/newest.js';
import { describeDifference, replayRecording } from '../record/replay.js';
import { createPlayback } from '../server/playback.js';
import { UsageError, type Command } from './commands.js';

export const replayCommand: Command = {
  name: 'replay',
  summary: 'replay a recording exactly (every NPC state compared bit for bit), or --play it to clients as if live',
  usage: 'vils replay <file.mcap | folder> [--model <onnx>] [--allow-model-mismatch] [--allow-partial] [--all] [--json] | --play [--speed 1] [--loop] [--port 8000] [--host 0.0.0.0]',
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        model: { type: 'string' }, 'allow-model-mismatch': { type: 'boolean' }, 'allow-partial': { type: 'boolean' }, all: { type: 'boolean' }, json: { type: 'boolean' },
        play: { type: 'boolean' }, speed: { type: 'string' }, loop: { type: 'boolean' }, port: { type: 'string' }, host: { type: 'string' },
        'log-level': { type: 'string' },
      },
    });
    if (positionals.length !== 1) throw new UsageError('give one recording (a .mcap file; any segment of a session names it), or a folder for its newest');
    const file = await chosenRecording(positionals[0]);
    if (values.play) {
      const speed = Number(values.speed ?? 1);
      if (!(speed > 0 && speed <= 1000)) throw new UsageError(`--speed must be a number in (0, 1000], got ${values.speed}`);
      const port = Number(values.port ?? 8000);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got ${values.port}`);
      const pb = await createPlayback(file, { speed, loop: values.loop, logLevel: values['log-level'] ?? 'info' });
      const address = await pb.app.listen({ port, host: values.host ?? '0.0.0.0' });
      pb.app.log.info(`VILS playback of ${file} (scene ${pb.session.scene}, ×${speed}) on ${address}: web map ${address}/, WebSocket ${address.replace(/^http/, 'ws')}/ws/vils/stream, Foxglove ${address.replace(/^http/, 'ws')}/foxglove`);
      const stop = async () => {
        setTimeout(() => process.exit(0), 2000).unref();
        await pb.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
      await pb.done;
      pb.app.log.info(`played ${pb.framesSent()} frames`);
      await pb.close();
      return 0;
    }
    let lastLine = 0;
    const r = await replayRecording(file, {
      modelPath: values.model, allowModelMismatch: values['allow-model-mismatch'], all: values.all,
      onProgress: values.json || !process.stderr.isTTY ? undefined : (p) => {
        if (performance.now() - lastLine > 500) {
          lastLine = performance.now();
          process.stderr.write(`\r  ${p.frames} frames, sim time ${p.simTimeS.toFixed(1)} s`);
        }
      },
    });
    if (lastLine) process.stderr.write('\n');
    if (values.json) {
      console.log(JSON.stringify({
        files: r.files, scene: r.session.scene, session_id: r.session.sessionId, calls: r.calls, frames: r.frames, npc_states: r.npcStates,
        steps: r.steps, sim_time_s: r.simTimeS, wall_s: r.wallS, speed: r.speed, differences: r.differences, first_difference: r.first,
        partial: r.partial,
      }));
    } else {
      console.log(`replayed ${r.files.length} file(s) of scene ${r.session.scene} (session ${r.session.sessionId}): ${r.calls} calls, ${r.steps} policy steps (${r.simTimeS.toFixed(1)} s of simulation time) in ${r.wallS.toFixed(2)} s (×${r.speed.toFixed(1)} real time)`);
      console.log(`compared ${r.frames} frames, ${r.npcStates} NPC states bit for bit: ${r.differences === 0 ? '0 differences' : `${r.differences}${r.differences === 1 && !values.all ? ' (stopped at the first)' : ''} difference(s)`}`);
      if (r.first) console.log(`first difference: ${describeDifference(r.first)}`);
    }
    for (const p of r.partial) {
      console.error(`vils replay: ${p.file} is PARTIAL: it ends without its footer${p.trailingBytes ? ` and with ${p.trailingBytes} bytes of an unfinished record` : ''} (the recording process was killed or the file cut short); replayed what it holds, up to sim time ${r.simTimeS.toFixed(1)} s${values['allow-partial'] ? '' : ' — exit 3 (--allow-partial accepts it)'}`);
    }
    if (r.differences !== 0) return 1;
    if (r.frames === 0) {
      // "0 differences" of nothing compared would read as a pass
      console.error(`vils replay: ${file} holds no frame (its server stopped, or could not start, before it published one): nothing was compared — exit 4`);
      return 4;
    }
    return r.partial.length > 0 && !values['allow-partial'] ? 3 : 0;
  },
};

/** The recording a path names: a file as is; a folder's newest recording with frames, saying which and what it passed over. */
async function chosenRecording(path: string): Promise<string> {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`${path}: no such file or folder`);
  }
  if (!isDir) return path;
  const { file, empty } = await newestRecording(path);
  for (const e of empty) console.error(`vils replay: passing over ${e}: it holds no frame`);
  if (!file) throw new UsageError(`${path} holds no recording with frames${empty.length ? ` (${empty.length} without)` : ''}: start a server (it records into recordings/ by default) and let it run a moment`);
  console.error(`vils replay: the newest recording with frames in ${path}: ${file}`);
  return file;
}
