/** `vils render-map <map.json> --out <file.svg>`: draws a road map (lanes, lines by colour, edges, bumps, origin). */
import { writeOutputFile } from '../util/output-file.js';
import { parseArgs } from 'node:util';
import { renderMapSvg } from '../map/render-svg.js';
import { loadMapFile } from '../map/scene-json.js';
import { UsageError, type Command } from './commands.js';

export const renderMapCommand: Command = {
  name: 'render-map',
  summary: 'draw a road map (VILS road JSON or GPUDrive scene) as SVG',
  usage: 'vils render-map <map.json> --out <file.svg> [--width 1600]',
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' }, width: { type: 'string' } } });
    if (positionals.length !== 1 || !values.out) throw new UsageError('give a map file and --out <file.svg>');
    const loaded = loadMapFile(positionals[0]);
    const svg = renderMapSvg(loaded.scene, { title: loaded.mapMetadata?.name ?? loaded.label, widthPx: values.width ? Number(values.width) : 1600 });
    writeOutputFile(values.out, svg);
    console.log(`wrote ${values.out} (${loaded.scene.roads.length} roads)`);
    return 0;
  },
};
