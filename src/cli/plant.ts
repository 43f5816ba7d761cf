/**
 * `vils plant <iso7401|iso4138|iso3888> --vehicle <yaml> --tire <yaml> [--level L1|L2|L3] [--json]
 * [--plot <file.svg>]`: runs one of VDSim's ISO procedures on the vehicle plant and prints its metrics.
 */
import { writeOutputFile } from '../util/output-file.js';
import { parseArgs } from 'node:util';
import {
  type Iso3888Result,
  type Iso4138Result,
  type Iso7401Result,
  LEVELS,
  type Level,
  PROCEDURES,
  type ProcedureName,
  type ProcedureResult,
  VDSIM_SEDAN_L2,
  loadTireParams,
  loadVehicleParams,
  plotIso3888,
  plotIso4138,
  plotIso7401,
  runProcedure,
  tireParams,
  vehicleParams,
} from '../plant/index.js';
import { type Command, UsageError } from './commands.js';

const USAGE = 'vils plant <iso7401|iso4138|iso3888> --vehicle <yaml> --tire <yaml> [--level L1|L2|L3] [--speed-kmh N] [--steer-deg N] [--mu N] [--allow-duplicate-keys] [--json] [--plot <file.svg>]';

function optionalNumber(s: string | undefined, what: string, min: number, max: number): number | undefined {
  if (s === undefined) return undefined;
  const v = Number(s);
  if (s.trim() === '' || !Number.isFinite(v) || v < min || v > max) throw new UsageError(`${what} must be a number in [${min}, ${max}], got ${s}`);
  return v;
}

/** The metrics of a result without its traces. */
export function procedureMetrics(r: ProcedureResult): Record<string, unknown> {
  const { trace: _trace, ...rest } = r as ProcedureResult & { waypoints?: unknown };
  delete (rest as { waypoints?: unknown }).waypoints;
  return rest;
}

/** True for VDSim's compiled-in default car and tire (generic_sedan + generic_pacejka), whose L2 figures VDSim publishes. */
export function isVdsimDefaultCar(vehicle: unknown, tire: unknown): boolean {
  return JSON.stringify(vehicle) === JSON.stringify(vehicleParams()) && JSON.stringify(tire) === JSON.stringify(tireParams());
}

function textReport(r: ProcedureResult, level: Level, showReference: boolean): string[] {
  const ref = VDSIM_SEDAN_L2;
  const lines = reportLines(r, level, ref);
  return showReference ? lines : lines.map((l) => l.replace(/ {3}VDSim.*$/, ''));
}

function reportLines(r: ProcedureResult, level: Level, ref: typeof VDSIM_SEDAN_L2): string[] {
  switch (r.procedure) {
    case 'iso7401': {
      const m = r as Iso7401Result;
      return [
        `ISO 7401 step steer, ${(m.speedMps * 3.6).toFixed(0)} km/h, δ = ${m.steerDeg}° (coast, level ${level})`,
        `  yaw rate steady state   ${m.yawRateSs.toFixed(4)} rad/s (${((m.yawRateSs * 180) / Math.PI).toFixed(3)} °/s)   VDSim sedan L2: ${ref.iso7401.yawRateSs} ± ${ref.iso7401.yawRateSsBand}`,
        `  yaw rate peak           ${m.yawRatePeak.toFixed(4)} rad/s`,
        `  overshoot U             ${m.overshoot.toFixed(3)}   VDSim: ${ref.iso7401.overshoot} (band ± ${ref.iso7401.overshootBand})`,
        `  time to peak            ${m.timeToPeakS.toFixed(3)} s   VDSim: ${ref.iso7401.timeToPeakS}`,
        `  response time (90 %)    ${m.responseTimeS.toFixed(3)} s   VDSim: ${ref.iso7401.responseTimeS}`,
        `  settling (5 %)          ${m.settlingTime5pctS.toFixed(3)} s   VDSim: ${ref.iso7401.settlingTime5pctS}`,
        `  a_y steady state        ${m.lateralAccelSs.toFixed(3)} m/s² (${(m.lateralAccelSs / 9.80665).toFixed(2)} g)   VDSim: ${ref.iso7401.lateralAccelSs} ± ${ref.iso7401.lateralAccelSsBand}`,
        `  speed at end            ${m.speedEndMps.toFixed(2)} m/s`,
      ];
    }
    case 'iso4138': {
      const m = r as Iso4138Result;
      return [
        `ISO 4138 steer ramp, ${(m.speedMps * 3.6).toFixed(0)} km/h (coast, level ${level})`,
        `  understeer gradient K   ${(m.gradientRadPerG * 1000).toFixed(3)} mrad/g (${(m.gradientRadPerMps2 * 1000).toFixed(3)} mrad/(m/s²)), ${m.tendency}   VDSim sedan L2: +${ref.iso4138.gradientMradPerG} mrad/g`,
        `  linear range            ≤ ${m.linearRangeAyMax.toFixed(2)} m/s²`,
        `  a_y max                 ${m.ayMax.toFixed(2)} m/s² (${(m.ayMax / 9.80665).toFixed(2)} g)   VDSim: ${ref.iso4138.ayMax}`,
        `  fit samples             ${m.fitSamples}${m.postPeakFitSamples > 0 ? ` (${m.postPeakFitSamples} after the a_y peak; over the rising part only K = ${(m.risingGradientRadPerG * 1000).toFixed(3)} mrad/g)` : ''}`,
      ];
    }
    case 'iso3888': {
      const m = r as Iso3888Result;
      return [
        `ISO 3888-2 lane change, ${m.entryKmh.toFixed(0)} km/h (pure pursuit, level ${level}): ${m.pass ? 'PASS' : 'FAIL'}`,
        `  exit speed              ${m.exitKmh.toFixed(2)} km/h   VDSim sedan L2: ${ref.iso3888.exitKmh}`,
        `  speed loss              ${m.speedLossKmh.toFixed(2)} km/h (gate < 2)   VDSim: ${ref.iso3888.speedLossKmh}`,
        `  max lateral excursion   ${m.maxLateralExcursionM.toFixed(3)} m (gate < 1.0)   VDSim: ${ref.iso3888.maxLateralExcursionM}`,
        `  peak yaw rate           ${m.peakYawRateDegS.toFixed(1)} °/s   VDSim: ${ref.iso3888.peakYawRateDegS}`,
        `  peak |a_y|              ${m.peakLateralAccelG.toFixed(3)} g   VDSim: ${ref.iso3888.peakLateralAccelG}`,
      ];
    }
  }
}

export const plantCommand: Command = {
  name: 'plant',
  summary: "run VDSim's ISO 7401 / 4138 / 3888 procedures on the vehicle plant and print the metrics",
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        vehicle: { type: 'string' },
        tire: { type: 'string' },
        level: { type: 'string' },
        'speed-kmh': { type: 'string' },
        'steer-deg': { type: 'string' },
        mu: { type: 'string' },
        'allow-duplicate-keys': { type: 'boolean' },
        json: { type: 'boolean' },
        plot: { type: 'string' },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`give one procedure: ${PROCEDURES.join(' | ')}`);
    const procedure = positionals[0] as ProcedureName;
    if (!PROCEDURES.includes(procedure)) throw new UsageError(`unknown procedure '${positionals[0]}' (expected ${PROCEDURES.join(' | ')})`);
    if (!values.vehicle) throw new UsageError('--vehicle <yaml> is required');
    if (!values.tire) throw new UsageError('--tire <yaml> is required');
    const level = (values.level ?? 'L2').toUpperCase() as Level;
    if (!LEVELS.includes(level)) throw new UsageError(`--level must be one of ${LEVELS.join(', ')}, got ${values.level}`);
    const speedKmh = optionalNumber(values['speed-kmh'], '--speed-kmh', 1, 300);
    const steerDeg = optionalNumber(values['steer-deg'], '--steer-deg', -30, 30);
    const mu = optionalNumber(values.mu, '--mu', 0.05, 2);
    if (steerDeg !== undefined && procedure === 'iso3888') throw new UsageError('--steer-deg does not apply to iso3888 (the path follower steers)');
    const loadOpts = { allowDuplicateKeys: values['allow-duplicate-keys'] ?? false };
    const vehicle = loadVehicleParams(values.vehicle, loadOpts);
    const tire = loadTireParams(values.tire, loadOpts);
    const warnings = [...vehicle.warnings, ...tire.warnings];
    const t0 = performance.now();
    const result = runProcedure(procedure, { vehicle: vehicle.params, tires: tire.params, level }, { speedKmh, steerDeg, mu });
    const elapsedMs = performance.now() - t0;
    const label = `${values.vehicle.split('/').pop()} + ${values.tire.split('/').pop()}, ${level}`;
    if (values.plot) {
      const svg = result.procedure === 'iso7401' ? plotIso7401(result, label) : result.procedure === 'iso4138' ? plotIso4138(result, label) : plotIso3888(result, label);
      writeOutputFile(values.plot, svg);
    }
    if (values.json) {
      const vdsimDefaultCar = isVdsimDefaultCar(vehicle.params, tire.params);
      console.log(JSON.stringify({ procedure, level, vehicle: values.vehicle, tire: values.tire, vdsim_default_car: vdsimDefaultCar, metrics: procedureMetrics(result), warnings, elapsed_ms: elapsedMs, plot: values.plot ?? null }));
      return exitCode(result);
    }
    for (const w of warnings) console.error(`warning: ${w}`);
    const reference = level === 'L2' && isVdsimDefaultCar(vehicle.params, tire.params) && speedKmh === undefined && steerDeg === undefined && mu === undefined;
    console.log(textReport(result, level, reference).join('\n'));
    if (reference) console.log('  (VDSim figures: its published sedan-L2 results for this car, spec §8.3/8.4)');
    console.log(`  (${vehicle.params.mass} kg, wheelbase ${vehicle.params.wheelbase} m; ${elapsedMs.toFixed(0)} ms)`);
    if (values.plot) console.log(`  plot written to ${values.plot}`);
    return exitCode(result);
  },
};

/** 1 when the procedure has a pass/fail verdict (ISO 3888-2) and failed, so scripts and CI see it. */
export function exitCode(r: ProcedureResult): number {
  return r.procedure === 'iso3888' && !(r as Iso3888Result).pass ? 1 : 0;
}
