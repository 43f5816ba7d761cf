/**
 * The comms router (spec §2.5, §6.9): a CommsSpec bound to a fleet. TX channels encode their source with their
 * template once per tick and send the frame to every `to` destination (fan-out); RX channels are listen ports
 * whose VDS1 CMDs go to the vehicle named by the header vehicle_id (fan-in: any number of senders, the last
 * accepted command wins). Every frame takes the next number of one sequence counter shared by all channels
 * and vehicles, as vdsim_realtime does. A text frame that does not fit the 512-byte buffer is dropped and
 * counted, never truncated.
 */
import type { Socket } from 'node:dgram';
import { ConfigError } from '../../plant/config/errors.js';
import type { GeodeticOrigin } from '../geodetic.js';
import { TxRing } from '../udp.js';
import type { CosimVehicle } from '../vehicle.js';
import type { CommsSpec, Destination } from './config.js';
import type { CommsTemplate, TxContext } from './templates/registry.js';

/** VDSim's TX buffer (comms_templates.hpp kTxBufBytes). */
export const TX_BUFFER_BYTES = 512;

export interface TxChannel {
  key: string;
  source: string;
  template: CommsTemplate;
  vehicle: CosimVehicle;
  sensorType: string;
  dests: Destination[];
  origin: GeodeticOrigin;
  ring: TxRing;
  frames: number;
  /** Frames dropped because they did not fit the buffer. */
  oversize: number;
  datagrams: number;
  sendErrors: number;
  onSent: (err: Error | null) => void;
}

export interface RxBinding {
  port: number;
  /** Target of VDS1 v1–v3 CMDs on this port (no vehicle_id in their header). */
  defaultVehicleId: number;
  keys: string[];
}

export class CommsRouter {
  readonly tx: TxChannel[] = [];
  readonly rx: RxBinding[] = [];
  readonly warnings: string[] = [];
  private readonly ctx: TxContext;

  constructor(
    readonly spec: CommsSpec,
    vehicles: readonly CosimVehicle[],
    version: number,
  ) {
    const byId = new Map(vehicles.map((v) => [v.id, v]));
    const ids = vehicles.map((v) => v.id).join(', ');
    const vehicleOf = (sel: 'ego' | number, key: string, text: string): CosimVehicle => {
      const v = sel === 'ego' ? vehicles[0] : byId.get(sel);
      if (!v) throw new ConfigError(spec.file, key, `source '${text}': no vehicle ${sel} in the fleet (ids: ${ids})`);
      return v;
    };
    for (const ch of spec.channels) {
      if (ch.direction === 'in') {
        const vid = ch.source ? vehicleOf(ch.source.vehicle, `${ch.key}.source`, ch.source.text).id : vehicles[0].id;
        const prior = this.rx.find((r) => r.port === ch.port);
        if (prior) {
          prior.keys.push(ch.key);
          if (prior.defaultVehicleId !== vid) this.warnings.push(`${spec.file}: ${ch.key}: port ${ch.port} is already bound by ${prior.keys[0]}; its v1–v3 target stays vehicle ${prior.defaultVehicleId}`);
        } else this.rx.push({ port: ch.port, defaultVehicleId: vid, keys: [ch.key] });
        continue;
      }
      const vehicle = vehicleOf(ch.source.vehicle, `${ch.key}.source`, ch.source.text);
      let sensorType = '';
      if (ch.source.kind === 'sensor') {
        const sensor = ch.source.sensor ?? '';
        const type = vehicle.sensorType(sensor);
        if (!type) throw new ConfigError(spec.file, `${ch.key}.source`, `vehicle ${vehicle.id} has no sensor '${sensor}' (declared: ${[...vehicle.sensorTypes.keys()].join(', ') || 'none'}; a sensor type such as gnss or imu is accepted as an id)`);
        const accepted = ch.template.tx?.sensorTypes ?? [];
        if (!accepted.includes(type)) throw new ConfigError(spec.file, `${ch.key}.template`, `template '${ch.template.name}' cannot carry a ${type} sensor (it takes ${accepted.join(', ') || 'no sensors'})`);
        sensorType = type;
      }
      const channel: TxChannel = {
        key: ch.key,
        source: ch.source.text,
        template: ch.template,
        vehicle,
        sensorType,
        dests: ch.to,
        origin: ch.origin,
        ring: new TxRing(TX_BUFFER_BYTES),
        frames: 0,
        oversize: 0,
        datagrams: 0,
        sendErrors: 0,
        onSent: (err) => {
          channel.ring.sent();
          if (err) channel.sendErrors++;
          else channel.datagrams++;
        },
      };
      if (ch.to.length > 0) this.tx.push(channel);
    }
    this.ctx = { vehicle: vehicles[0], seq: 0, timestamp: 0, utcMs: 0, version, origin: { lat: 0, lon: 0, alt: 0 }, sensorType: '' };
  }

  /** Frames handed to the socket whose sends have not completed yet. */
  pending(): number {
    let n = 0;
    for (const ch of this.tx) n += ch.ring.pending;
    return n;
  }

  /**
   * Encodes and sends every TX channel's frame (only those of `vehicle` when given: vehicles that tick at
   * their own steps); returns the next sequence number.
   */
  emit(sock: Socket, seq: number, timestamp: number, utcMs: number, vehicle?: CosimVehicle): number {
    const ctx = this.ctx;
    ctx.timestamp = timestamp;
    ctx.utcMs = utcMs;
    for (const ch of this.tx) {
      const encode = ch.template.tx?.encode;
      if (!encode || (vehicle && ch.vehicle !== vehicle)) continue;
      ctx.vehicle = ch.vehicle;
      ctx.seq = seq;
      ctx.origin = ch.origin;
      ctx.sensorType = ch.sensorType;
      seq = (seq + 1) >>> 0;
      const buf = ch.ring.next();
      const len = encode(ctx, buf);
      if (len < 0) {
        ch.oversize++;
        continue;
      }
      ch.frames++;
      // the buffer stays out of the ring until every send of it completed (a burst of ticks emits more
      // frames in one event-loop turn than the ring has buffers: see TxRing)
      ch.ring.hold(ch.dests.length);
      for (const d of ch.dests) sock.send(buf, 0, len, d.port, d.ip, ch.onSent);
    }
    return seq;
  }
}
