/**
 * `vils run <scenario.yaml> [--out <dir>] [--set key=value]... [--model <onnx>] [--json]`: runs a scenario (or a
 * VDSim experiment) headless and writes its results: `<out>/<ego>.csv` (VDSim's columns, streamed as the run
 * goes), `metrics.json` and `resolved.yaml`; its memory does not grow with the run's length. Mode api runs as
 * fast as the machine allows (deterministic); mode rt_comms runs in real time with the scenario's comms routing
 * (VDS1 in and out) until its duration (0: until Ctrl-C).
 *
 * Time: the NPC world and every plant are assets of the scenario's time conductor (`time:`, src/time/settings.ts):
 * afap (api's default: greedy, bounded by dmax), lockstep (every asset sees every step), realtime (rt_comms's
 * default: the wall clock is the master). With `time.asset_port` external simulators join over UDP (and
 * `time.expect_assets` waits for them before time starts); in rt_comms with afap or lockstep the wall clock
 * paces the run at most at real time and a slow asset slows it down. The summary's `time` block shows every
 * asset's time, skew and held counts, and the invariant checks made after every count-up.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify } from 'yaml';
import { EgoCommsLink, Simulation, attemptLines, listMetrics, loadScenario, renderAttemptHtml, renderAttemptSvg, reportParams } from '../scenario/index.js';
import { createSystemClock, type Clock } from '../time/clock.js';
import { Pacer } from '../time/pacer.js';
import { openAssetPort, sessionStatusJson, waitForAssets, type TimeJson } from '../time/index.js';
import { type Command, UsageError } from './commands.js';

const USAGE = 'vils run <scenario.yaml> [--out <dir>] [--set <dotted.key>=<value>]... [--model <onnx>] [--json] [--quiet]';

/** `--set a.b=1` → {'a.b': 1} (values read as YAML scalars). */
export function parseSets(sets: readonly string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sets ?? []) {
    const m = /^([^=]+)=(.*)$/.exec(s);
    if (!m) throw new UsageError(`--set ${s}: expected <dotted.key>=<value>`);
    out[m[1].trim()] = parseYaml(m[2]) as unknown;
  }
  return out;
}

function fmt(v: number): string {
  return Number.isFinite(v) ? (Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v * 1000) / 1000) : v.toPrecision(5)) : '–';
}

/** One line on the conductor: mode, checks and violations, and each asset's skew and held counts. */
export function timeLine(t: TimeJson): string {
  const assets = t.assets.map((a) => `${a.name} ${a.step_ms} ms: skew max ${a.skew_max_ms} ms, held ${a.held}${a.lagging ? ', LAGGING' : ''}`);
  const gone = t.departed.map((d) => `${d.name} left (${d.reason}) at ${d.at_s} s`);
  return `  time ${t.mode}, dmax ${t.dmax_ms} ms: ${t.violations} violations in ${t.checks} checks; ${[...assets, ...gone].join('; ')}`;
}

/** What tests change of `vils run`: the clock an rt_comms run paces on (a test's clock makes it deterministic). */
export interface RunOverrides {
  clock?: Clock;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run a scenario headless (api: as fast as possible; rt_comms: real time over its comms) and write CSV, metrics, resolved YAML',
  usage: USAGE,
  run: (argv) => runScenario(argv),
};

/** `vils run` from its arguments; returns the exit status (the verdict of a test case). */
export async function runScenario(argv: string[], overrides: RunOverrides = {}): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { out: { type: 'string' }, set: { type: 'string', multiple: true }, model: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' } },
  });
  if (positionals.length !== 1) throw new UsageError('give one scenario file');
  // every override that shapes the run: the report's Parameters (a file's own _overrides are part of the file)
  const parameters = parseSets(values.set);
  const scenario = await loadScenario(positionals[0], { overrides: parameters });
  const log = (s: string) => {
    if (!values.quiet && !values.json) console.error(s);
  };
  for (const w of scenario.warnings) log(`warning: ${w}`);
  const tLoad = performance.now();
  // memory stays bounded however long the run: each ego's CSV is streamed to <out>/<ego>.csv as it goes, the
  // metrics are kept up to date row by row, and no trace rows are held
  if (values.out) mkdirSync(values.out, { recursive: true });
  const out = values.out;
  const sim = await Simulation.load(scenario, {
    modelPath: values.model, cmdTimeoutS: scenario.run.mode === 'rt_comms' ? 0.1 : 0, keepRows: 0, csvFile: out ? (id) => join(out, `${id}.csv`) : undefined,
  });
  const loadS = (performance.now() - tLoad) / 1000;
  const ts = scenario.time;
  log(`${scenario.name}: ${scenario.egos.length} simulated ego(s) on ${scenario.map.label}${scenario.npcs ? ` with ${scenario.npcs} NPCs` : ''}, ${scenario.duration || '∞'} s, mode ${scenario.run.mode}, time ${ts.mode} (dmax ${ts.dmax_ms} ms)`);
  let link: EgoCommsLink | null = null;
  let assetPort: Awaited<ReturnType<typeof openAssetPort>> = null;
  let t0 = performance.now();
  try {
    assetPort = await openAssetPort(sim.world.session, ts);
    if (assetPort) log(`external assets: UDP ${ts.asset_host}:${assetPort.port} (src/time/asset-protocol.ts; examples/time_asset.py)`);
    if (ts.expect_assets.length) {
      log(`waiting up to ${ts.expect_timeout_s} s for ${ts.expect_assets.join(', ')} to register`);
      const missing = await waitForAssets(sim.world.session, ts.expect_assets, ts.expect_timeout_s);
      if (missing.length) throw new Error(`time.expect_assets: ${missing.join(', ')} did not register on port ${assetPort?.port} within ${ts.expect_timeout_s} s`);
    }
    t0 = performance.now();
    if (scenario.run.mode === 'rt_comms') {
      link = await EgoCommsLink.open(sim.egos, scenario.run.comms, { now: () => sim.time() });
      log(`real time; comms ${scenario.run.comms?.name ?? '(none)'}: CMD on ${link.cmdPorts.join(', ') || 'no port'}`);
      const clock = overrides.clock ?? createSystemClock({ spinS: 0.001 });
      let stop = false;
      const onSignal = () => {
        stop = true;
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      // realtime: the plants may use up to one period per advance (one left behind is reported lagging);
      // afap / lockstep: an asset may hold the run for up to one period per advance (paced, at most real time)
      // on the shared Pacer's absolute schedule: a late tick advances by the periods it stands for (never a
      // burst of ticks to catch up); held time is given up, so the run is at most real time
      const period = 0.01;
      const pacer = new Pacer(period);
      pacer.start(clock.now());
      while (!stop && !sim.done()) {
        await clock.sleepUntil(pacer.due);
        const next = sim.time() + period * pacer.begin(clock.now());
        await sim.world.advanceTo(scenario.duration > 0 ? Math.min(next, scenario.duration) : next, { budgetS: period, maxWaitS: period });
      }
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    } else {
      if (!(scenario.duration > 0)) throw new UsageError(`${scenario.file}: duration 0 (until stopped) needs run: {mode: rt_comms}`);
      let lastLog = performance.now();
      await sim.run((t) => {
        if (performance.now() - lastLog > 2000) {
          lastLog = performance.now();
          log(`  t = ${t.toFixed(0)} s of ${scenario.duration} s (×${(t / ((performance.now() - t0) / 1000)).toFixed(1)} real time)`);
        }
      });
    }
    const wallS = (performance.now() - t0) / 1000;
    const metrics = sim.allMetrics();
    const notComputed = sim.metricReasons(metrics);
    const simS = sim.time();
    const summary = {
      scenario: scenario.file, name: scenario.name, mode: scenario.run.mode, sim_time_s: simS, wall_s: wallS, load_s: loadS, real_time_factor: simS / wallS,
      parameters: parameters, npcs: scenario.npcs, ego_npc_contact_steps: sim.world.scene?.egoCollisionSteps ?? null, metrics, not_computed: notComputed,
      time: sessionStatusJson(sim.world.session),
      story: sim.storyResult(),
    };
    const story = sim.world.story;
    if (values.out) {
      sim.flush();
      writeFileSync(join(values.out, 'metrics.json'), JSON.stringify(summary, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1) + '\n');
      writeFileSync(join(values.out, 'resolved.yaml'), stringify(scenario.resolved));
      if (story) {
        const result = story.result();
        writeFileSync(join(values.out, 'attempt.json'), JSON.stringify({ result, trace: story.trace.toJSON(), happenings: story.happenings }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1) + '\n');
        writeFileSync(join(values.out, 'attempt.svg'), renderAttemptSvg(result, story.trace, { title: scenario.name }));
        writeFileSync(join(values.out, 'attempt.html'), renderAttemptHtml(result, story.trace, { caseName: scenario.name, seed: scenario.seed, date: new Date().toISOString(), params: reportParams(parameters), paramsSource: '--set' }));
      }
    }
    if (values.json) console.log(JSON.stringify(summary, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));
    else {
      const units = new Map(listMetrics().map((m) => [m.name, m.unit]));
      console.log(`${scenario.name}: ${simS.toFixed(1)} s simulated in ${wallS.toFixed(2)} s (×${(simS / wallS).toFixed(1)} real time)${summary.ego_npc_contact_steps !== null ? `, ego–NPC contacts ${summary.ego_npc_contact_steps}` : ''}`);
      if (Object.keys(parameters).length) console.log(`  parameters: ${Object.entries(parameters).map(([k, v]) => `${k} = ${String(v)}`).join(', ')} (--set)`);
      for (const [k, v] of Object.entries(metrics)) {
        const unit = units.get(k.split('.').pop()!) ?? '';
        console.log(`  ${k.padEnd(22)} ${fmt(v)}${unit ? ` ${unit}` : ''}${notComputed[k] ? `  (not computed: ${notComputed[k]})` : ''}`);
      }
      console.log(timeLine(summary.time));
      if (story) console.log(attemptLines(story.result()));
      if (values.out) console.log(`  results in ${values.out}/ (${sim.egos.map((e) => `${e.id}.csv`).join(', ')}, metrics.json, resolved.yaml${story ? ', attempt.json, attempt.svg, attempt.html' : ''})`);
    }
    // a test case's verdict is the exit status: 0 passed, 1 failed, 2 not started or aborted, 3 invalid (judged on data that did not hold)
    const status = summary.story?.status;
    return status === undefined || status === 'passed' ? 0 : status === 'failed' ? 1 : status === 'invalid' ? 3 : 2;
  } finally {
    await assetPort?.server.close();
    await link?.close();
    await sim.close();
  }
}
