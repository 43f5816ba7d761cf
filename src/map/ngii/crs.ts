/**
 * Coordinate reference system of an NGII layer from its .prj (spec §2): UTM zone 52N (EPSG:32652),
 * geographic WGS84 degrees (EPSG:4326, e.g. FMTC's QGIS re-export) or UTM-K (EPSG:5179). Matched on the
 * WKT's projection and parameters, not on datum names (K-City's .prj says "D_WGS84"). Without a .prj the
 * coordinates decide: |x| ≤ 180 and |y| ≤ 90 means degrees, otherwise UTM 52N is assumed (and warned).
 */
import proj4 from 'proj4';
import { UTM52N, WGS84 } from '../../geo/frame.js';

export type CrsKind = 'utm52n' | 'wgs84' | 'utmk';

export interface Crs {
  readonly kind: CrsKind;
  readonly label: string;
  readonly proj4: string;
  readonly reason: string;
}

const CRS: Record<CrsKind, { label: string; proj4: string }> = {
  utm52n: { label: 'WGS84 / UTM zone 52N (EPSG:32652)', proj4: UTM52N },
  wgs84: { label: 'WGS84 geographic degrees (EPSG:4326)', proj4: WGS84 },
  utmk: { label: 'Korea 2000 / UTM-K (EPSG:5179)', proj4: '+proj=tmerc +lat_0=38 +lon_0=127.5 +k=0.9996 +x_0=1000000 +y_0=2000000 +ellps=GRS80 +units=m +no_defs +type=crs' },
};

function param(wkt: string, name: string): number | null {
  const m = new RegExp(`PARAMETER\\s*\\[\\s*"${name}"\\s*,\\s*(-?[0-9.eE+]+)`, 'i').exec(wkt);
  return m ? Number(m[1]) : null;
}

export function detectCrs(prj: string | null, sample?: { x: number; y: number }): Crs {
  const make = (kind: CrsKind, reason: string): Crs => ({ kind, ...CRS[kind], reason });
  if (prj && prj.trim()) {
    const wkt = prj.trim();
    const head = /^\s*(PROJCS|PROJCRS|GEOGCS|GEOGCRS|GEODCRS)\b/i.exec(wkt)?.[1]?.toUpperCase();
    if (head === 'GEOGCS' || head === 'GEOGCRS' || head === 'GEODCRS') return make('wgs84', '.prj is a geographic CRS (GEOGCS)');
    if (head === 'PROJCS' || head === 'PROJCRS') {
      const cm = param(wkt, 'central_meridian') ?? param(wkt, 'longitude_of_natural_origin');
      const fe = param(wkt, 'false_easting');
      const fn = param(wkt, 'false_northing');
      const k = param(wkt, 'scale_factor');
      const tm = /transverse[_ ]mercator/i.test(wkt);
      if (tm && cm === 129 && fe === 500000 && (fn ?? 0) === 0 && (k === null || Math.abs(k - 0.9996) < 1e-9)) {
        return make('utm52n', '.prj is Transverse Mercator, central meridian 129°E, false easting 500000 (UTM 52N)');
      }
      if (tm && cm === 127.5 && fe === 1000000 && fn === 2000000) return make('utmk', '.prj is Transverse Mercator, central meridian 127.5°E (UTM-K)');
      throw new Error(`unsupported projected CRS in .prj (central meridian ${cm}, false easting ${fe}); expected UTM 52N, UTM-K or WGS84 degrees`);
    }
    throw new Error('the .prj is not a WKT coordinate system this converter understands');
  }
  if (sample && Math.abs(sample.x) <= 180 && Math.abs(sample.y) <= 90) return make('wgs84', 'no .prj; coordinates are within ±180/±90: degrees');
  return make('utm52n', 'no .prj; metre-sized coordinates assumed to be UTM 52N');
}

/** A function from the layer CRS to UTM 52N metres. */
export function toUtm52n(crs: Crs): (x: number, y: number) => [number, number] {
  if (crs.kind === 'utm52n') return (x, y) => [x, y];
  const t = proj4(crs.proj4, UTM52N);
  return (x, y) => t.forward([x, y]) as [number, number];
}
