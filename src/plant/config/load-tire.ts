/** Loads TireParams from a flat VDSim tire file or a tire catalog part, including the lugre/belt sub-maps. */
import { type TireParams, tireParams } from '../params/tire.js';
import { ConfigError } from './errors.js';
import { type ReadContext, childContext, readFields, subMap } from './fields.js';
import { type LoadOptions, type LoadResult, openParamsDocument } from './document.js';
import { BELT_FIELDS, LUGRE_FIELDS, TIRE_FIELDS } from './schemas.js';

export function parseTireParams(map: Record<string, unknown>, ctx: ReadContext): TireParams {
  const p = tireParams();
  const backend = map.backend;
  if (backend === 'magic_formula' || backend === 'mf2002') {
    throw new ConfigError(ctx.file, ctx.prefix ? `${ctx.prefix}.backend` : 'backend', `'${backend}' (MF2002 from a .tir file) is not supported by this port; use mf96 or linear`);
  }
  readFields(map, p, TIRE_FIELDS, ctx, new Set(['lugre', 'belt', 'tir_path']));
  if (map.tir_path !== undefined && map.tir_path !== null && map.tir_path !== '') {
    ctx.warnings.push(`${ctx.file}: 'tir_path' ignored (only the mf96 and linear backends are ported)`);
  }
  const lugre = subMap(map, 'lugre', ctx);
  if (lugre) readFields(lugre, p.lugre, LUGRE_FIELDS, childContext(ctx, 'lugre'));
  const belt = subMap(map, 'belt', ctx);
  if (belt) readFields(belt, p.belt, BELT_FIELDS, childContext(ctx, 'belt'));
  return p;
}

export function loadTireParams(path: string, opts: LoadOptions = {}): LoadResult<TireParams> {
  const doc = openParamsDocument(path, 'tire', opts);
  const ctx: ReadContext = { file: path, prefix: doc.source.part ? 'body' : '', warnings: doc.warnings };
  return { params: parseTireParams(doc.body as Record<string, unknown>, ctx), warnings: doc.warnings, source: doc.source, metadata: {} };
}
