/**
 * Reads one NGII shapefile layer with the `shapefile` package: attributes decoded in the layer's own
 * encoding, geometry as 2-D parts (Z and M are not needed and their header ranges are not trusted),
 * empty geometries (0-point PolyLineZ records) reported instead of returned.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as shapefile from 'shapefile';
import { chooseEncoding, type EncodingChoice } from './encoding.js';
import type { Properties } from './fields.js';

export interface LayerFeature {
  readonly properties: Properties;
  /** one or more parts (lines or rings), each a list of [x, y] in the layer CRS */
  readonly parts: Array<Array<[number, number]>>;
}

export interface LayerRead {
  readonly name: string;
  readonly features: LayerFeature[];
  readonly emptyGeometries: number;
  readonly encoding: EncodingChoice;
  readonly prj: string | null;
}

/** Finds `<dir>/<name>.shp` case-insensitively; null when the layer is absent. */
export function layerPath(dir: string, name: string, files: readonly string[]): string | null {
  const hit = files.find((f) => f.toLowerCase() === `${name.toLowerCase()}.shp`);
  return hit ? join(dir, hit) : null;
}

export async function readLayer(shpPath: string, name: string, onProgress?: (done: number) => void): Promise<LayerRead> {
  const base = shpPath.replace(/\.shp$/i, '');
  const dbf = [`${base}.dbf`, `${base}.DBF`].find((p) => existsSync(p));
  if (!dbf) throw new Error(`${name}: ${base}.dbf is missing`);
  const prjPath = [`${base}.prj`, `${base}.PRJ`].find((p) => existsSync(p));
  const encoding = chooseEncoding(dbf);
  const source = await shapefile.open(shpPath, dbf, { encoding: encoding.encoding });
  const features: LayerFeature[] = [];
  let empty = 0;
  let n = 0;
  for (;;) {
    const r = await source.read();
    if (r.done) break;
    n++;
    if (onProgress && n % 500 === 0) onProgress(n);
    const g = r.value.geometry as { type: string; coordinates: unknown } | null;
    const parts = g ? toParts(g) : [];
    if (parts.length === 0 || parts.every((p) => p.length === 0)) {
      empty++;
      continue;
    }
    features.push({ properties: r.value.properties as Properties, parts });
  }
  return { name, features, emptyGeometries: empty, encoding, prj: prjPath ? readFileSync(prjPath, 'utf8') : null };
}

function toParts(g: { type: string; coordinates: unknown }): Array<Array<[number, number]>> {
  const c = g.coordinates as any;
  switch (g.type) {
    case 'Point': return [[[c[0], c[1]]]];
    case 'MultiPoint': return [c.map((p: number[]) => [p[0], p[1]])];
    case 'LineString': return [c.map((p: number[]) => [p[0], p[1]])];
    case 'MultiLineString': return c.map((l: number[][]) => l.map((p) => [p[0], p[1]]));
    case 'Polygon': return c.map((l: number[][]) => l.map((p) => [p[0], p[1]]));
    case 'MultiPolygon': return c.flatMap((poly: number[][][]) => poly.map((l) => l.map((p) => [p[0], p[1]])));
    default: return [];
  }
}
