/** Loads SolverParams (integrator, max_substep_dt, max_substeps). */
import { type SolverParams, solverParams } from '../params/solver.js';
import { type ReadContext, readFields } from './fields.js';
import { type LoadOptions, type LoadResult, openParamsDocument } from './document.js';
import { SOLVER_FIELDS, SOLVER_UNSUPPORTED_KEYS } from './schemas.js';

export function parseSolverParams(map: Record<string, unknown>, ctx: ReadContext): SolverParams {
  const p = solverParams();
  readFields(map, p, SOLVER_FIELDS, ctx, new Set(SOLVER_UNSUPPORTED_KEYS));
  for (const k of SOLVER_UNSUPPORTED_KEYS) {
    if (map[k] !== undefined && map[k] !== null && map[k] !== false && map[k] !== 0) {
      ctx.warnings.push(`${ctx.file}: '${k}' belongs to VDSim's L5 stunt model, which this port does not include; ignored`);
    }
  }
  return p;
}

export function loadSolverParams(path: string, opts: LoadOptions = {}): LoadResult<SolverParams> {
  const doc = openParamsDocument(path, 'solver', opts);
  const ctx: ReadContext = { file: path, prefix: '', warnings: doc.warnings };
  return { params: parseSolverParams(doc.body as Record<string, unknown>, ctx), warnings: doc.warnings, source: doc.source, metadata: {} };
}
