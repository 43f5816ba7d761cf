/** World and catalog-scene YAML for `vils realtime --scene=` (spec §6.8, §2.1). */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRealtime } from '../../src/cli/realtime.js';
import { loadWorldFile } from '../../src/cosim/scene.js';
import { sharedPath } from '../helpers/shared.js';
import { freePort } from './helpers/udp.js';
import { have } from '../helpers/prerequisites.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-scene-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
write('car.yaml', 'mass: 1600.0\nwheelbase: 2.8\ncg_to_front: 1.3\ncg_to_rear: 1.5\nmax_steer_angle_wheel: 0.45\n');
write('tire.yaml', 'B_lat: 9.0\nlugre:\n  enabled: true\n');
write('tire_rear.yaml', 'B_lat: 11.0\n');
write('path.yaml', 'points:\n- [0, 0, 10]\n- [50, 0, 10]\n- [50, 50, 8]\n- [0, 50]\n');

describe('world YAML', () => {
  it('sim block, fleet, per-corner tires, sensors, internal path follower, inline comms', async () => {
    const p = write('world.yaml', `
sim: {dt: 0.002, rate: 100, t_end: 30, time_scale: 2}
cmd_timeout: 0.25
mu: 0.8
mu_right: 0.3
mu_boundary: 1.5
sensor_delay: 0.01
vehicles:
  - {id: 3, vehicle: ${join(dir, 'car.yaml')}, tire: tire.yaml, tire_rear: tire_rear.yaml, level: L3, x0: 1, y0: 2, yaw0: 0.5, vx0: 7,
     sensors: [{id: gps, type: gnss, rate: 10}, {id: imu0, type: imu}]}
  - {id: 8, vehicle: car.yaml, tire: tire.yaml, control: internal, path: path.yaml, path_lookahead: 6}
comms:
  name: inline
  channels:
    - {source: 3.sensor.gps, template: nmea_rmc, origin: {lat: 37.5, lon: 127, alt: 10}, to: [{ip: 127.0.0.1, port: 9100}]}
    - {source: 8.state, template: json, to: [{ip: 127.0.0.1, port: 9101}]}
    - {direction: in, template: vds1_cmd, listen: {port: 7301}}
`);
    const w = await loadWorldFile(p, { lugre: false });
    expect([w.kind, w.rate, w.dt, w.tEnd, w.timeScale, w.cmdTimeout, w.sensorDelayS]).toEqual(['world', 100, 0.002, 30, 2, 0.25, 0.01]);
    expect(w.ground).toEqual({ mu: 0.8, muRight: 0.3, muBoundary: 1.5, grade: 0, bank: 0 });
    const [a, b] = w.vehicles;
    expect([a.id, a.level, a.x0, a.y0, a.yaw0, a.vx0, a.control, a.vehicle.mass]).toEqual([3, 'L3', 1, 2, 0.5, 7, 'external', 1600]);
    expect(a.tires.map((t) => t.B_lat)).toEqual([9, 9, 11, 11]);
    expect(a.tires.every((t) => t.lugre.enabled === false)).toBe(true); // --no-lugre
    expect(a.sensors?.declarations.map((d) => [d.id, d.type])).toEqual([['gps', 'gnss'], ['imu0', 'imu']]);
    expect([b.id, b.control, b.pathLookahead, b.path?.length, b.path?.[3]]).toEqual([8, 'internal', 6, 4, { x: 0, y: 50, vx: -1 }]);
    expect(w.comms?.channels.map((c) => c.template.name)).toEqual(['nmea_rmc', 'json', 'vds1_cmd']);
    expect(w.comms?.prefix).toBe('comms');
  });
  it('a catalog scene without sim: dt = 1/rate; the comms file is found by stem next to the scene', async () => {
    write('comms_rig.yaml', 'name: rig\nchannels:\n  - {source: ego.state, template: vds1, to: [{ip: 127.0.0.1, port: 9000}]}\n');
    const p = write('scene.yaml', 'id: scene.x\nrate: 500\ncomms: rig\nfleet:\n  - {id: 0, vehicle: car.yaml, tire: tire.yaml, vx0: 3}\n');
    const w = await loadWorldFile(p);
    expect([w.kind, w.label, w.rate, w.dt, w.cmdTimeout, w.comms?.name]).toEqual(['scene', 'scene.x', 500, 0, 0.1, 'rig']);
  });
  it('refuses what is not ported, and bad values, naming the file and key', async () => {
    const bad = async (body: string) => loadWorldFile(write('bad.yaml', body));
    const car = 'vehicles:\n  - {vehicle: car.yaml, tire: tire.yaml}\n';
    await expect(bad(`stunt: {ground: loop}\n${car}`)).rejects.toThrow(/bad.yaml: key 'stunt': stunt grounds .* are not ported/);
    await expect(bad(`iso_class: 3\n${car}`)).rejects.toThrow(/key 'iso_class': ISO 8608 random roads are not ported/);
    await expect(bad('vehicles:\n  - {vehicle: car.yaml, tire: tire.yaml, level: L4}\n')).rejects.toThrow(/key 'vehicles\[0\].level': L4 is not ported/);
    await expect(bad('vehicles:\n  - {vehicle: nope.yaml, tire: tire.yaml}\n')).rejects.toThrow(/key 'vehicles\[0\].vehicle': file not found: nope.yaml/);
    await expect(bad('vehicles:\n  - {vehicle: car.yaml, tire: tire.yaml, colour: red}\n')).rejects.toThrow(/key 'vehicles\[0\].colour': unknown vehicle key/);
    await expect(bad('vehicles:\n  - {id: 1, vehicle: car.yaml, tire: tire.yaml}\n  - {id: 1, vehicle: car.yaml, tire: tire.yaml}\n')).rejects.toThrow(/key 'vehicles\[1\].id': duplicate vehicle id 1/);
    await expect(bad(`mu: fast\n${car}`)).rejects.toThrow(/key 'mu': expected a finite number/);
    await expect(bad(`comms: {channels: [{source: ego.state, template: morse}]}\n${car}`)).rejects.toThrow(/bad.yaml: key 'comms.channels\[0\].template': unknown template 'morse'/);
    await expect(bad('rate: 200\n')).rejects.toThrow(/key 'vehicles': a world needs/);
  });
});

describe.skipIf(!have('shared'))("VDSim's catalog scene (scene_two_vehicle_race.yaml, unchanged)", () => {
  const scene = sharedPath('data', 'vdsim', 'scene_two_vehicle_race.yaml');
  it('needs the parts catalog for its blueprints, and says so', async () => {
    await expect(loadWorldFile(scene)).rejects.toThrow(/key 'fleet\[0\].blueprint': 'vehicle.sedan_comfort' needs the VDSim parts catalog: pass --catalog=<configs dir>/);
  });
  it('resolves blueprints and parts by id from --catalog folders; per-vehicle sensor declarations', async () => {
    const cat = join(dir, 'catalog');
    mkdirSync(join(cat, 'parts'), { recursive: true });
    copyFileSync(sharedPath('data', 'vdsim', 'blueprint_sedan_comfort.yaml'), join(cat, 'sedan_comfort.yaml'));
    copyFileSync(sharedPath('data', 'vdsim', 'parts_tire_default_pacejka.yaml'), join(cat, 'parts', 'tire.yaml'));
    const part = (id: string, type: string, body: string) => writeFileSync(join(cat, 'parts', `${id}.yaml`), `id: ${id}\ntype: ${type}\nbody:\n${body}`);
    part('body.sedan', 'body', '  mass: 1450.0\n  wheelbase: 2.75\n  cg_to_front: 1.25\n  cg_to_rear: 1.5\n');
    part('aero.sedan', 'aero', '  aero_drag_coeff: 0.28\n');
    part('ride.sedan', 'ride', '  spring_stiffness: [32000, 32000, 30000, 30000]\n');
    part('brake.sedan', 'brake', '  brake_bias_front: 0.62\n');
    part('steering.sedan', 'steering', '  ackerman_percent: 60\n');
    part('drivetrain.sedan', 'drivetrain', '  drive_type: FWD\n');
    part('tire.sport_grip', 'tire', '  D_lat: 1.2\n');
    part('body.sports', 'body', '  mass: 1320.0\n  wheelbase: 2.55\n  cg_to_front: 1.15\n  cg_to_rear: 1.4\n');
    writeFileSync(join(cat, 'sports.yaml'), 'id: vehicle.sports_aggressive\nlevel: L2\nparts:\n  body: body.sports\n  tire: tire.default_pacejka\n');
    const w = await loadWorldFile(scene, { catalogDirs: [cat] });
    expect([w.kind, w.rate, w.dt, w.cmdTimeout, w.comms]).toEqual(['scene', 200, 0, 0.1, undefined]);
    const [a, b] = w.vehicles;
    expect([a.id, a.x0, a.y0, a.vx0, a.vehicle.mass, a.vehicle.aeroDragCoeff, a.vehicle.brakeBiasFront, a.vehicle.driveType]).toEqual([0, -15, -1.5, 12, 1450, 0.28, 0.62, 'FWD']);
    expect(a.sensors?.declarations.map((d) => `${d.id}:${d.type}`)).toEqual(['gnss_roof:gnss', 'imu_cg:imu', 'enc:wheel_speed', 'cam_front:camera']);
    expect([b.id, b.vehicle.mass, b.tires[0].D_lat]).toEqual([1, 1320, 1.2]); // fleet[1].parts.tire overrides the blueprint's
  });
});

describe('vils realtime --scene: VDSim precedence', () => {
  it("the scene's rate and cmd_timeout win over the command line (with a warning); --time-scale wins over the scene", async () => {
    const p = write('prec.yaml', `rate: 250\ncmd_timeout: 0.3\ntime_scale: 2\nvehicles:\n  - {vehicle: car.yaml, tire: tire.yaml}\n`);
    const errs: string[] = [];
    const h = await startRealtime([`--scene=${p}`, '--rate=1000', '--cmd-timeout=0.05', '--time-scale=0.5', `--cmd-port=${await freePort()}`, `--state-port=${await freePort()}`, '--quiet'], { log: () => undefined, err: (l) => errs.push(l) });
    try {
      expect(h.server.dt).toBe(1 / 250);
      expect(h.server.vehicles[0].watchdog.cmdTimeoutS).toBe(0.3);
      expect(h.server.loop.timeScale).toBe(0.5);
      expect(errs.join('\n')).toMatch(/--rate=1000 ignored: the scene's rate \(250 Hz\) wins/);
      expect(errs.join('\n')).toMatch(/--cmd-timeout=0.05 ignored/);
    } finally {
      await h.stop();
    }
  });
});
