import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_TIRE_PARAMS,
  classifyConfig,
  loadActuatorParams,
  loadSensorParams,
  loadSolverParams,
  loadTireParams,
  loadVehicleParams,
  parseYamlText,
  tireParams,
  vehicleParams,
} from '../../src/plant/index.js';
import { sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-plant-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}
const vdsim = (name: string) => sharedPath('data', 'vdsim', name);

describe.skipIf(!have('shared'))('VDSim config files in ../shared/data/vdsim', () => {
  it('generic_sedan.yaml is exactly the C++ defaults; its renderer keys are metadata, not warnings', () => {
    const r = loadVehicleParams(vdsim('generic_sedan.yaml'));
    expect(r.params).toEqual(vehicleParams());
    expect(r.warnings).toEqual([]);
    expect(r.metadata).toEqual({ tire_yaml: 'parts/tire/generic_pacejka.yaml', body_lwh_m: [4.6, 1.8, 1.45], wheel_width_m: 0.225 });
  });
  it('generic_pacejka.yaml is exactly the C++ tire defaults (MF96 + LuGre)', () => {
    const r = loadTireParams(vdsim('generic_pacejka.yaml'));
    expect(r.params).toEqual(tireParams());
    expect(r.warnings).toEqual([]);
  });
  it('catalog parts are understood: the body is unwrapped (not silently replaced by defaults)', () => {
    const chassis = loadVehicleParams(vdsim('parts_chassis_sedan.yaml'));
    expect(chassis.source.part).toEqual({ id: 'chassis.sedan', type: 'chassis' });
    expect([chassis.params.aeroLiftFront, chassis.params.aeroLiftRear, chassis.params.mass]).toEqual([0.05, 0.05, 1500]);
    const tire = loadTireParams(vdsim('parts_tire_default_pacejka.yaml'));
    expect(tire.source.part?.type).toBe('tire');
    expect([tire.params.loadSensitivity, tire.params.relaxationLengthLat, tire.params.rollingResistance, tire.params.lugre.enabled]).toEqual([0.15, 0.6, 0.015, true]);
    const fallback = loadTireParams(vdsim('tire_kinematic_fallback.yaml'));
    expect(fallback.params.lugre).toEqual({ enabled: false, sigma0: 300000, sigma1: 0, sigma2: 120, mEff: 40 });
    expect(loadTireParams(vdsim('tire_lugre_on.yaml')).params.lugre.sigma0).toBe(90000);
  });
  it('flat tire and sensor files load; the sensor file enables noise with its seed', () => {
    expect(loadTireParams(vdsim('tires_default_pacejka.yaml')).params.loadSensitivity).toBe(0.15);
    const s = loadSensorParams(vdsim('sensors_standard.yaml'));
    expect([s.params.enabled, s.params.seed, s.params.imuAccel.noiseStd, s.params.imuAccel.biasRw, s.params.gnssPos.noiseStd]).toEqual([true, 42, 0.05, 0.002, 0.3]);
  });
  it('vehicles_sports.yaml repeats roll_center_height_*: an error naming the file and key, unless duplicates are allowed (last wins)', () => {
    const e = errorOf(() => loadVehicleParams(vdsim('vehicles_sports.yaml')));
    expect(e.file).toBe(vdsim('vehicles_sports.yaml'));
    expect(e.key).toBe('roll_center_height_front');
    expect(e.message).toMatch(/duplicate key at line 35 \(first defined at line 29\)/);
    const r = loadVehicleParams(vdsim('vehicles_sports.yaml'), { allowDuplicateKeys: true });
    expect([r.params.rollCenterHeightFront, r.params.rollCenterHeightRear, r.params.differential, r.params.ackermanPercent]).toEqual([0.08, 0.12, 'LSD', 85]);
    expect(r.warnings.some((w) => w.includes("'roll_center_height_front' appears twice"))).toBe(true);
    expect(r.warnings.some((w) => w.includes("unknown key 'pitch_center_height'"))).toBe(true);
  });
  it('every other shared file is recognised and rejected with what it is', () => {
    const cases: [string, RegExp][] = [
      ['blueprint_sedan_comfort.yaml', /is a catalog blueprint/],
      ['comms_json_nmea.yaml', /is a comms routing config/],
      ['comms_vds1_loopback.yaml', /is a comms routing config/],
      ['comms_example_python_router.yaml', /is a comms routing config/],
      ['experiment_step_steer.yaml', /is a vdsim_lab experiment/],
      ['experiment_oval_lap.yaml', /is a vdsim_lab experiment/],
      ['map_flat_open.yaml', /is a map file/],
      ['map_oval_track.yaml', /is a map file/],
      ['scene_two_vehicle_race.yaml', /is a vdsim_realtime catalog scene/],
    ];
    for (const [name, re] of cases) {
      expect(() => loadVehicleParams(vdsim(name)), name).toThrow(re);
      expect(() => loadTireParams(vdsim(name)), name).toThrow(re);
    }
    expect(() => loadVehicleParams(vdsim('generic_pacejka.yaml'))).toThrow(/is a tire parameter file, not a vehicle parameter file/);
    expect(() => loadTireParams(vdsim('parts_chassis_sedan.yaml'))).toThrow(/catalog part 'chassis.sedan' \(type chassis\), not a tire parameter file/);
    expect(() => loadSensorParams(vdsim('generic_sedan.yaml'))).toThrow(/is a vehicle parameter file, not a sensor noise file/);
  });
});

describe('YAML loading rules', () => {
  it('missing keys keep the defaults; unknown keys are returned as warnings (not printed)', () => {
    const r = loadVehicleParams(file('v1.yaml', 'mass: 1600\nwheelbase: 2.6\ncg_to_front: 1.1\ncg_to_rear: 1.5\nfoo_bar: 3\n'));
    expect([r.params.mass, r.params.wheelbase, r.params.trackFront]).toEqual([1600, 2.6, 1.55]);
    expect(r.warnings).toEqual([`${join(dir, 'v1.yaml')}: unknown key 'foo_bar' ignored`]);
    expect(loadVehicleParams(file('v1b.yaml', 'mass: 1200\n')).warnings).toEqual([`${join(dir, 'v1b.yaml')}: mass_sprung (1350) exceeds mass (1200)`]);
  });
  it('warns when cg_to_front + cg_to_rear differs from the wheelbase', () => {
    const r = loadVehicleParams(file('v2.yaml', 'wheelbase: 3.0\n'));
    expect(r.warnings[0]).toMatch(/cg_to_front \+ cg_to_rear \(2.7\) != wheelbase \(3\)/);
  });
  it('wrong array length, bad enum, wrong type: errors naming the file and the key', () => {
    const p1 = file('bad1.yaml', 'mass: 1500\nspring_stiffness: [1, 2, 3]\n');
    const e1 = errorOf(() => loadVehicleParams(p1));
    expect([e1.file, e1.key]).toEqual([p1, 'spring_stiffness']);
    expect(e1.message).toContain('must be a list of 4 numbers [FL, FR, RL, RR]');
    const e2 = errorOf(() => loadVehicleParams(file('bad2.yaml', 'mass: 1500\ndrive_type: 4WD\n')));
    expect(e2.key).toBe('drive_type');
    expect(e2.message).toContain('expected one of FWD | RWD | AWD');
    const e3 = errorOf(() => loadVehicleParams(file('bad3.yaml', 'mass: 1500\ndifferential: open\n')));
    expect(e3.message).toContain('Open | Locked | LSD');
    const e4 = errorOf(() => loadVehicleParams(file('bad4.yaml', 'mass: heavy\n')));
    expect([e4.key, e4.message.includes("expected a finite number, got 'heavy'")]).toEqual(['mass', true]);
    const e5 = errorOf(() => loadVehicleParams(file('bad5.yaml', 'mass: 1500\ninertia_diag: [1, 2]\n')));
    expect(e5.key).toBe('inertia_diag');
    const e6 = errorOf(() => loadSolverParams(file('bad6.yaml', 'integrator: RK45\n')));
    expect([e6.key, e6.message.includes('RK4 | Euler')]).toEqual(['integrator', true]);
    const e7 = errorOf(() => loadTireParams(file('bad7.yaml', 'B_lat: 8\nlugre: { enabled: yes_please }\n')));
    expect(e7.key).toBe('lugre.enabled');
    const e8 = errorOf(() => loadVehicleParams(file('bad8.yaml', 'mass: -5\n')));
    expect(e8.message).toContain('must be > 0');
  });
  it('duplicate keys in nested maps are found too', () => {
    const e = errorOf(() => loadTireParams(file('dup.yaml', 'B_lat: 8\nlugre:\n  sigma0: 1\n  sigma0: 2\n')));
    expect(e.key).toBe('lugre.sigma0');
  });
  it("MF2002 ('magic_formula') tires are refused with the reason", () => {
    expect(() => loadTireParams(file('tir.yaml', 'backend: magic_formula\ntir_path: x.tir\n'))).toThrow(/MF2002 from a .tir file\) is not supported/);
  });
  it('YAML syntax errors and missing files name the file', () => {
    expect(() => loadVehicleParams(file('syntax.yaml', 'mass: [1, 2\n'))).toThrow(/syntax\.yaml: YAML syntax error/);
    expect(() => loadVehicleParams(join(dir, 'nope.yaml'))).toThrow(/nope\.yaml: cannot read file \(ENOENT\)/);
  });
  it('unsupported VDSim features are loaded with a warning: powertrain, steering_dynamic, L5 solver keys', () => {
    const r = loadVehicleParams(file('pt.yaml', 'mass: 1500\nsteering_dynamic: true\npowertrain:\n  engine: { idle_rpm: 800 }\n'));
    expect(r.warnings.join('\n')).toMatch(/'powertrain' .* is not simulated/);
    expect(r.warnings.join('\n')).toMatch(/'steering_dynamic: true' .* is not simulated/);
    const s = loadSolverParams(file('sp.yaml', 'integrator: Euler\nmax_substep_dt: 0.0005\nmax_substeps: 20\nstunt_physics: true\n'));
    expect(s.params).toEqual({ integrator: 'Euler', maxSubstepDt: 0.0005, maxSubsteps: 20 });
    expect(s.warnings[0]).toMatch(/'stunt_physics' belongs to VDSim's L5/);
  });
  it('tire sub-maps and VDSim low-speed keys', () => {
    const r = loadTireParams(file('t.yaml', 'B_lat: 9\nvlow_speed_eps: 0.2\nlow_speed_mode: kinematic_blend\nbelt: { enabled: true, sigma_lat: 0.4 }\nlugre: { enabled: false }\n'));
    expect([r.params.B_lat, r.params.vlowSpeedEps, r.params.belt.enabled, r.params.belt.sigmaLat, r.params.belt.sigmaLong, r.params.lugre.enabled]).toEqual([9, 0.2, true, 0.4, 0.5, false]);
    expect(r.params.lugre.sigma0).toBe(DEFAULT_TIRE_PARAMS.lugre.sigma0);
  });
  it('scene-style sensor lists: noise to the type groups, declarations kept, hard errors as VDSim', () => {
    const r = loadSensorParams(
      file('sl.yaml', 'seed: 7\nlist:\n  - { id: gnss_roof, type: gnss, mount: { pos: [0.2, 0, 1.4], rpy: [0, 0, 0] }, rate: 10, noise_std: 0.3 }\n  - { type: imu, noise_std: 0.05, bias_rw: 0.001 }\n  - { id: cam, type: camera, params: { fov_deg: 90 } }\n'),
    );
    expect([r.params.enabled, r.params.seed, r.params.gnssPos.noiseStd, r.params.gnssVel.noiseStd, r.params.imuGyro.biasRw]).toEqual([true, 7, 0.3, 0.3, 0.001]);
    expect(r.params.declarations.map((d) => d.id)).toEqual(['gnss_roof', 'imu', 'cam']);
    expect(r.params.declarations[0].mountPos).toEqual([0.2, 0, 1.4]);
    expect(r.params.declarations[2].params).toEqual({ fov_deg: 90 });
    expect(() => loadSensorParams(file('sl2.yaml', '- { type: camera, noise_std: 1 }\n'))).toThrow(/declaration only/);
    expect(() => loadSensorParams(file('sl3.yaml', '- { type: sonar }\n'))).toThrow(/list\[0\]\.type/);
    expect(() => loadSensorParams(file('sl4.yaml', '- { type: imu }\n- { type: imu }\n'))).toThrow(/duplicate sensor id 'imu'/);
    expect(() => loadSensorParams(file('sl5.yaml', '- { type: imu, colour: red }\n'))).toThrow(/list\[0\]\.colour/);
  });
  it('actuator files: nested steer/throttle/brake maps', () => {
    const r = loadActuatorParams(file('act.yaml', 'steer: { dead_time_s: 0.02, tau_s: 0.05, rate_limit: 0.8, out_min: -0.5, out_max: 0.5 }\nthrottle: { dead_zone: 0.05 }\nbrake: { thermal_enabled: true, mu_T_temp: [100, 400], mu_T_scale: [1, 0.6] }\n'));
    expect([r.params.steer.deadTimeS, r.params.steer.tauS, r.params.steer.rateLimit, r.params.steer.outMax, r.params.throttle.deadZone]).toEqual([0.02, 0.05, 0.8, 0.5, 0.05]);
    expect([r.params.brake.thermalEnabled, r.params.brake.muTempC, r.params.brake.muScale]).toEqual([true, [100, 400], [1, 0.6]]);
    expect(() => loadActuatorParams(file('act2.yaml', 'brake: { mu_T_temp: [100, 400], mu_T_scale: [1] }\n'))).toThrow(/brake\.mu_T_scale/);
  });
  it('classification by keys', () => {
    const kind = (t: string) => classifyConfig(parseYamlText(t, 'x.yaml').data).kind;
    expect(kind('B_long: 1\n')).toBe('tire');
    expect(kind('mass: 1\n')).toBe('vehicle');
    expect(kind('integrator: RK4\n')).toBe('solver');
    expect(kind('imu_gyro: { noise_std: 1 }\n')).toBe('sensor');
    expect(kind('steer: { tau_s: 0.1 }\n')).toBe('actuator');
    expect(kind('id: x\ntype: aero\nbody: { aero_drag_coeff: 0.3 }\n')).toBe('vehicle');
    expect(kind('id: x\ntype: susp_kinematics\nbody: { a: 1 }\n')).toBe('unsupported-part');
    expect(kind('hello: 1\n')).toBe('unknown');
  });
});
