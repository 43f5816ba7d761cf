/**
 * ROS 2 message definitions for `vils export`: the .msg files of ros2/interfaces (the fields of the real packages;
 * the bridge's tests hold them against the real rclpy classes, field for field), made into MCAP `ros2msg` schemas
 * as rosbag2 writes them (the type's own text, then each type it uses once, after a line of 80 `=` and
 * `MSG: pkg/Type`), and a CDR writer per type (@foxglove/rosmsg2-serialization).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { projectRoot } from '../util/project-root.js';

const SEPARATOR = '='.repeat(80);
/** .msg primitive types (and the bounded string forms), which are not message types of their own */
const PRIMITIVE = /^(bool|byte|char|float32|float64|u?int(8|16|32|64)|w?string)(<=\d+)?$/;

export interface Ros2Type {
  /** 'pkg/msg/Type', as rosbag2 names schemas and topic types */
  name: string;
  /** the ros2msg schema: the type's definition and every type it uses */
  schema: string;
  /** the type's numeric constants by name (TrafficLightElement.RED, Marker.CUBE, ...) */
  constants: Record<string, number>;
  write(message: unknown): Uint8Array;
}

export function interfacesDir(): string {
  return join(projectRoot(), 'ros2', 'interfaces');
}

/** 'pkg/Type' or 'pkg/msg/Type' -> [pkg, Type] */
function split(type: string): [string, string] {
  const parts = type.split('/');
  return [parts[0], parts[parts.length - 1]];
}

export class Ros2Definitions {
  private readonly texts = new Map<string, string>();
  private readonly types = new Map<string, Ros2Type>();

  constructor(private readonly dir = interfacesDir()) {}

  /** the .msg text of 'pkg/Type' */
  text(type: string): string {
    const [pkg, name] = split(type);
    const key = `${pkg}/${name}`;
    let t = this.texts.get(key);
    if (t === undefined) {
      t = readFileSync(join(this.dir, pkg, 'msg', `${name}.msg`), 'utf8');
      this.texts.set(key, t);
    }
    return t;
  }

  /** the message types a definition uses directly, as 'pkg/Type' (a bare name is of the same package) */
  private uses(type: string): string[] {
    const [pkg] = split(type);
    const out: string[] = [];
    for (const raw of this.text(type).split('\n')) {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) continue;
      const fieldType = line.split(/\s+/, 1)[0];
      const base = fieldType.replace(/\[.*\]$/, '');
      if (PRIMITIVE.test(base)) continue; // constants are of primitive types too
      out.push(base.includes('/') ? base.replace('/msg/', '/') : `${pkg}/${base}`);
    }
    return out;
  }

  /** the ros2msg schema text of a type: its definition, then every type it uses (depth first, each once) */
  schema(type: string): string {
    const [pkg, name] = split(type);
    const seen = new Set<string>([`${pkg}/${name}`]);
    const order: string[] = [];
    const visit = (t: string) => {
      for (const u of this.uses(t)) {
        if (seen.has(u)) continue;
        seen.add(u);
        order.push(u);
        visit(u);
      }
    };
    visit(`${pkg}/${name}`);
    return [this.text(type).trimEnd(), ...order.map((u) => `${SEPARATOR}\nMSG: ${u}\n${this.text(u).trimEnd()}`)].join('\n') + '\n';
  }

  get(type: string): Ros2Type {
    const [pkg, name] = split(type);
    const full = `${pkg}/msg/${name}`;
    let t = this.types.get(full);
    if (!t) {
      const schema = this.schema(full);
      const defs = parse(schema, { ros2: true });
      const constants: Record<string, number> = {};
      for (const f of defs[0].definitions) if (f.isConstant && typeof f.value === 'number') constants[f.name] = f.value;
      const writer = new MessageWriter(defs);
      t = { name: full, schema, constants, write: (m) => writer.writeMessage(m) };
      this.types.set(full, t);
    }
    return t;
  }
}
