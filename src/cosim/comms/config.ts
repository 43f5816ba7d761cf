/**
 * Comms routing config (spec §6.9, §2.5; seed 001 §4; VDSim configs/comms/*.yaml):
 *
 *   name: <label>
 *   channels:
 *     - source: <vehicle>.state | <vehicle>.cmd | <vehicle>.sensor.<sensor id>   # vehicle = fleet id or `ego`
 *       template: vds1_state | vds1 | json | nmea_gga | nmea_rmc | imu | imu_raw | vds1_cmd
 *       transport: udp                      # optional, the only one
 *       to: [ {ip: 127.0.0.1, port: 7100}, ... ]   # fan-out
 *       origin: {lat, lon, alt}             # datum of the ENU metres (NMEA templates); default 0, 0, 0
 *     - direction: in                       # fan-in: one listen port, any number of senders
 *       template: vds1_cmd                  # (or vds1)
 *       listen: {port: 7001}
 *       source: <vehicle>.cmd               # optional: the target for VDS1 v1–v3 CMDs (no vehicle_id)
 *   bind: 127.0.0.1                         # VILS: where the listen ports bind (default 127.0.0.1, loopback only)
 *   allow: [192.168.1.20, 10.0.0.0/24]      # VILS: beyond loopback, whose commands are taken (IPv4 or CIDR);
 *                                           # a bind beyond loopback needs it (VDS1 has no authentication)
 *
 * Stricter than VDSim, which warns and skips: an unknown template, source, key or vehicle, a template that
 * cannot carry its source, a bad address or port is an error naming the file and the key.
 */
import { ConfigError } from '../../plant/config/errors.js';
import { isRecord, readYamlFile } from '../../plant/config/yaml-file.js';
import type { GeodeticOrigin } from '../geodetic.js';
import { SourceFilter, SourceListError, isLoopbackAddress } from '../sources.js';
import { type CommsTemplate, type SourceKind, findTemplate, listTemplates, loadTemplates } from './templates/registry.js';

export interface Destination {
  ip: string;
  port: number;
}

export interface SourceRef {
  /** 'ego' (the first fleet vehicle) or a fleet id. */
  vehicle: 'ego' | number;
  kind: SourceKind;
  /** For kind 'sensor': the sensor id (its type comes from the vehicle's sensor list, or is the id itself). */
  sensor?: string;
  text: string;
}

export interface TxChannelSpec {
  direction: 'out';
  /** Dotted key of the channel in its file, for messages ('channels[2]'). */
  key: string;
  source: SourceRef;
  template: CommsTemplate;
  to: Destination[];
  origin: GeodeticOrigin;
}

export interface RxChannelSpec {
  direction: 'in';
  key: string;
  template: CommsTemplate;
  port: number;
  source?: SourceRef;
}

export type ChannelSpec = TxChannelSpec | RxChannelSpec;

export interface CommsSpec {
  name: string;
  /** The file the channels came from (the world file for an inline `comms:` map). */
  file: string;
  /** Dotted prefix of the channels in that file ('' or 'comms'). */
  prefix: string;
  channels: ChannelSpec[];
  warnings: string[];
  /** where the listen ports bind (`bind`; absent: the user's default, 127.0.0.1) */
  bind?: string;
  /** IPv4 addresses and a.b.c.d/n blocks whose commands are taken beyond loopback (`allow`) */
  allow: string[];
}

const CHANNEL_KEYS = new Set(['source', 'template', 'transport', 'to', 'direction', 'listen', 'origin']);
const TOP_KEYS = new Set(['name', 'channels', 'bind', 'allow']);
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function knownTemplates(filter: (t: CommsTemplate) => boolean): string {
  return listTemplates()
    .filter(filter)
    .map((t) => t.name)
    .join(', ');
}

/** Parses `ego.state`, `0.state`, `1.cmd`, `ego.sensor.gnss`. */
export function parseSource(text: unknown, file: string, key: string): SourceRef {
  if (typeof text !== 'string' || text === '') throw new ConfigError(file, key, `expected a source like 'ego.state', '0.state', '1.cmd' or 'ego.sensor.gnss', got ${JSON.stringify(text)}`);
  const parts = text.split('.');
  const sel = parts[0];
  let vehicle: 'ego' | number;
  if (sel === 'ego') vehicle = 'ego';
  else if (/^\d+$/.test(sel) && Number(sel) <= 0xffffffff) vehicle = Number(sel);
  else throw new ConfigError(file, key, `unknown source '${text}': the vehicle must be 'ego' or a fleet id (0, 1, ...)`);
  if (parts.length === 2 && (parts[1] === 'state' || parts[1] === 'cmd')) return { vehicle, kind: parts[1], text };
  if (parts.length === 3 && parts[1] === 'sensor' && parts[2] !== '') return { vehicle, kind: 'sensor', sensor: parts[2], text };
  throw new ConfigError(file, key, `unknown source '${text}' (expected <vehicle>.state, <vehicle>.cmd or <vehicle>.sensor.<id>)`);
}

function parsePort(v: unknown, file: string, key: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) throw new ConfigError(file, key, `expected a UDP port 1..65535, got ${JSON.stringify(v)}`);
  return v;
}

function parseIp(v: unknown, file: string, key: string): string {
  if (v === 'localhost') return '127.0.0.1';
  if (typeof v !== 'string' || !IPV4.test(v)) throw new ConfigError(file, key, `expected an IPv4 address like 127.0.0.1, got ${JSON.stringify(v)}`);
  return v;
}

function parseOrigin(v: unknown, file: string, key: string): GeodeticOrigin {
  const o = { lat: 0, lon: 0, alt: 0 };
  if (v === undefined || v === null) return o;
  if (!isRecord(v)) throw new ConfigError(file, key, 'expected a map {lat, lon, alt}');
  for (const [k, x] of Object.entries(v)) {
    if (k !== 'lat' && k !== 'lon' && k !== 'alt') throw new ConfigError(file, `${key}.${k}`, 'unknown key (expected lat, lon, alt)');
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new ConfigError(file, `${key}.${k}`, `expected a finite number, got ${JSON.stringify(x)}`);
    o[k] = x;
  }
  if (Math.abs(o.lat) > 90) throw new ConfigError(file, `${key}.lat`, `must be within ±90, got ${o.lat}`);
  return o;
}

function parseChannel(ch: unknown, file: string, key: string, warnings: string[]): ChannelSpec {
  if (!isRecord(ch)) throw new ConfigError(file, key, 'expected a map {source, template, to} or {direction: in, template, listen}');
  for (const k of Object.keys(ch)) if (!CHANNEL_KEYS.has(k)) throw new ConfigError(file, `${key}.${k}`, `unknown channel key (expected ${[...CHANNEL_KEYS].join(', ')})`);
  if (ch.transport !== undefined && ch.transport !== 'udp') throw new ConfigError(file, `${key}.transport`, `only 'udp' is supported, got ${JSON.stringify(ch.transport)}`);
  if (ch.direction !== undefined && ch.direction !== 'in' && ch.direction !== 'out') throw new ConfigError(file, `${key}.direction`, `expected 'in' or 'out', got ${JSON.stringify(ch.direction)}`);
  const rx = ch.direction === 'in' || (ch.direction === undefined && ch.listen !== undefined);
  const templateName = ch.template ?? (rx ? 'vds1_cmd' : '');
  if (typeof templateName !== 'string') throw new ConfigError(file, `${key}.template`, `expected a template name, got ${JSON.stringify(templateName)}`);
  const template = findTemplate(templateName, rx ? 'in' : 'out');
  if (!template) throw new ConfigError(file, `${key}.template`, `unknown template '${templateName}' (known: ${knownTemplates(() => true)})`);
  if (rx) {
    if (!template.rx) throw new ConfigError(file, `${key}.template`, `template '${templateName}' cannot receive; a direction: in channel takes ${knownTemplates((t) => Boolean(t.rx))}`);
    if (ch.to !== undefined) throw new ConfigError(file, `${key}.to`, 'a direction: in channel listens; it has no `to`');
    if (ch.origin !== undefined) throw new ConfigError(file, `${key}.origin`, 'a direction: in channel has no origin');
    if (!isRecord(ch.listen)) throw new ConfigError(file, `${key}.listen`, 'expected {port: <1..65535>}');
    for (const k of Object.keys(ch.listen)) if (k !== 'port') throw new ConfigError(file, `${key}.listen.${k}`, 'unknown key (expected port)');
    const port = parsePort(ch.listen.port, file, `${key}.listen.port`);
    let source: SourceRef | undefined;
    if (ch.source !== undefined) {
      source = parseSource(ch.source, file, `${key}.source`);
      if (source.kind !== 'cmd') throw new ConfigError(file, `${key}.source`, `a direction: in channel carries commands: its source must be <vehicle>.cmd, got '${source.text}'`);
    }
    return { direction: 'in', key, template, port, source };
  }
  if (ch.listen !== undefined) throw new ConfigError(file, `${key}.listen`, 'only a direction: in channel listens');
  if (ch.source === undefined) throw new ConfigError(file, `${key}.source`, 'missing (e.g. ego.state)');
  const source = parseSource(ch.source, file, `${key}.source`);
  const tx = template.tx;
  if (!tx) throw new ConfigError(file, `${key}.template`, `template '${templateName}' only receives (use it on a direction: in channel)`);
  if (!tx.sources.includes(source.kind)) {
    throw new ConfigError(file, `${key}.template`, `template '${templateName}' cannot carry a ${source.kind} source ('${source.text}'); for that use ${knownTemplates((t) => Boolean(t.tx?.sources.includes(source.kind)))}`);
  }
  const to: Destination[] = [];
  if (ch.to !== undefined && ch.to !== null) {
    const list = Array.isArray(ch.to) ? ch.to : [ch.to];
    list.forEach((d, i) => {
      const dk = `${key}.to[${i}]`;
      if (!isRecord(d)) throw new ConfigError(file, dk, 'expected {ip, port}');
      for (const k of Object.keys(d)) if (k !== 'ip' && k !== 'port') throw new ConfigError(file, `${dk}.${k}`, 'unknown key (expected ip, port)');
      to.push({ ip: parseIp(d.ip, file, `${dk}.ip`), port: parsePort(d.port, file, `${dk}.port`) });
    });
  }
  if (to.length === 0) warnings.push(`${file}: ${key}: no destinations in 'to'; the channel sends nothing`);
  return { direction: 'out', key, source, template, to, origin: parseOrigin(ch.origin, file, `${key}.origin`) };
}

/** Parses a comms map (a comms file's document, or a world's inline `comms:` with prefix 'comms'). Templates must be loaded. */
export function parseComms(data: unknown, file: string, prefix = ''): CommsSpec {
  const k = (s: string) => (prefix ? `${prefix}.${s}` : s);
  if (listTemplates().length === 0) throw new Error('comms templates are not loaded (await loadTemplates() first)');
  if (!isRecord(data)) throw new ConfigError(file, prefix || undefined, 'expected a comms map {name, channels: [...]}');
  const warnings: string[] = [];
  for (const key of Object.keys(data)) if (!TOP_KEYS.has(key)) warnings.push(`${file}: unknown comms key '${k(key)}' ignored`);
  if (data.name !== undefined && typeof data.name !== 'string') throw new ConfigError(file, k('name'), 'expected a string');
  if (!Array.isArray(data.channels)) throw new ConfigError(file, k('channels'), 'expected a list of channels');
  const channels = data.channels.map((ch, i) => parseChannel(ch, file, k(`channels[${i}]`), warnings));
  // who may send commands: loopback always; other machines only when bound beyond loopback and named here
  const allow: string[] = [];
  if (data.allow !== undefined && data.allow !== null) {
    if (!Array.isArray(data.allow)) throw new ConfigError(file, k('allow'), 'expected a list of IPv4 addresses or a.b.c.d/n blocks, e.g. [192.168.1.20, 10.0.0.0/24]');
    data.allow.forEach((a, i) => {
      if (typeof a !== 'string') throw new ConfigError(file, k(`allow[${i}]`), `expected an IPv4 address or a.b.c.d/n block, got ${JSON.stringify(a)}`);
      try {
        new SourceFilter([a]);
      } catch (err) {
        if (err instanceof SourceListError) throw new ConfigError(file, k(`allow[${i}]`), err.message);
        throw err;
      }
      allow.push(a.trim());
    });
  }
  let bind: string | undefined;
  if (data.bind !== undefined && data.bind !== null) {
    bind = parseIp(data.bind, file, k('bind'));
    if (!isLoopbackAddress(bind) && allow.length === 0) {
      throw new ConfigError(file, k('bind'), `binding ${bind} answers other machines: name the addresses whose commands are taken in ${k('allow')} (e.g. allow: [192.168.1.20, 10.0.0.0/24]); VDS1 has no authentication`);
    }
  }
  return { name: typeof data.name === 'string' ? data.name : '', file, prefix, channels, warnings, bind, allow };
}

/** Loads a comms YAML file (VDSim configs/comms/*.yaml). */
export async function loadCommsFile(path: string): Promise<CommsSpec> {
  await loadTemplates();
  return parseComms(readYamlFile(path).data, path);
}
