/**
 * `vils convert-map <dir> --out maps/<name>.json [--origin lat,lon] [--json]`: NGII precision-map
 * shapefiles → VILS road JSON, with a summary of what was read, skipped and mapped.
 */
import { writeOutputFile } from '../util/output-file.js';
import { parseArgs } from 'node:util';
import { convertNgii } from '../map/ngii/convert.js';
import { parseMapJson } from '../map/scene-json.js';
import { junctionReport, junctionReportLines } from '../scene/signals/junction-report.js';
import { UsageError, type Command } from './commands.js';

function parseOrigin(s: string): { lat: number; lon: number } {
  const [a, b] = s.split(',').map(Number);
  if (!Number.isFinite(a) || !Number.isFinite(b) || Math.abs(a) > 84 || Math.abs(b) > 180) throw new UsageError(`--origin must be lat,lon in degrees, got ${s}`);
  return { lat: a, lon: b };
}

export const convertMapCommand: Command = {
  name: 'convert-map',
  summary: 'convert NGII HD-map shapefiles (A1, A2, B2, C3, C4; C1, B1, B3 crosswalks into traffic_control) to VILS road JSON',
  usage: 'vils convert-map <dir> --out maps/<name>.json [--origin lat,lon] [--json]',
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' }, origin: { type: 'string' }, json: { type: 'boolean' } } });
    if (positionals.length !== 1) throw new UsageError('give the folder holding the shapefiles');
    if (!values.out) throw new UsageError('--out <file.json> is required');
    const t0 = performance.now();
    // a progress line rewritten in place (\r) only on a terminal: a log or a pipe gets the summary alone
    const tty = process.stderr.isTTY && !values.json;
    const progress = (layer: string, n: number) => {
      if (tty) process.stderr.write(`\r  reading ${layer}: ${n} features…`);
    };
    const { map, summary } = await convertNgii(positionals[0], { origin: values.origin ? parseOrigin(values.origin) : undefined, onProgress: progress });
    if (tty) process.stderr.write('\r\x1b[K');
    writeOutputFile(values.out, `${JSON.stringify(map)}\n`);
    const seconds = (performance.now() - t0) / 1000;
    const tc = { signals: map.traffic_control.signals.length, stop_lines: map.traffic_control.stop_lines.length, signs: map.traffic_control.signs.length, crosswalks: map.traffic_control.crosswalks?.length ?? 0 };
    // what a scene will run on it: junctions, groups, paths joined, lines derived
    const junctions = junctionReport(parseMapJson(JSON.parse(JSON.stringify(map)), values.out));
    if (values.json) {
      console.log(JSON.stringify({ out: values.out, seconds, counts: map.map.counts, lanes: map.map.lane_graph.lanes.length, traffic_control: tc, junctions, origin: map.map.origin, summary }));
      return 0;
    }
    console.log(`wrote ${values.out} in ${seconds.toFixed(2)} s: ${JSON.stringify(map.map.counts)}, ${map.map.lane_graph.lanes.length} lanes in the lane graph`);
    console.log(`origin ${map.map.origin.lat}, ${map.map.origin.lon} (UTM 52N E ${map.map.origin.utm_e}, N ${map.map.origin.utm_n}); source CRS ${map.map.source_crs}`);
    for (const [name, s] of Object.entries(summary.layers)) {
      const skipped = Object.entries(s!.skipped).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join(', ') || 'none';
      console.log(`  ${name}: read ${s!.read}, written ${s!.written}, skipped ${skipped}; text ${s!.encoding}`);
      const codes = Object.entries(s!.codes).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`);
      if (codes.length) console.log(`    codes: ${codes.slice(0, 12).join('; ')}${codes.length > 12 ? `; … (${codes.length - 12} more)` : ''}`);
      const lanes = Object.entries(s!.lanes ?? {}).map(([k, v]) => `${v} ${k}`);
      if (lanes.length) console.log(`    lanes: ${lanes.join('; ')}`);
    }
    const sl = summary.stopLines;
    console.log(`  traffic_control: ${tc.signals} signal heads, ${tc.stop_lines} stop lines, ${tc.signs} signs, ${tc.crosswalks} crosswalks`);
    const cw = summary.crosswalks;
    if (cw.total || cw.bicycleCrossings) console.log(`    crosswalks (B3 Kind 5321): ${cw.withLanes} of ${cw.total} cross lanes (${cw.laneCrossings} lane crossings in all); walking axis across the lanes for ${cw.axisFromLanes}, along the long side for ${cw.axisFromLongSide} (no lane through them); ${cw.bicycleCrossings} bicycle crossings (Kind 534) counted, not carried`);
    if (sl.total) console.log(`    stop lines (B2 Kind 530) attached to lanes: ${sl.byReference} by R_LinkID/L_LinkID (${sl.referenceAndGeometry} of them with more by geometry), ${sl.byGeometry} by geometry only, ${sl.unattached} not at all; ${sl.referencesNotAcross} references to lanes not across the line ignored`);
    for (const line of junctionReportLines(junctions)) console.log(line);
    if (summary.duplicateVerticesDropped) console.log(`  duplicate consecutive vertices dropped: ${summary.duplicateVerticesDropped}`);
    const unknown = Object.entries(summary.unknownCodes);
    console.log(unknown.length ? `  unknown codes mapped to defaults: ${unknown.map(([k, v]) => `${k} ×${v}`).join('; ')}` : '  unknown codes: none');
    for (const w of summary.warnings) console.log(`  warning: ${w}`);
    return 0;
  },
};
