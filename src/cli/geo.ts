/**
 * `vils geo <lat> <lon> [--origin lat,lon] [--heading deg] [--json]`: a point's UTM 52N coordinates,
 * its local coordinates about an origin (default FMTC), and the meridian convergence there.
 */
import { parseArgs } from 'node:util';
import { FMTC_ORIGIN, GeoFrame, convergenceDeg, latLonToUtm } from '../geo/index.js';
import { UsageError, type Command } from './commands.js';

function parseNumber(s: string | undefined, what: string, min: number, max: number): number {
  const v = Number(s);
  if (s === undefined || s.trim() === '' || !Number.isFinite(v) || v < min || v > max) throw new UsageError(`${what} must be a number in [${min}, ${max}], got ${s}`);
  return v;
}

export function geoReport(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { origin: { type: 'string' }, heading: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length !== 2) throw new UsageError('give a latitude and a longitude');
  const lat = parseNumber(positionals[0], 'latitude', -84, 84);
  const lon = parseNumber(positionals[1], 'longitude', -180, 180);
  let origin: { lat: number; lon: number } = { ...FMTC_ORIGIN };
  if (values.origin) {
    const [a, b] = values.origin.split(',');
    origin = { lat: parseNumber(a, 'origin latitude', -84, 84), lon: parseNumber(b, 'origin longitude', -180, 180) };
  }
  const frame = new GeoFrame(origin);
  const utm = latLonToUtm(lat, lon);
  const local = frame.toLocal(lat, lon);
  const report: Record<string, unknown> = {
    lat, lon,
    utm: { zone: '52N', easting: utm.easting, northing: utm.northing },
    origin: { ...origin, easting: frame.originUtm.easting, northing: frame.originUtm.northing },
    local: { x: local.x, y: local.y },
    convergence_deg: convergenceDeg(lat, lon),
  };
  if (values.heading !== undefined) {
    const h = parseNumber(values.heading, '--heading', -360, 720);
    report.heading_deg = h;
    report.yaw_rad = frame.headingToYaw(h, lat, lon);
  }
  return { report, json: Boolean(values.json) };
}

export const geoCommand: Command = {
  name: 'geo',
  summary: 'convert a latitude/longitude to UTM 52N and local coordinates, with the meridian convergence',
  usage: 'vils geo <lat> <lon> [--origin lat,lon] [--heading deg] [--json]',
  async run(argv) {
    const { report, json } = geoReport(argv);
    if (json) {
      console.log(JSON.stringify(report));
      return 0;
    }
    const r = report as { utm: { easting: number; northing: number }; origin: { lat: number; lon: number }; local: { x: number; y: number }; convergence_deg: number; yaw_rad?: number; heading_deg?: number };
    console.log(`WGS84        ${report.lat}, ${report.lon}`);
    console.log(`UTM 52N      E ${r.utm.easting.toFixed(3)}  N ${r.utm.northing.toFixed(3)}`);
    console.log(`local        x ${r.local.x.toFixed(3)} m east, y ${r.local.y.toFixed(3)} m north of origin ${r.origin.lat}, ${r.origin.lon}`);
    console.log(`convergence  ${r.convergence_deg.toFixed(4)}° (grid north is this far clockwise of true north)`);
    if (r.yaw_rad !== undefined) console.log(`heading ${r.heading_deg}° → yaw ${r.yaw_rad.toFixed(6)} rad (${((r.yaw_rad * 180) / Math.PI).toFixed(4)}° from grid east)`);
    return 0;
  },
};
