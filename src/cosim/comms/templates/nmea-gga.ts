/**
 * `nmea_gga`: an NMEA 0183 $GPGGA sentence (spec §5.2, VDSim comms_templates.hpp encode_gga). Position = the
 * measured GNSS channel (m_gnss_x east, m_gnss_y north) about the channel's `origin`, altitude = origin + the
 * true CG z; UTC from the wall clock. Fix quality 1, 12 satellites, HDOP 0.9, geoid separation 0.0 are fixed
 * placeholders (no constellation model); a non-finite or absurd position gives a "no fix" sentence (quality 0,
 * empty position fields) rather than a malformed one. VDSim's Python router sends a proprietary $VDSXY line
 * under this name; this is the C++ server's sentence.
 */
import { printfFixed } from '../../format.js';
import { type Geodetic, type GeodeticOrigin, enuToGeodetic } from '../../geodetic.js';
import { nmeaDegMin, nmeaSentence, nmeaUtcField } from '../../nmea.js';
import { SI } from '../../vds1.js';
import { registerTemplate, writeText } from './registry.js';

const MAX_ENU_OFFSET_M = 1e8;
const MAX_ALTITUDE_M = 1e7;
const geo: Geodetic = { ok: false, lat: 0, lon: 0, alt: 0 };

/** The geodetic fix of a measured position, or ok = false (shared by the GGA and RMC templates). */
export function gnssFix(east: number, north: number, up: number, o: Readonly<GeodeticOrigin>, out: Geodetic = geo): Geodetic {
  const enuOk =
    Number.isFinite(east) && Number.isFinite(north) && Number.isFinite(up) &&
    Math.abs(east) <= MAX_ENU_OFFSET_M && Math.abs(north) <= MAX_ENU_OFFSET_M && Math.abs(up) <= MAX_ENU_OFFSET_M &&
    Number.isFinite(o.lat) && Number.isFinite(o.lon) && Math.abs(o.lat) <= 90 && Number.isFinite(o.alt);
  if (!enuOk) {
    out.ok = false;
    out.lat = out.lon = out.alt = Number.NaN;
    return out;
  }
  return enuToGeodetic(east, north, up, o, out);
}

export function ggaSentence(east: number, north: number, up: number, o: Readonly<GeodeticOrigin>, utcSecondsOfDay: number): string {
  const g = gnssFix(east, north, up, o);
  const latF = g.ok ? nmeaDegMin(g.lat, 2) : '';
  const lonF = g.ok ? nmeaDegMin(g.lon, 3) : '';
  const fix = latF !== '' && lonF !== '';
  const altOk = fix && Number.isFinite(g.alt) && Math.abs(g.alt) <= MAX_ALTITUDE_M;
  return nmeaSentence([
    'GPGGA',
    nmeaUtcField(utcSecondsOfDay),
    fix ? latF : '',
    fix ? (g.lat >= 0 ? 'N' : 'S') : '',
    fix ? lonF : '',
    fix ? (g.lon >= 0 ? 'E' : 'W') : '',
    fix ? '1' : '0',
    fix ? '12' : '00',
    fix ? '0.9' : '99.9',
    altOk ? printfFixed(g.alt, 1) : '',
    'M',
    fix ? '0.0' : '',
    'M',
    '',
    '',
  ]);
}

/** UTC seconds since midnight of a wall-clock time in ms. */
export function utcSecondsOfDay(utcMs: number): number {
  const s = utcMs / 1000;
  return s - Math.floor(s / 86400) * 86400;
}

registerTemplate({
  name: 'nmea_gga',
  summary: 'NMEA 0183 $GPGGA from the measured GNSS position (needs `origin`)',
  tx: {
    sources: ['state', 'sensor'],
    sensorTypes: ['gnss', 'gnss_pos'],
    encode(ctx, out) {
      const v = ctx.vehicle.frame.v;
      return writeText(ggaSentence(v[SI.mGnssX], v[SI.mGnssY], v[SI.z], ctx.origin, utcSecondsOfDay(ctx.utcMs)), out);
    },
  },
});
