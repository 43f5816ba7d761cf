/** `vds1_state` (VDSim: `vds1`, or no template): the binary VDS1 STATE of a vehicle, in the server's version. */
import { encodeState } from '../../vds1.js';
import { registerTemplate } from './registry.js';

registerTemplate({
  name: 'vds1_state',
  aliases: ['vds1', ''],
  summary: 'binary VDS1 STATE (220–452 B by version), the canonical state frame',
  tx: {
    sources: ['state'],
    encode(ctx, out) {
      const f = ctx.vehicle.frame;
      f.seq = ctx.seq;
      f.timestamp = ctx.timestamp;
      f.vehicleId = ctx.vehicle.id;
      return encodeState(out, f, ctx.version);
    },
  },
});
