/**
 * The policy on its own thread (PolicySessionOptions.thread, src/policy/inference-thread.ts): the same logits and
 * actions bit for bit as in this thread, on random batches, on the 2984-float layout and on a live scene's rows,
 * argmax and sampling; a scene stepped with it moves its NPCs exactly as one stepped in this thread; the step's
 * work that needs no policy result runs between starting the run and taking its result; misuse is refused with
 * the reason. Runs on the test model (the real checkpoint's when ../shared is there, else random weights).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { ACTION_COUNT, ObservationRows, OBS_SIZE, PolicyInput, PolicySession, type PolicyResult } from '../../src/policy/index.js';
import { InferenceThread } from '../../src/policy/inference-thread.js';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT, type TrafficEngine } from '../../src/traffic/engine.js';
import { stepPolicy, type PolicyStepper } from '../../src/traffic/policy-step.js';
import { testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { randomObservations } from '../helpers/policy-fixtures.js';

const sessions: PolicySession[] = [];
async function load(thread: boolean, mode?: { kind: 'sample'; seed: number }): Promise<PolicySession> {
  const s = await PolicySession.load(testModel(), { thread, mode });
  sessions.push(s);
  return s;
}
afterAll(async () => {
  for (const s of sessions) await s.release();
});

/** the scene's engine (private to it: observing outside a step changes nothing but the observer's memo) */
const engineOf = (scene: object) => (scene as { engine: TrafficEngine }).engine;

/** the result's logits as bits, and its actions (copied: valid until the next run) */
const bits = (r: PolicyResult) => ({ logits: Array.from(new Uint32Array(Float32Array.from(r.logits).buffer)), actions: Array.from(r.actions) });

describe('the policy on its own thread', () => {
  it('gives the logits and actions of the session in this thread, bit for bit: random 2984-float batches of 1 to 63 agents, and an empty one', async () => {
    const here = await load(false);
    const there = await load(true);
    expect(there.threaded).toBe(true);
    expect(here.threaded).toBe(false);
    for (const [n, seed, partners, roads] of [[1, 1, 0, 0], [7, 2, 3, 40], [63, 3, 63, 200], [20, 4, 10, 120], [0, 5, 0, 0]] as const) {
      const obs = n > 0 ? randomObservations(n, seed, partners, roads) : new Float32Array(OBS_SIZE);
      const want = bits(here.run(obs, n));
      expect(bits(there.run(obs, n))).toEqual(want);
      expect(want.logits.length).toBe(n * ACTION_COUNT);
    }
    expect(there.inferenceMs).toBe(0); // (the empty batch: nothing ran)
  });

  it('gives a live scene\'s rows the same logits, argmax and seeded sampling alike; a fork shares the thread with its own buffers', async () => {
    const { scene, release } = await setupScene({ modelPath: testModel(), config: { npc_target: 40, seed: 3 }, inferenceThread: false });
    try {
      scene.reset();
      const here = await load(false), there = await load(true);
      const sampleHere = await load(false, { kind: 'sample', seed: 9 }), sampleThere = await load(true, { kind: 'sample', seed: 9 });
      const fork = there.fork();
      const inputs = [here, there, sampleHere, sampleThere, fork].map((p) => new PolicyInput(p, 64));
      expect(inputs[1].rows!.roads.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(inputs[0].rows!.roads.buffer).not.toBeInstanceOf(SharedArrayBuffer);
      for (let k = 0; k < 30; k++) {
        await scene.advanceTo(k * POLICY_DT);
        for (const input of inputs) engineOf(scene).observe(input);
        const a = bits(here.runRows(inputs[0].rows!));
        expect(a.actions.length).toBeGreaterThan(0);
        expect(bits(there.runRows(inputs[1].rows!))).toEqual(a);
        expect(bits(fork.runRows(inputs[4].rows!))).toEqual(a);
        expect(bits(sampleThere.runRows(inputs[3].rows!))).toEqual(bits(sampleHere.runRows(inputs[2].rows!)));
        expect(there.inferenceMs).toBeGreaterThan(0);
      }
      await fork.release();
    } finally {
      await release();
    }
  });

  it('moves a scene\'s NPCs exactly as the session in this thread does (300 steps, shield on, traffic rules on)', async () => {
    const a = await setupScene({ modelPath: testModel(), config: { npc_target: 63, seed: 5 }, inferenceThread: false });
    const b = await setupScene({ modelPath: testModel(), config: { npc_target: 63, seed: 5 } });
    try {
      expect(a.policy.threaded).toBe(false);
      expect(b.policy.threaded).toBe(true); // (the default of a scene)
      a.scene.reset();
      b.scene.reset();
      let differing = 0;
      for (let k = 0; k < 300; k++) {
        await a.scene.advanceTo(k * POLICY_DT);
        await b.scene.advanceTo(k * POLICY_DT);
        if (JSON.stringify(a.scene.snapshot().npcs) !== JSON.stringify(b.scene.snapshot().npcs)) differing++;
      }
      expect(differing).toBe(0);
      expect(b.scene.snapshot().npcs.length).toBeGreaterThan(30);
      const t = b.scene.timings!;
      // the step's span against its parts: the prediction is a part of the shield's time
      expect(t.predict_ms).toBeGreaterThan(0);
      expect(t.predict_ms).toBeLessThanOrEqual(t.shield_ms);
    } finally {
      await a.release();
      await b.release();
    }
  });

  it('runs the stepper\'s work that needs no result between starting the run and taking it; the result is taken even when that work throws', async () => {
    const there = await load(true);
    const input = new PolicyInput(there, 4);
    const calls: string[] = [];
    const stepper: PolicyStepper = {
      observe(i) {
        calls.push('observe');
        const rows = i.rows!;
        rows.clear();
        rows.ego.fill(0.1, 0, 12);
        rows.addAgent(0, 0);
        rows.addAgent(0, 0);
        rows.finish();
      },
      prepare() {
        // the run is under way: the session refuses another one until its result is taken
        expect(() => there.runRows(input.rows!)).toThrow(/started and not finished/);
        calls.push('prepare');
      },
      apply(result, ms) {
        calls.push(`apply ${result.actions.length} ${ms > 0}`);
      },
    };
    stepPolicy(stepper, there, input);
    expect(calls).toEqual(['observe', 'prepare', 'apply 2 true']);
    const failing: PolicyStepper = { ...stepper, prepare: () => { throw new Error('prepare failed'); } };
    expect(() => stepPolicy(failing, there, input)).toThrow('prepare failed');
    // the session is free again
    stepPolicy(stepper, there, input);
    expect(calls.at(-1)).toBe('apply 2 true');
  });

  it('refuses misuse with the reason: a result with no run started, a run while one is under way, tensors not over shared memory, a released session', async () => {
    const there = await load(true);
    const rows = there.createRows(2);
    rows.clear();
    rows.addAgent(0, 0);
    rows.finish();
    expect(() => there.finishRows()).toThrow(/no batch started/);
    there.startRows(rows);
    expect(() => there.startRows(rows)).toThrow(/started and not finished/);
    expect(there.finishRows().actions.length).toBe(1);
    const thread = new InferenceThread(new Uint8Array(0), 1, false);
    const plain = new ObservationRows(2);
    expect(() => thread.start(plain.feeds, plain.feeds)).toThrow(/tensors over shared memory/);
    // a graph the thread cannot load: its reason comes back
    const shared = new ObservationRows(2, true);
    expect(() => thread.start(shared.feeds, shared.feeds)).toThrow(/the inference thread failed: .+/);
    thread.close();
    const gone = await PolicySession.load(testModel(), { thread: true });
    await gone.release();
    expect(() => gone.runRows(rows)).toThrow(/released/);
  });

  it('a thread that ends without a word (stopped, out of memory) is noticed within a fraction of a second and started again, the batch run anew: the same result; after 3 restarts the failure is the session\'s', async () => {
    const s = await load(true);
    const rows = s.createRows(4);
    rows.clear();
    rows.ego.set([0.2, 0.1, 0.05, 0.01, -0.02, 0]);
    rows.addAgent(0, 0);
    rows.finish();
    const want = bits(s.runRows(rows));
    expect(s.threadStatus).toEqual({ restarts: 0, last_failure: null });
    // (its worker stopped from outside: no failure written, no answer)
    const stop = async () => {
      const worker = (s as unknown as { model: { thread: { thread: { worker: Worker } } } }).model.thread.thread.worker;
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      await worker.terminate();
      await exited;
    };
    for (let k = 1; k <= 3; k++) {
      await stop();
      const t0 = performance.now();
      expect(bits(s.runRows(rows))).toEqual(want);
      expect(performance.now() - t0).toBeLessThan(5_000);
      expect(s.threadStatus).toEqual({ restarts: k, last_failure: 'the inference thread exited' });
    }
    await stop();
    expect(() => s.runRows(rows)).toThrow('the inference thread exited (started again 3 times already: giving up)');
  });

  it('a process that exits with a scene\'s thread still open exits cleanly: the threads are closed at exit (12 processes, no step run)', async () => {
    // (a thread torn down with its native session loaded aborted about one such exit in ten: "terminate called
    // after throwing an instance of 'Napi::Error'", exit code 134)
    const script = `
      const { setupScene } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'src', 'scene', 'index.js'))});
      await setupScene({ modelPath: ${JSON.stringify(testModel())}, config: { npc_target: 63, seed: 4 } });
      process.exit(0);`;
    const once = () => new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    const runs = [];
    for (let k = 0; k < 3; k++) runs.push(...(await Promise.all([once(), once(), once(), once()])));
    expect(runs.filter((r) => r.code !== 0 || /terminate called/.test(r.stderr)).map((r) => `${r.code}: ${r.stderr}`)).toEqual([]);
  }, 120_000);
});
