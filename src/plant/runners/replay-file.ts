/**
 * Reads replay inputs:
 *  - CSV with a header row: `t` (or `time`) [s] and any of `steer` [rad] (or `steer_deg`), `throttle`, `brake`,
 *    `gear`, `handbrake`; other columns (e.g. a VDSim result CSV's x, y, ...) are ignored;
 *  - JSON: a list of rows, or `{interpolation, controls: [...]}` (also `inputs`); `.yaml` for VDSim's legacy
 *    scenario files (`name, initial_vx, duration, dt, mu, interpolation: linear, controls: [{t, throttle,
 *    brake, steer}]`).
 * Missing channels are 0 (gear 1); values are checked (finite, pedals in [0, 1], gear −1/0/1).
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { ConfigError } from '../config/errors.js';
import { isRecord, parseYamlText } from '../config/yaml-file.js';
import { type CommandRow, CommandSchedule, type ScheduleInterpolation } from './command-schedule.js';

export interface ReplayInputs {
  schedule: CommandSchedule;
  /** From a legacy scenario file, when given. */
  initialVx?: number;
  durationS?: number;
  dtS?: number;
  mu?: number;
  warnings: string[];
}

const CHANNELS = ['steer', 'steer_deg', 'throttle', 'brake', 'gear', 'handbrake'];

function rowFrom(rec: Record<string, unknown>, file: string, where: string): CommandRow {
  const num = (key: string, def: number): number => {
    const v = rec[key];
    if (v === undefined || v === null || v === '') return def;
    const x = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (!Number.isFinite(x)) throw new ConfigError(file, `${where}.${key}`, `expected a finite number, got ${JSON.stringify(v)}`);
    return x;
  };
  const t = num('t', num('time', NaN));
  if (!Number.isFinite(t)) throw new ConfigError(file, `${where}.t`, 'every row needs a time t [s]');
  const steerDeg = num('steer_deg', NaN);
  const steer = Number.isFinite(steerDeg) ? (steerDeg * Math.PI) / 180 : num('steer', 0);
  const throttle = num('throttle', 0);
  const brake = num('brake', 0);
  const gear = num('gear', 1);
  if (throttle < 0 || throttle > 1) throw new ConfigError(file, `${where}.throttle`, `must be in [0, 1], got ${throttle}`);
  if (brake < 0 || brake > 1) throw new ConfigError(file, `${where}.brake`, `must be in [0, 1], got ${brake}`);
  if (![-1, 0, 1].includes(gear)) throw new ConfigError(file, `${where}.gear`, `must be -1, 0 or 1, got ${gear}`);
  const hb = rec.handbrake;
  const handbrake = hb === true || hb === 1 || hb === '1' || hb === 'true';
  return { t, steer, throttle, brake, gear, handbrake };
}

export function parseReplayCsv(text: string, file: string, interpolation: ScheduleInterpolation = 'zoh'): ReplayInputs {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  if (lines.length < 2) throw new ConfigError(file, undefined, 'a replay CSV needs a header row and at least one data row');
  const header = lines[0].split(',').map((h) => h.trim().toLowerCase());
  if (!header.includes('t') && !header.includes('time')) throw new ConfigError(file, undefined, `the header needs a 't' column, got ${header.join(', ')}`);
  const warnings: string[] = [];
  if (!CHANNELS.some((c) => header.includes(c))) throw new ConfigError(file, undefined, `no command column (${CHANNELS.join(', ')}) in the header`);
  for (const c of ['steer', 'throttle', 'brake']) {
    if (!header.includes(c) && !(c === 'steer' && header.includes('steer_deg'))) warnings.push(`${file}: no '${c}' column; ${c} is 0`);
  }
  const rows = lines.slice(1).map((line, i) => {
    const cells = line.split(',');
    if (cells.length !== header.length) throw new ConfigError(file, `line ${i + 2}`, `has ${cells.length} cells, the header has ${header.length}`);
    const rec: Record<string, unknown> = {};
    header.forEach((h, j) => (rec[h] = cells[j].trim()));
    return rowFrom(rec, file, `line ${i + 2}`);
  });
  return { schedule: schedule(rows, interpolation, file), warnings };
}

function schedule(rows: CommandRow[], interpolation: ScheduleInterpolation, file: string): CommandSchedule {
  try {
    return new CommandSchedule(rows, interpolation);
  } catch (err) {
    throw new ConfigError(file, undefined, (err as Error).message);
  }
}

export function parseReplayData(data: unknown, file: string, defaultInterpolation: ScheduleInterpolation = 'zoh'): ReplayInputs {
  const warnings: string[] = [];
  let list: unknown;
  let interpolation = defaultInterpolation;
  const out: Omit<ReplayInputs, 'schedule' | 'warnings'> = {};
  if (Array.isArray(data)) list = data;
  else if (isRecord(data)) {
    list = data.controls ?? data.inputs;
    if (data.interpolation !== undefined) {
      if (data.interpolation !== 'linear' && data.interpolation !== 'zoh') throw new ConfigError(file, 'interpolation', `expected linear or zoh, got ${JSON.stringify(data.interpolation)}`);
      interpolation = data.interpolation;
    }
    const opt = (key: string): number | undefined => {
      const v = data[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(file, key, `expected a number, got ${JSON.stringify(v)}`);
      return v;
    };
    out.initialVx = opt('initial_vx');
    out.durationS = opt('duration');
    out.dtS = opt('dt');
    out.mu = opt('mu');
  }
  if (!Array.isArray(list)) throw new ConfigError(file, undefined, 'expected a list of command rows, or a map with `controls: [...]`');
  const rows = list.map((r, i) => {
    if (!isRecord(r)) throw new ConfigError(file, `controls[${i}]`, 'expected a map {t, steer, throttle, brake}');
    return rowFrom(r, file, `controls[${i}]`);
  });
  return { schedule: schedule(rows, interpolation, file), ...out, warnings };
}

export function readReplayFile(path: string, interpolation?: ScheduleInterpolation): ReplayInputs {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(path, undefined, `cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return parseReplayCsv(text, path, interpolation);
  if (ext === '.json') {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(path, undefined, `invalid JSON: ${(err as Error).message}`);
    }
    return parseReplayData(data, path, interpolation);
  }
  if (ext === '.yaml' || ext === '.yml') return parseReplayData(parseYamlText(text, path).data, path, interpolation ?? 'linear');
  throw new ConfigError(path, undefined, `unknown replay format '${ext}' (expected .csv, .json or a legacy .yaml scenario)`);
}
