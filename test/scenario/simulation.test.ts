import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIso7401, tireParams, vehicleParams } from '../../src/plant/index.js';
import { Simulation } from '../../src/scenario/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const cfg = (...p: string[]) => join(PROJECT_ROOT, 'configs', ...p);

describe('the Simulation API', () => {
  it('VDSim\'s ISO 7401 procedure as an experiment: the registry\'s figures of the trace equal `vils plant iso7401`\'s', async () => {
    const sim = await Simulation.load(cfg('experiments', 'iso7401.yaml'));
    await sim.run();
    const m = sim.metrics();
    const ref = runIso7401({ vehicle: vehicleParams(), tires: tireParams(), level: 'L2' });
    // the session path (ground provider, actuator layer) against the procedure's bare model: within 1e-5
    expect(m.yaw_rate_ss).toBeCloseTo(ref.yawRateSs, 5);
    expect(m.overshoot).toBeCloseTo(ref.overshoot, 5);
    expect(m.ay_ss).toBeCloseTo(ref.lateralAccelSs, 3);
    expect(m.response_time).toBeCloseTo(ref.responseTimeS, 9);
    expect(m.settling_time).toBeCloseTo(ref.settlingTime5pctS, 2);
    expect(sim.csv().split('\n')[0]).toBe('t,x,y,yaw,vx,vy,r,ax,ay,steer,Fz0,Fz1,Fz2,Fz3,Fx0,Fx1,Fx2,Fx3,Fy0,Fy1,Fy2,Fy3,a0,a1,a2,a3,k0,k1,k2,k3');
    expect(sim.csv().trim().split('\n')).toHaveLength(1 + 3250);
    await sim.close();
  });

  it('setControl is one step, then the manoeuvre resumes; step(dt) advances by dt', async () => {
    const sim = await Simulation.load(cfg('experiments', 'step_steer.yaml'));
    sim.setControl({ steer: 0.2, throttle: 0, brake: 1 });
    const s1 = await sim.step();
    expect(s1.t).toBeCloseTo(0.005, 12);
    expect(s1.steer).toBeCloseTo(0.2, 12);
    expect(s1.brake).toBe(1);
    const s2 = await sim.step();
    expect(s2.steer).toBe(0); // the step-steer manoeuvre steers from t0 = 2 s
    expect(s2.brake).toBe(0);
    await sim.step(0.1);
    expect(sim.time()).toBeCloseTo(0.11, 9);
    await sim.close();
  });

  it('getData: the CG bundle, a sensor at its mount (GNSS moved by R(ψ)·mount), a camera\'s object list, an infra sensor', async () => {
    const sim = await Simulation.load(cfg('scenarios', 'demo_lap_comms.yaml'), { overrides: { 'run.mode': 'api', npcs: 0, duration: 1, 'egos.0.driver': 'autopilot', 'sensors': 'roof_suite' } });
    await sim.run();
    const cg = sim.getData() as { gnss: { x: number; y: number } };
    const st = sim.state();
    const roof = sim.getData('gnss_roof') as { x: number; y: number };
    // noise_std 0.02 on the roof GNSS: the mount offset (0.2 m forward) is far above it in expectation, so compare to the CG bundle
    expect(roof.x - cg.gnss.x).toBeCloseTo(0.2 * Math.cos(st.yaw), 12);
    expect(roof.y - cg.gnss.y).toBeCloseTo(0.2 * Math.sin(st.yaw), 12);
    const cam = sim.getData('cam_front') as { objects: unknown[]; host: string };
    expect(cam.host).toBe('sim1');
    expect(Array.isArray(cam.objects)).toBe(true);
    const tower = sim.getData('tower_cam') as { host: string };
    expect(tower.host).toBe('infra:tower_1');
    expect(() => sim.getData('radar')).toThrow(/ego sim1 has no sensor 'radar' \(declared: gnss_roof, imu_cg, cam_front; infrastructure: tower_cam/);
    await sim.close();
  });

  it('a simulated ego among 30 NPCs: deterministic (two runs, bit-identical CSV and metrics), seen by the scene', async () => {
    const run = async () => {
      const sim = await Simulation.load(cfg('scenarios', 'demo_lap.yaml'), { overrides: { duration: 8 } });
      await sim.run();
      const out = { steps: sim.metrics(['ego_steps']).ego_steps, csv: sim.csv(), metrics: sim.allMetrics(), npcs: sim.world.scene!.snapshot().npcs.map((n) => [n.id, n.x, n.y]), egos: sim.world.scene!.snapshot().egos };
      await sim.close();
      return out;
    };
    const a = await run();
    const b = await run();
    expect(b.csv).toBe(a.csv);
    expect(b.npcs).toEqual(a.npcs);
    expect(JSON.stringify(b.metrics)).toBe(JSON.stringify(a.metrics));
    expect(a.egos).toHaveLength(1);
    expect(a.egos[0]).toMatchObject({ egoId: 'sim1', stale: false, length: 4.6, width: 1.8 });
    expect(a.steps).toBe(81); // one per NPC step, at 0, 0.1, …, 8.0 s
    expect(a.metrics.cte_max).toBeLessThan(1);
    expect(a.metrics.dist).toBeGreaterThan(30);
  });

  it('two simulated egos at their own steps (L3 at 5 ms, L1 at 10 ms) on one clock', async () => {
    const sim = await Simulation.load(cfg('scenarios', 'sil_two_egos.yaml'), { overrides: { duration: 2, npcs: 0 } });
    await sim.run();
    expect(sim.egos.map((e) => [e.id, e.ticks, e.time])).toEqual([['sim1', 400, 2], ['sim2', 200, 2]]);
    expect(Object.keys(sim.allMetrics())).toContain('sim2.cte_rms');
    await sim.close();
  });
});
