/**
 * `vils eval`: GPUDrive self-play evaluation of scenes with the policy (spec §7.14).
 *   vils eval --scenes <files...> [--checkpoint <pt> [--model-out <onnx>] | --model <onnx>] [--deterministic | --seed N] [--json] [--trace <file.json>]
 * A checkpoint is converted into a temporary folder unless --model-out names where to keep the model.
 */
import { writeOutputFile } from '../util/output-file.js';
import { loadMapFile } from '../map/scene-json.js';
import { outcomeRates, sumOutcomes } from '../scene/quality.js';
import { PolicySession, resolvePolicyModel } from '../policy/index.js';
import { evaluateScene, type SceneResult } from '../traffic/evaluate.js';
import { UsageError, type Command } from './commands.js';

interface EvalArgs {
  scenes: string[];
  checkpoint?: string;
  model?: string;
  /** where to keep the model converted from --checkpoint (default: a temporary folder) */
  modelOut?: string;
  seed?: number;
  json: boolean;
  trace?: string;
  threads: number;
}

export function parseEvalArgs(argv: string[]): EvalArgs {
  const args: EvalArgs = { scenes: [], json: false, threads: 1 };
  let deterministic = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--scenes':
        while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) args.scenes.push(argv[++i]);
        break;
      case '--checkpoint': args.checkpoint = value(); break;
      case '--model': args.model = value(); break;
      case '--model-out': args.modelOut = value(); break;
      case '--deterministic': deterministic = true; break;
      case '--seed': {
        const s = Number(value());
        if (!Number.isInteger(s) || s < 0) throw new UsageError('--seed must be a non-negative integer');
        args.seed = s;
        break;
      }
      case '--threads': args.threads = Number(value()); break;
      case '--json': args.json = true; break;
      case '--trace': args.trace = value(); break;
      default: throw new UsageError(`unknown option ${a}`);
    }
  }
  if (args.scenes.length === 0) throw new UsageError('--scenes needs at least one scene file');
  if (args.checkpoint && args.model) throw new UsageError('give either --checkpoint or --model, not both');
  if (args.modelOut && !args.checkpoint) throw new UsageError('--model-out goes with --checkpoint');
  if (deterministic && args.seed !== undefined) throw new UsageError('give either --deterministic or --seed, not both');
  return args;
}

/** Rates over every controlled agent of every scene (GPUDrive counts each outcome once per agent). */
export function totals(results: readonly SceneResult[]) {
  return outcomeRates(sumOutcomes(results));
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'run scenes as GPUDrive self-play evaluation and print goal / collision / off-road rates',
  usage: 'vils eval --scenes <files...> [--checkpoint <pt> [--model-out <onnx>] | --model <onnx>] [--deterministic | --seed N] [--threads 1] [--json] [--trace <file.json>]',
  async run(argv) {
    const args = parseEvalArgs(argv);
    const modelPath = resolvePolicyModel({ model: args.model, checkpoint: args.checkpoint, out: args.modelOut });
    const policy = await PolicySession.load(modelPath, {
      intraOpThreads: args.threads,
      mode: args.seed === undefined ? { kind: 'deterministic' } : { kind: 'sample', seed: args.seed },
    });
    const results: SceneResult[] = [];
    try {
      for (const [k, file] of args.scenes.entries()) {
        const { scene, label } = loadMapFile(file);
        if (args.seed !== undefined) policy.reseed(args.seed + k);
        results.push(await evaluateScene(scene, policy, { trace: Boolean(args.trace), label }));
      }
    } finally {
      await policy.release();
    }
    const total = totals(results);
    if (args.trace) {
      writeOutputFile(args.trace, JSON.stringify({ model: modelPath, scenes: results.map((r) => ({ scene: r.scene, steps: r.trace })) }));
    }
    if (args.json) {
      console.log(JSON.stringify({ scenes: results.map(({ scene, agents, goal, collided, offroad }) => ({ scene, agents, goal, collided, offroad })), total }));
    } else {
      const m = policy.metadata;
      console.log(`policy ${modelPath} (${m.source_file ?? 'unknown source'}), ${args.seed === undefined ? 'deterministic' : `sampled, seed ${args.seed}`}`);
      const w = Math.max(5, ...results.map((r) => r.scene.length));
      console.log(`${'scene'.padEnd(w)}  agents  goal  collided  off-road`);
      for (const r of results) {
        console.log(`${r.scene.padEnd(w)}  ${String(r.agents).padStart(6)}  ${String(r.goal).padStart(4)}  ${String(r.collided).padStart(8)}  ${String(r.offroad).padStart(8)}`);
      }
      const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
      console.log(`total: ${total.agents} controlled agents, goal ${pct(total.goal_rate)}, collision ${pct(total.collision_rate)}, off-road ${pct(total.offroad_rate)}`);
      if (args.trace) console.log(`trace written to ${args.trace}`);
    }
    return 0;
  },
};
