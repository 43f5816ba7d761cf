/**
 * The comms templates: how one source (a vehicle's state, its command, one of its sensors) is put on the wire.
 * Each template is one file in this folder that calls registerTemplate() when loaded; loadTemplates() imports
 * every file here, so adding a template is adding a file. A channel's template must accept its source kind
 * (and, for a sensor source, the sensor's type); anything else is refused when the comms config loads.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DriverCommand } from '../../../plant/types.js';
import type { SensorMeasurement } from '../../../plant/sensors/measurement.js';
import type { GeodeticOrigin } from '../../geodetic.js';
import type { StateFields } from '../../vds1.js';

export type SourceKind = 'state' | 'cmd' | 'sensor';

/** What a template sees of a vehicle. */
export interface TemplateVehicle {
  readonly id: number;
  /** This tick's STATE values (the header fields are set by the emitter). */
  readonly frame: StateFields;
  /** The measured sensor channels (identity when the sensor model is off). */
  readonly sensors: Readonly<SensorMeasurement>;
  /** The command the plant holds (the latched input, fail-safe included). */
  readonly command: Readonly<DriverCommand>;
}

/** One encode call; the router reuses one object and overwrites its fields. */
export interface TxContext {
  vehicle: TemplateVehicle;
  /** Frame sequence number (one counter shared by every frame the server sends, as in vdsim_realtime). */
  seq: number;
  /** Server monotonic time at the start of the tick [s] (not sim time, not UTC). */
  timestamp: number;
  /** Wall-clock UTC at the tick [ms since 1970] (NMEA time fields). */
  utcMs: number;
  /** VDS1 protocol version of the binary templates. */
  version: number;
  /** Geodetic datum of the channel's ENU metres (NMEA). */
  origin: GeodeticOrigin;
  /** The sensor's type for a sensor source (e.g. 'gnss'), else ''. */
  sensorType: string;
}

export interface TxSide {
  readonly sources: readonly SourceKind[];
  /** Sensor types accepted from a `<id>.sensor.<sensor>` source. */
  readonly sensorTypes?: readonly string[];
  /** Writes one frame into `out`; returns its length, or −1 when it does not fit (the frame is dropped, never cut). */
  encode(ctx: Readonly<TxContext>, out: Buffer): number;
}

export interface CommsTemplate {
  readonly name: string;
  /** Other names accepted in a comms file (VDSim's `vds1` for `vds1_state`, ...). */
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly tx?: TxSide;
  /** True when a `direction: in` channel may use it (it decodes VDS1 CMDs). */
  readonly rx?: boolean;
  /** Names that select this template on a `direction: in` channel only (VDSim's `vds1` there means the CMD). */
  readonly rxAliases?: readonly string[];
}

const TEMPLATES = new Map<string, CommsTemplate>();
const BY_NAME = new Map<string, CommsTemplate>();

export function registerTemplate(t: CommsTemplate): void {
  for (const name of [t.name, ...(t.aliases ?? [])]) {
    const prior = BY_NAME.get(name);
    if (prior && prior !== t) throw new Error(`comms template name '${name}' is taken by '${prior.name}'`);
  }
  TEMPLATES.set(t.name, t);
  for (const name of [t.name, ...(t.aliases ?? [])]) BY_NAME.set(name, t);
}

/** A template by name or alias; `direction` 'in' also looks at receive-side aliases first. */
export function findTemplate(name: string, direction: 'in' | 'out' = 'out'): CommsTemplate | undefined {
  if (direction === 'in') for (const t of TEMPLATES.values()) if (t.rx && t.rxAliases?.includes(name)) return t;
  return BY_NAME.get(name);
}

export function listTemplates(): CommsTemplate[] {
  return [...TEMPLATES.values()].sort((a, b) => a.name.localeCompare(b.name));
}

let loading: Promise<void> | undefined;

/** Imports every template file of this folder once (each registers itself). */
export function loadTemplates(): Promise<void> {
  loading ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    const dir = dirname(here);
    const files = readdirSync(dir)
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts') && !/^registry\./.test(f))
      .sort();
    for (const f of files) await import(new URL(f, import.meta.url).href);
  })();
  return loading;
}

/** Writes ASCII text into `out`; −1 when it does not fit (VDSim drops a text frame that does not fit its 512 B buffer). */
export function writeText(text: string, out: Buffer, maxBytes = out.length): number {
  if (text.length > maxBytes || text.length > out.length) return -1;
  return out.write(text, 0, 'latin1');
}
