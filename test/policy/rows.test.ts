/**
 * The rows graph (real rows plus the padding row, src/policy/rows.ts and buildRowsOnnx) against the model's
 * full graph over all 2984 floats: the same logits (bit for bit on this machine; within 1e-5 is the contract)
 * and the same actions, on random observations, on every step of the three Waymo scenes and on live maps.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION_COUNT, OBS_SIZE, ObservationRows, PARTNER_ROWS, PolicySession, ROAD_ROWS, buildLateFusionOnnx, checkLateFusionWeights,
  readLateFusionOnnxWeights, readTorchCheckpoint, realPartnerRows, realRoadRows, writeModelFromCheckpoint,
} from '../../src/policy/index.js';
import { buildRoadEntities, loadMapFile, RoadIndex } from '../../src/map/index.js';
import { initSceneWorld } from '../../src/traffic/scene-init.js';
import { Sim } from '../../src/traffic/sim.js';
import { EPISODE_STEPS } from '../../src/traffic/world.js';
import { setupScene } from '../../src/scene/index.js';
import { POLICY_DT } from '../../src/traffic/engine.js';
import { PROJECT_ROOT, S75_CHECKPOINT, SCENES_DIR } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { randomLateFusionTensors, randomObservations } from '../helpers/policy-fixtures.js';
import { writeTorchZip } from '../helpers/torch-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-rows-'));
const WOMD = ['womd_00000-of-01000_222.json', 'womd_00000-of-01000_325.json', 'womd_00000-of-01000_402.json'];

interface Pair {
  rows: PolicySession;
  full: PolicySession;
}

async function loadPair(model: string): Promise<Pair> {
  const rows = await PolicySession.load(model);
  const full = await PolicySession.load(model, { graph: 'full' });
  expect(rows.graph).toBe('rows');
  expect(full.graph).toBe('full');
  return { rows, full };
}

/** Compares both graphs on n observations: max |Δlogit|, differing logits (bits), differing actions. */
function compare(p: Pair, obs: Float32Array, n: number): { maxDiff: number; bitDiffs: number; actionDiffs: number } {
  const a = p.rows.run(obs, n);
  const logits = a.logits.slice();
  const actions = a.actions.slice();
  const b = p.full.run(obs, n);
  let maxDiff = 0, bitDiffs = 0, actionDiffs = 0;
  for (let k = 0; k < n * ACTION_COUNT; k++) {
    maxDiff = Math.max(maxDiff, Math.abs(logits[k] - b.logits[k]));
    if (!Object.is(logits[k], b.logits[k])) bitDiffs++;
  }
  for (let i = 0; i < n; i++) if (actions[i] !== b.actions[i]) actionDiffs++;
  return { maxDiff, bitDiffs, actionDiffs };
}

function expectSame(r: ReturnType<typeof compare>, label: string): void {
  expect(r.maxDiff, label).toBeLessThan(1e-5);
  expect(r.actionDiffs, label).toBe(0);
  expect(r.bitDiffs, `${label}: logits bit for bit`).toBe(0);
}

describe('rows graph vs full graph (random weights)', () => {
  let p: Pair;
  const model = join(dir, 'random.onnx');
  beforeAll(async () => {
    const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(5))));
    writeFileSync(model, buildLateFusionOnnx(weights, { size_scale: '0.7' }));
    p = await loadPair(model);
  });
  afterAll(async () => {
    await p.rows.release();
    await p.full.release();
  });

  it('the weights read back from the model are the checkpoint tensors', () => {
    const weights = checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(5))));
    const back = readLateFusionOnnxWeights(buildLateFusionOnnx(weights))!;
    for (const [name, t] of back) expect(Array.from(t.data), name).toEqual(Array.from(weights.get(name)!.data));
    expect(back.size).toBe(22); // all but the critic
  });

  it('same logits and actions with any mix of real and padding rows, batch sizes 1 to 63', () => {
    const cases: Array<[string, number, number, number]> = [
      ['every row real (no padding)', 8, PARTNER_ROWS, ROAD_ROWS],
      ['5 partners, 37 roads', 8, 5, 37],
      ['only padding', 4, 0, 0],
      ['one agent, nothing around', 1, 0, 0],
      ['one agent, one row each', 1, 1, 1],
      ['all partners, some roads', 3, PARTNER_ROWS, 120],
      ['no partners, all roads', 3, 0, ROAD_ROWS],
      ['63 agents', 63, 9, 137],
    ];
    for (const [label, n, partners, roads] of cases) expectSame(compare(p, randomObservations(n, n + partners, partners, roads), n), label);
  });

  it('agents with different row counts in one batch, counts given or found', async () => {
    const n = 20;
    const obs = new Float32Array(n * OBS_SIZE);
    const partners = new Uint8Array(n);
    const roads = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      partners[i] = (i * 7) % (PARTNER_ROWS + 1);
      roads[i] = (i * 37) % (ROAD_ROWS + 1);
      obs.set(randomObservations(1, 100 + i, partners[i], roads[i]), i * OBS_SIZE);
    }
    for (let i = 0; i < n; i++) {
      expect(realPartnerRows(obs, i * OBS_SIZE)).toBe(partners[i]);
      expect(realRoadRows(obs, i * OBS_SIZE)).toBe(roads[i]);
    }
    expectSame(compare(p, obs, n), 'counts found');
    const given = p.rows.run(obs, n, { partners, roads }).logits.slice();
    const found = p.rows.run(obs, n).logits;
    expect(Array.from(given)).toEqual(Array.from(found));
  });

  it('a real row equal to the padding row may be counted as real: same result', () => {
    const obs = randomObservations(2, 9, 4, 10);
    const lessCounted = p.rows.run(obs, 2, { partners: [4, 4], roads: [10, 10] }).logits.slice();
    // rows 4.. and 10.. are padding; counting some of them as real changes nothing
    const moreCounted = p.rows.run(obs, 2, { partners: [20, 63], roads: [50, 200] }).logits;
    expect(Array.from(moreCounted)).toEqual(Array.from(lessCounted));
  });

  it('forks share the model, not the buffers', () => {
    const a = p.rows.fork();
    const b = p.rows.fork();
    const oa = randomObservations(5, 21, 3, 60);
    const ob = randomObservations(7, 22, 30, 180);
    const ra = a.run(oa, 5);
    const rb = b.run(ob, 7);
    const aloneA = p.full.run(oa, 5).logits.slice();
    const aloneB = p.full.run(ob, 7).logits.slice();
    expect(Array.from(ra.logits)).toEqual(Array.from(aloneA));
    expect(Array.from(rb.logits)).toEqual(Array.from(aloneB));
    // rows written by one scene never reach the other's run
    const rowsA = new ObservationRows(8);
    rowsA.packObservations(oa, 5);
    const rowsB = new ObservationRows(8);
    rowsB.packObservations(ob, 7);
    const x = a.runRows(rowsA);
    const y = b.runRows(rowsB);
    expect(Array.from(x.logits)).toEqual(Array.from(aloneA));
    expect(Array.from(y.logits)).toEqual(Array.from(aloneB));
  });

  it('checks its input', () => {
    const rows = new ObservationRows(2);
    expect(() => rows.addAgent(64, 0)).toThrow(/0\.\.63 partner/);
    rows.addAgent(1, 1);
    rows.addAgent(1, 1);
    expect(() => rows.addAgent(1, 1)).toThrow(/at most 2 agents/);
    expect(() => p.full.runRows(rows)).toThrow(/full graph/);
    expect(() => p.rows.run(new Float32Array(10), 1)).toThrow(/2984 needed/);
  });
});

describe.skipIf(!have('shared'))('rows graph vs full graph on real observations (S75)', () => {
  let p: Pair;
  const model = join(dir, 's75.onnx');
  beforeAll(async () => {
    writeModelFromCheckpoint(S75_CHECKPOINT, model);
    p = await loadPair(model);
  });
  afterAll(async () => {
    await p.rows.release();
    await p.full.release();
  });

  it('every step of the three Waymo scenes: same logits and actions; the builder counts the real rows', () => {
    for (const name of WOMD) {
      const { scene } = loadMapFile(join(SCENES_DIR, name));
      const { world, mean } = initSceneWorld(scene);
      const sim = new Sim(world, new RoadIndex(buildRoadEntities(scene.roads, mean, { gpudriveCaps: true })), { episodeSteps: EPISODE_STEPS });
      const obs = new Float32Array(world.count * OBS_SIZE);
      const active = new Int32Array(world.count);
      const actions = new Int32Array(world.count);
      const rows = new ObservationRows(world.count);
      const packed = new ObservationRows(world.count);
      sim.reset();
      let agentSteps = 0, countErrors = 0, rowErrors = 0;
      for (let t = 0; t < EPISODE_STEPS; t++) {
        const m = sim.activeControlled(active);
        sim.observe(active, m, obs, p.full.sizeScale);
        for (let k = 0; k < m; k++) {
          if (sim.observations.partnerCount[k] !== realPartnerRows(obs, k * OBS_SIZE)) countErrors++;
          if (sim.observations.roadCount[k] !== realRoadRows(obs, k * OBS_SIZE)) countErrors++;
        }
        // the rows the builder writes directly are the real rows of the 2984-float layout
        sim.observeRows(active, m, rows, p.full.sizeScale);
        packed.packObservations(obs, m, sim.observations.rows);
        expect([rows.partnerRowsUsed, rows.roadRowsUsed]).toEqual([packed.partnerRowsUsed, packed.roadRowsUsed]);
        for (let k = 0; k < rows.partnerRowsUsed * 6; k++) if (!Object.is(rows.partners[k], packed.partners[k])) rowErrors++;
        for (let k = 0; k < rows.roadRowsUsed * 13; k++) if (!Object.is(rows.roads[k], packed.roads[k])) rowErrors++;
        for (let k = 0; k < m * 6; k++) if (!Object.is(rows.ego[k], packed.ego[k])) rowErrors++;
        expectSame(compare(p, obs, m), `${name} step ${t}`);
        const chosen = p.full.run(obs, m).actions;
        for (let k = 0; k < m; k++) actions[active[k]] = chosen[k];
        agentSteps += m;
        sim.step(actions);
      }
      expect(agentSteps).toBeGreaterThan(0);
      expect(countErrors, `${name}: real row counts`).toBe(0);
      expect(rowErrors, `${name}: rows written directly`).toBe(0);
    }
  });

  it('a live map with npc_target 63 (demo track) and one with Waymo roads (scene 402): the same NPCs step for step', async () => {
    for (const mapPath of [join(PROJECT_ROOT, 'maps', 'demo-track.json'), join(SCENES_DIR, 'womd_00000-of-01000_402.json')]) {
      const a = await setupScene({ mapPath, policy: p.full, config: { npc_target: 63, seed: 3 } });
      const b = await setupScene({ mapPath, policy: p.rows, config: { npc_target: 63, seed: 3 } });
      a.scene.reset();
      b.scene.reset();
      for (let k = 0; k < 40; k++) {
        await a.scene.advanceTo(k * POLICY_DT);
        await b.scene.advanceTo(k * POLICY_DT);
        expect(b.scene.snapshot().npcs, `${mapPath} step ${k}`).toEqual(a.scene.snapshot().npcs);
      }
      expect(b.scene.npcCount).toBeGreaterThan(40);
      await a.release();
      await b.release();
    }
  });
});
