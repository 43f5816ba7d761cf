import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorldFile } from '../../src/cosim/scene.js';
import { loadCommsFile } from '../../src/cosim/comms/config.js';
import { loadSensorParams, loadTireParams, loadVehicleParams, vehicleParams, tireParams } from '../../src/plant/index.js';
import { loadScenario, loadCampaign } from '../../src/scenario/index.js';
import { PROJECT_ROOT, sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const cfg = (...p: string[]) => join(PROJECT_ROOT, 'configs', ...p);
const tmp = () => mkdtempSync(join(tmpdir(), 'vils-scn-'));

function scenarioFile(dir: string, text: string): string {
  const p = join(dir, 'scenario.yaml');
  writeFileSync(p, text);
  return p;
}

describe('configs/ from a fresh clone', () => {
  it('the sedan and its tire are VDSim\'s compiled-in defaults', () => {
    expect(loadVehicleParams(cfg('vehicles', 'sedan.yaml')).params).toEqual(vehicleParams());
    expect(loadTireParams(cfg('tires', 'default_pacejka.yaml')).params).toEqual(tireParams());
  });

  it.each(['scenarios/demo_lap.yaml', 'scenarios/demo_lap_comms.yaml', 'scenarios/sil_two_egos.yaml', 'experiments/step_steer.yaml', 'experiments/oval_lap.yaml', 'experiments/iso7401.yaml'])('%s loads', async (f) => {
    const s = await loadScenario(cfg(f));
    expect(s.egos.length).toBeGreaterThan(0);
    expect(s.warnings).toEqual([]);
  });

  it('the demo track map has the right-hand lane loop as its driving line (805 m) and the NPC road map', async () => {
    const s = await loadScenario(cfg('scenarios', 'demo_lap.yaml'));
    expect(s.map.line?.closed).toBe(true);
    expect(s.map.line?.length).toBeGreaterThan(800);
    expect(s.map.line?.length).toBeLessThan(812);
    expect(s.map.roadMapPath).toMatch(/demo-track\.json$/);
    expect(s.npcs).toBe(30);
    expect(s.scene.npc_target).toBe(30);
  });

  it('the sensor suite: host ego, and a roadside camera (infra:) taken out of the vehicle', async () => {
    const s = await loadScenario(cfg('scenarios', 'demo_lap_comms.yaml'));
    expect(s.egos[0].sensors.declarations.map((d) => d.id)).toEqual(['gnss_roof', 'imu_cg', 'cam_front']);
    expect(s.infra).toEqual([expect.objectContaining({ id: 'tower_cam', host: 'infra:tower_1', x: 0, y: -20 })]);
    expect(s.run.mode).toBe('rt_comms');
    expect(s.run.comms?.name).toBe('sim_ego');
  });

  it('the campaigns expand', () => {
    const c = loadCampaign(cfg('campaigns', 'iso7401_grid.yaml'));
    expect(c.jobs).toHaveLength(20);
    expect(c.keys).toEqual(['maneuver.v', 'tire.mu_nominal']);
    const mc = loadCampaign(cfg('campaigns', 'demo_mc.yaml'));
    expect(mc.jobs).toHaveLength(11);
    expect(loadCampaign(cfg('campaigns', 'demo_mc.yaml')).jobs).toEqual(mc.jobs); // deterministic draws
    expect(loadCampaign(cfg('campaigns', 'mu_sweep.yaml')).jobs.map((j) => j.overrides.mu)).toEqual([0.9, 0.7, 0.5]);
  });
});

describe.skipIf(!have('shared'))("VDSim's files in ../shared load unchanged", () => {
  const v = (f: string) => sharedPath('data', 'vdsim', f);
  const opts = { searchPath: [sharedPath('data', 'vdsim')] };

  it('experiments (stems through the search path: map_<stem>, sensors_<stem>, parts_tire_<stem>, the project\'s vehicles/sedan)', async () => {
    const lap = await loadScenario(v('experiment_oval_lap.yaml'), opts);
    expect(lap.map.file).toBe(v('map_oval_track.yaml'));
    expect(lap.map.line?.xs.length).toBe(80); // configs/paths/oval.yaml found by its stem as path_oval.yaml
    expect(lap.egos[0].files.tire).toBe(v('parts_tire_default_pacejka.yaml'));
    expect(lap.egos[0].files.sensors).toBe(v('sensors_standard.yaml'));
    const step = await loadScenario(v('experiment_step_steer.yaml'), opts);
    expect(step.egos[0].driver).toMatchObject({ kind: 'maneuver', maneuver: { type: 'step_steer', v: 22.2, steer: 0.03 } });
  });

  it('an alias maps a VDSim name onto another file', async () => {
    const s = await loadScenario(v('experiment_oval_lap.yaml'), { ...opts, aliases: { 'vehicle:sedan': v('vehicles_sports.yaml') }, allowDuplicateKeys: true });
    expect(s.egos[0].vehicle.mass).toBe(1320);
  });

  it('vehicles, tires, sensors, comms, campaign', async () => {
    expect(loadVehicleParams(v('generic_sedan.yaml')).params).toEqual(vehicleParams());
    expect(loadTireParams(v('tire_lugre_on.yaml')).params.lugre.enabled).toBe(true);
    expect(loadSensorParams(v('sensors_standard.yaml')).params.enabled).toBe(true);
    expect((await loadCommsFile(v('comms_json_nmea.yaml'))).channels).toHaveLength(3);
    const c = loadCampaign(v('campaign_mu_sweep.yaml'), opts);
    expect(c.jobs.map((j) => [j.overrides.mu, j.overrides.duration, j.overrides.seed])).toEqual([[0.9, 4, 20260922], [0.7, 4, 20260923], [0.5, 4, 20260924]]);
  });

  it('refused, with the file and key: a blueprint and a catalog scene without their parts catalog', async () => {
    await expect(loadScenario(v('experiment_oval_lap.yaml'), { ...opts, aliases: { 'vehicle:sedan': v('blueprint_sedan_comfort.yaml') } })).rejects.toThrow(/blueprint_sedan_comfort\.yaml: is a catalog blueprint/);
    await expect(loadWorldFile(v('scene_two_vehicle_race.yaml'))).rejects.toThrow(/scene_two_vehicle_race\.yaml: key 'fleet\[0\]\.blueprint': 'vehicle\.sedan_comfort' needs the VDSim parts catalog/);
  });
});

describe('errors name the file and the key and say what was expected', () => {
  const base = 'map: demo_track\nnpcs: 0\negos:\n  - { id: a, vehicle: sedan, tire: default_pacejka, start: { route_s: 10, speed: 5 } }\n';
  const cases: Array<[string, string, RegExp]> = [
    ['an unknown top-level key', base + 'durration: 5\n', /scenario\.yaml: key 'durration': unknown key \(expected one of/],
    ['an unknown ego key', base.replace('start:', 'strat:'), /key 'egos\[0\]\.strat': unknown key/],
    ['a level that is not ported', base.replace('tire: default_pacejka', 'tire: default_pacejka, level: L4'), /key 'egos\[0\]\.level': L4 is not ported/],
    ['a vehicle not found', base.replace('vehicle: sedan', 'vehicle: limo'), /key 'egos\[0\]\.vehicle': vehicle 'limo' not found: looked for vehicles\/limo\.yaml/],
    ['a duplicate ego id', base + '  - { id: a, vehicle: sedan, tire: default_pacejka }\n', /key 'egos\[1\]\.id': duplicate ego id 'a'/],
    ['NPCs on a map without a road map', 'map: flat_open\nnpcs: 5\nvehicle: sedan\ntire: default_pacejka\n', /key 'npcs': NPCs need a road map/],
    ['a bad run mode', base + 'run: { mode: fast }\n', /key 'run\.mode': expected api or rt_comms/],
    ['a bad scene setting', base + 'scene: { speed_limit_mps: fast }\n', /key 'scene\.speed_limit_mps': speed_limit_mps must be a finite number, got "fast"/],
    ['a dt that does not divide the NPC step', base.replace('start:', 'dt: 0.003, start:'), /key 'egos\[0\]\.dt': must divide the NPC step/],
    ['a bad override of a vehicle parameter', base + '_overrides: { vehicle.mass: heavy }\n', /sedan\.yaml \(with mass="heavy" from the overrides\): key 'mass': expected a finite number/],
  ];
  it.each(cases)('%s', async (_what, text, re) => {
    await expect(loadScenario(scenarioFile(tmp(), text))).rejects.toThrow(re);
  });

  it('a lane route that does not follow the lane graph names the map file and the key', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'track.yaml'), `road_map: ${join(PROJECT_ROOT, 'maps', 'demo-track.json')}\ndriving_line: { source: lanes, route: [R1, R3] }\n`);
    await expect(loadScenario(scenarioFile(dir, 'map: track.yaml\nvehicle: sedan\ntire: default_pacejka\n'))).rejects.toThrow(/track\.yaml: key 'driving_line\.route\[1\]': lane 'R3' does not follow 'R1'/);
  });

  it('a sensor host that is no ego of the scenario', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'suite.yaml'), 'list:\n  - { id: g, type: gnss, host: nobody }\n');
    await expect(loadScenario(scenarioFile(dir, base + 'sensors: suite.yaml\n'))).rejects.toThrow(/suite\.yaml: key 'host': sensor 'g': host 'nobody' is not an ego/);
    writeFileSync(join(dir, 'suite.yaml'), 'list:\n  - { id: g, type: gnss, host: "infra:pole" }\n');
    await expect(loadScenario(scenarioFile(dir, base + 'sensors: suite.yaml\n'))).rejects.toThrow(/suite\.yaml: key 'list\[0\]\.host': an infrastructure sensor has no vehicle/);
  });

  it('a campaign plot on a key that is not swept', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), `runs: [{ sweep: { base: ${cfg('experiments', 'iso7401.yaml')}, grid: { maneuver.v: [10, 20] } } }]\nplot: { metric: ay_ss, x: mu }\n`);
    expect(() => loadCampaign(join(dir, 'c.yaml'))).toThrow(/c\.yaml: key 'plot\.x': 'mu' is not a swept key \(swept: maneuver\.v\)/);
  });

  it('overrides: vehicle.* and tire.* patch the parameter files, mu the road, other keys the document', async () => {
    const s = await loadScenario(cfg('experiments', 'iso7401.yaml'), { overrides: { 'vehicle.mass': 1700, 'tire.mu_nominal': 0.5, mu: 0.8, 'maneuver.v': 15 } });
    expect(s.egos[0].vehicle.mass).toBe(1700);
    expect(s.egos[0].tires[0].muNominal).toBe(0.5);
    expect(s.map.ground.mu).toBe(0.8);
    expect(s.egos[0].start.speed).toBe(15);
    // the resolved document loads as it is and gives the same scenario
    const dir = tmp();
    const { stringify } = await import('yaml');
    writeFileSync(join(dir, 'resolved.yaml'), stringify(s.resolved));
    const again = await loadScenario(join(dir, 'resolved.yaml'));
    expect(again.egos[0].vehicle).toEqual(s.egos[0].vehicle);
    expect(again.egos[0].tires).toEqual(s.egos[0].tires);
    expect(again.map.ground).toEqual(s.map.ground);
  });
});
