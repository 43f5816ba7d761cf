/**
 * Writes small ESRI shapefiles (.shp/.shx/.dbf, optional .prj/.cpg) for converter tests, with control
 * over the quirks real NGII files have: Z/M shapes with or without an M block, 0-point records, bogus
 * header Z/M ranges, C/N/F fields, the DBF language byte, and raw (e.g. CP949) text bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Coord = [number, number, number?];

export interface ShpRecord {
  /** PointZ: one point; PolyLineZ: one part; PolygonZ: one closed ring. Empty = a 0-point record. */
  points: Coord[];
  attributes: Record<string, string | number | Uint8Array | null>;
}

export interface FieldDef {
  name: string;
  type: 'C' | 'N' | 'F';
  length: number;
  decimals?: number;
}

export interface LayerSpec {
  name: string;
  shapeType: 11 | 13 | 15;
  fields: FieldDef[];
  records: ShpRecord[];
  withM?: boolean;
  headerZ?: [number, number];
  headerM?: [number, number];
  prj?: string | null;
  cpg?: string | null;
  ldid?: number;
}

function recordContent(shapeType: number, pts: Coord[], withM: boolean): Buffer {
  if (shapeType === 11) {
    const b = Buffer.alloc(4 + 24 + (withM ? 8 : 0));
    b.writeInt32LE(11, 0);
    const [x, y, z = 0] = pts[0];
    b.writeDoubleLE(x, 4); b.writeDoubleLE(y, 12); b.writeDoubleLE(z, 20);
    if (withM) b.writeDoubleLE(0, 28);
    return b;
  }
  const n = pts.length;
  const parts = n > 0 ? 1 : 0;
  const size = 4 + 32 + 8 + 4 * parts + 16 * n + 16 + 8 * n + (withM ? 16 + 8 * n : 0);
  const b = Buffer.alloc(size);
  let o = 0;
  b.writeInt32LE(shapeType, o); o += 4;
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  for (const v of n ? [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] : [0, 0, 0, 0]) { b.writeDoubleLE(v, o); o += 8; }
  b.writeInt32LE(parts, o); o += 4;
  b.writeInt32LE(n, o); o += 4;
  if (parts) { b.writeInt32LE(0, o); o += 4; }
  for (const p of pts) { b.writeDoubleLE(p[0], o); b.writeDoubleLE(p[1], o + 8); o += 16; }
  const zs = pts.map((p) => p[2] ?? 30);
  b.writeDoubleLE(n ? Math.min(...zs) : 0, o); b.writeDoubleLE(n ? Math.max(...zs) : 0, o + 8); o += 16;
  for (const z of zs) { b.writeDoubleLE(z, o); o += 8; }
  if (withM) {
    b.writeDoubleLE(-Number.MAX_VALUE, o); b.writeDoubleLE(-Number.MAX_VALUE, o + 8); o += 16;
    for (let i = 0; i < n; i++) { b.writeDoubleLE(-Number.MAX_VALUE, o); o += 8; }
  }
  return b;
}

function header(shapeType: number, fileBytes: number, bbox: number[], z: [number, number], m: [number, number]): Buffer {
  const h = Buffer.alloc(100);
  h.writeInt32BE(9994, 0);
  h.writeInt32BE(fileBytes / 2, 24);
  h.writeInt32LE(1000, 28);
  h.writeInt32LE(shapeType, 32);
  bbox.forEach((v, i) => h.writeDoubleLE(v, 36 + 8 * i));
  h.writeDoubleLE(z[0], 68); h.writeDoubleLE(z[1], 76);
  h.writeDoubleLE(m[0], 84); h.writeDoubleLE(m[1], 92);
  return h;
}

function dbf(fields: FieldDef[], records: ShpRecord[], ldid: number): Buffer {
  const recLen = 1 + fields.reduce((a, f) => a + f.length, 0);
  const headLen = 32 + 32 * fields.length + 1;
  const b = Buffer.alloc(headLen + recLen * records.length + 1, 0x20);
  b.fill(0, 0, headLen);
  b[0] = 0x03; b[1] = 119; b[2] = 12; b[3] = 6;
  b.writeUInt32LE(records.length, 4);
  b.writeUInt16LE(headLen, 8);
  b.writeUInt16LE(recLen, 10);
  b[29] = ldid;
  fields.forEach((f, i) => {
    const o = 32 + 32 * i;
    b.write(f.name, o, 'latin1');
    b[o + 11] = f.type.charCodeAt(0);
    b[o + 16] = f.length;
    b[o + 17] = f.decimals ?? 0;
  });
  b[headLen - 1] = 0x0d;
  records.forEach((r, k) => {
    let o = headLen + k * recLen;
    b[o++] = 0x20;
    for (const f of fields) {
      const v = r.attributes[f.name];
      let bytes: Buffer;
      if (v instanceof Uint8Array) bytes = Buffer.from(v);
      else if (v === null || v === undefined) bytes = Buffer.alloc(0);
      else if (f.type === 'C') bytes = Buffer.from(String(v), 'utf8');
      else bytes = Buffer.from(typeof v === 'number' ? v.toFixed(f.decimals ?? 0).padStart(f.length) : String(v).padStart(f.length), 'latin1');
      bytes.copy(b, o, 0, Math.min(bytes.length, f.length));
      o += f.length;
    }
  });
  b[b.length - 1] = 0x1a;
  return b;
}

export const PRJ_UTM52N = 'PROJCS["WGS_1984_UTM_Zone_52N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS84",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",129.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';
export const PRJ_WGS84 = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';
export const PRJ_UTMK = 'PROJCS["Korea_2000_Korea_Unified_Coordinate_System",GEOGCS["GCS_Korea_2000",DATUM["D_Korea_2000",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",1000000.0],PARAMETER["False_Northing",2000000.0],PARAMETER["Central_Meridian",127.5],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",38.0],UNIT["Meter",1.0]]';

export function writeLayer(dir: string, spec: LayerSpec): void {
  const withM = spec.withM ?? false;
  const contents = spec.records.map((r) => recordContent(spec.shapeType, r.points, withM));
  const all = spec.records.flatMap((r) => r.points);
  const bbox = all.length ? [Math.min(...all.map((p) => p[0])), Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[0])), Math.max(...all.map((p) => p[1]))] : [0, 0, 0, 0];
  const z = spec.headerZ ?? [0, 0];
  const m = spec.headerM ?? [0, 0];
  const shpLen = 100 + contents.reduce((a, c) => a + 8 + c.length, 0);
  const shp = Buffer.concat([header(spec.shapeType, shpLen, bbox, z, m), ...contents.flatMap((c, i) => {
    const rh = Buffer.alloc(8);
    rh.writeInt32BE(i + 1, 0);
    rh.writeInt32BE(c.length / 2, 4);
    return [rh, c];
  })]);
  const shx = Buffer.concat([header(spec.shapeType, 100 + 8 * contents.length, bbox, z, m), ...(() => {
    let offset = 100;
    return contents.map((c) => {
      const e = Buffer.alloc(8);
      e.writeInt32BE(offset / 2, 0);
      e.writeInt32BE(c.length / 2, 4);
      offset += 8 + c.length;
      return e;
    });
  })()]);
  writeFileSync(join(dir, `${spec.name}.shp`), shp);
  writeFileSync(join(dir, `${spec.name}.shx`), shx);
  writeFileSync(join(dir, `${spec.name}.dbf`), dbf(spec.fields, spec.records, spec.ldid ?? 0));
  if (spec.prj) writeFileSync(join(dir, `${spec.name}.prj`), spec.prj);
  if (spec.cpg) writeFileSync(join(dir, `${spec.name}.cpg`), spec.cpg);
}

/** Reads the vertices of a PolyLine/PolyLineZ .shp directly (independent of the `shapefile` package). */
export function readShpVertices(buf: Buffer, maxRecords = Infinity): Array<Array<[number, number]>> {
  const out: Array<Array<[number, number]>> = [];
  let o = 100;
  while (o < buf.length && out.length < maxRecords) {
    const len = buf.readInt32BE(o + 4) * 2;
    const c = o + 8;
    const type = buf.readInt32LE(c);
    if (type === 13 || type === 3 || type === 15 || type === 5) {
      const np = buf.readInt32LE(c + 40);
      const nparts = buf.readInt32LE(c + 36);
      const p0 = c + 44 + 4 * nparts;
      const pts: Array<[number, number]> = [];
      for (let i = 0; i < np; i++) pts.push([buf.readDoubleLE(p0 + 16 * i), buf.readDoubleLE(p0 + 16 * i + 8)]);
      out.push(pts);
    }
    o = c + len;
  }
  return out;
}
