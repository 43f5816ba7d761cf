/**
 * `vds1_cmd`: the 76-byte VDS1 CMD. On a `direction: in` channel it is what the server decodes (fan-in); from a
 * `<id>.cmd` source it sends the command the vehicle's plant holds (the latched input, fail-safe included),
 * e.g. to let a logger see what a controller is driving with. VDSim's Python router (python/vdsim_comms.py)
 * sends a 28-byte `<Iddd` instead; like the C++ server, this is the real VDS1 CMD.
 */
import { CmdFields, encodeCmd } from '../../vds1.js';
import { registerTemplate } from './registry.js';

const cmd = new CmdFields();

registerTemplate({
  name: 'vds1_cmd',
  summary: 'binary VDS1 CMD (76 B): decoded on `direction: in` channels; sent from a `<id>.cmd` source',
  rx: true,
  rxAliases: ['vds1'],
  tx: {
    sources: ['cmd'],
    encode(ctx, out) {
      const c = ctx.vehicle.command;
      cmd.seq = ctx.seq;
      cmd.vehicleId = ctx.vehicle.id;
      cmd.timestamp = ctx.timestamp;
      cmd.steer = c.steer;
      cmd.throttle = c.throttle;
      cmd.brake = c.brake;
      cmd.gear = c.gear;
      cmd.handbrake = c.handbrake ? 1 : 0;
      cmd.auxAccel = Number.NaN;
      cmd.auxSpeed = Number.NaN;
      return encodeCmd(out, cmd, ctx.version);
    },
  },
});
