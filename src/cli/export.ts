/**
 * `vils export <file.mcap> --out <file.mcap>`: a VILS recording made into an MCAP of ROS 2 messages (CDR, ros2msg
 * schemas) on the ROS 2 bridge's topics, for `ros2 bag play` on the car's computer (src/export/ros2-export.ts).
 */
import { parseArgs } from 'node:util';
import { exportRos2 } from '../export/ros2-export.js';
import { UsageError, type Command } from './commands.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'convert a recording to ROS 2 messages (MCAP, CDR) on the bridge\'s topics, for ros2 bag play',
  usage: 'vils export <file.mcap> --out <file.mcap> [--frame-id vils_map] [--map-frame map] [--map-offset x,y,z,yaw] [--traffic-light-group-ids J1.A=1001,...] [--traffic-lights-topic <topic>] [--signals-topic <topic>] [--json]',
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' }, 'frame-id': { type: 'string' }, 'map-frame': { type: 'string' }, 'map-offset': { type: 'string' },
        'traffic-light-group-ids': { type: 'string' }, 'traffic-lights-topic': { type: 'string' }, 'signals-topic': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    if (positionals.length !== 1) throw new UsageError('give one recording (a .mcap file; any segment of a session names it)');
    if (!values.out) throw new UsageError('--out <file.mcap> is required: where the ROS 2 recording goes');
    if (values.out === positionals[0]) throw new UsageError('--out must not be the recording itself');
    let mapOffset: [number, number, number, number] | undefined;
    if (values['map-offset'] !== undefined) {
      const v = values['map-offset'].split(',').map(Number);
      if (v.length !== 4 || !v.every(Number.isFinite)) throw new UsageError(`--map-offset is x,y,z,yaw (metres, radians), got ${values['map-offset']}`);
      mapOffset = [v[0], v[1], v[2], v[3]];
    }
    const r = await exportRos2(positionals[0], values.out, {
      frameId: values['frame-id'], mapFrame: values['map-frame'], mapOffset, trafficLightGroupIds: values['traffic-light-group-ids'],
      trafficLightsTopic: values['traffic-lights-topic'], signalsTopic: values['signals-topic'],
    });
    if (values.json) {
      console.log(JSON.stringify({ out: values.out, ...r }));
      return 0;
    }
    console.log(`${values.out}: ${r.frames} frames, ${r.durationS.toFixed(1)} s, egos ${r.egos.join(', ') || 'none'}`);
    for (const [topic, n] of Object.entries(r.topics)) console.log(`  ${topic}  ${n} messages`);
    return 0;
  },
};
