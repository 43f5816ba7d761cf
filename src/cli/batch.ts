/**
 * `vils batch <campaign.yaml> [--out <dir>] [--parallel N] [--queue redis://host:port] [--retry-failed] [--json]`:
 * a campaign's runs in worker threads on this machine (default: all cores), or on a BullMQ queue served by
 * `vils worker` processes anywhere; a progress bar with the ETA; resumable; per-run CSV, summary.csv, resolved
 * YAML per run, plot.svg.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { LocalExecutor, QueueExecutor, loadCampaign, progressLine, runCampaign, type Executor } from '../scenario/index.js';
import { type Command, UsageError } from './commands.js';

const USAGE = 'vils batch <campaign.yaml> [--out <dir>] [--parallel N] [--queue redis://host:port [--queue-name vils-batch]] [--retry-failed] [--json]';

export const batchCommand: Command = {
  name: 'batch',
  summary: 'run a campaign (scenario lists, grids, Monte-Carlo draws) in worker threads or on a BullMQ queue; summary.csv, plot.svg',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv, allowPositionals: true,
      options: { out: { type: 'string' }, parallel: { type: 'string' }, queue: { type: 'string' }, 'queue-name': { type: 'string' }, 'retry-failed': { type: 'boolean' }, json: { type: 'boolean' } },
    });
    if (positionals.length !== 1) throw new UsageError('give one campaign file');
    const campaign = loadCampaign(positionals[0]);
    const out = values.out ?? `results/${campaign.name}`;
    const parallel = values.parallel !== undefined ? Number(values.parallel) : campaign.parallel ?? availableParallelism();
    if (!(Number.isInteger(parallel) && parallel >= 1)) throw new UsageError(`--parallel must be a whole number ≥ 1, got ${values.parallel}`);
    const tty = process.stderr.isTTY && !values.json;
    // a wrong address fails within seconds (the address, the cause, how to start Redis); no worker taking a run
    // prints how to start one — on stderr in --json mode too (stdout keeps the one JSON line)
    const onWaiting = (m: string) => console.error(tty ? `\n${m}` : m);
    const executor: Executor = values.queue ? await QueueExecutor.connect(values.queue, campaign, { queueName: values['queue-name'], onWaiting }) : new LocalExecutor(parallel);
    const where = values.queue ? `queue ${values.queue}` : `${parallel} thread(s)`;
    if (!values.json) console.error(`${campaign.name}: ${campaign.jobs.length} runs on ${where} → ${out}/`);
    try {
      const outcome = await runCampaign(campaign, out, executor, {
        retryFailed: values['retry-failed'],
        onProgress: (p) => {
          if (values.json) return;
          const line = progressLine(p) + (p.last?.status === 'failed' ? `  (${p.last.runId} failed: ${p.last.error})` : '');
          if (tty) process.stderr.write(`\r${line}\x1b[K${p.done === p.total ? '\n' : ''}`);
          else if (p.last || p.done === p.total) console.error(line);
        },
      });
      const summary = { campaign: campaign.file, name: campaign.name, out, executor: values.queue ? 'queue' : 'threads', parallel: values.queue ? null : parallel, runs: outcome.total, ran: outcome.ran, resumed: outcome.resumed, failed: outcome.failed, wall_s: outcome.wallS, runs_per_s: outcome.runsPerS, summary: outcome.summaryPath, plot: outcome.plotPath, cases: outcome.casesPath, identical_rows: outcome.notes };
      if (values.json) console.log(JSON.stringify(summary));
      else for (const n of outcome.notes) console.log(`identical rows: ${n}`);
      if (!values.json) console.log(`${campaign.name}: ${outcome.ran} runs in ${outcome.wallS.toFixed(1)} s (${outcome.runsPerS.toFixed(2)} runs/s)${outcome.resumed ? `, ${outcome.resumed} kept from before` : ''}, ${outcome.failed} failed; ${outcome.summaryPath}${outcome.plotPath ? `, ${outcome.plotPath}` : ''}${outcome.casesPath ? `, ${outcome.casesPath}` : ''}`);
      return outcome.failed > 0 ? 1 : 0;
    } finally {
      await executor.close();
    }
  },
};
