/**
 * 2-D oriented-box overlap by the separating-axis test on both boxes' axes (GPUDrive src/obb.hpp,
 * flipcode method). Touching counts as overlap: a gap must be strictly positive to separate.
 */
export function obbOverlap(
  ax: number, ay: number, aYaw: number, aHalfLen: number, aHalfWid: number,
  bx: number, by: number, bYaw: number, bHalfLen: number, bHalfWid: number,
): boolean {
  return obbOverlapCS(ax, ay, Math.cos(aYaw), Math.sin(aYaw), aHalfLen, aHalfWid, bx, by, Math.cos(bYaw), Math.sin(bYaw), bHalfLen, bHalfWid);
}

/**
 * obbOverlap with the boxes' headings given as their cosines and sines (ac = Math.cos(aYaw), …), for callers
 * that have the cosines already (a vehicle's heading tested against many boxes, headings fixed for a whole
 * step); obbOverlap is this with the cosines computed.
 */
export function obbOverlapCS(
  ax: number, ay: number, ac: number, as: number, aHalfLen: number, aHalfWid: number,
  bx: number, by: number, bc: number, bs: number, bHalfLen: number, bHalfWid: number,
): boolean {
  const dx = bx - ax, dy = by - ay;
  // axes: a1 = (ac, as), a2 = (−as, ac), b1 = (bc, bs), b2 = (−bs, bc)
  const a1b1 = Math.abs(ac * bc + as * bs);
  const a1b2 = Math.abs(-ac * bs + as * bc);
  // |a2·b1| = |a1·b2| and |a2·b2| = |a1·b1| for rotations
  const a2b1 = a1b2;
  const a2b2 = a1b1;
  if (Math.abs(dx * ac + dy * as) > aHalfLen + bHalfLen * a1b1 + bHalfWid * a1b2) return false; // on a1
  if (Math.abs(-dx * as + dy * ac) > aHalfWid + bHalfLen * a2b1 + bHalfWid * a2b2) return false; // on a2
  if (Math.abs(dx * bc + dy * bs) > bHalfLen + aHalfLen * a1b1 + aHalfWid * a2b1) return false; // on b1
  if (Math.abs(-dx * bs + dy * bc) > bHalfWid + aHalfLen * a1b2 + aHalfWid * a2b2) return false; // on b2
  return true;
}

/**
 * obbOverlapCS with its twelve arguments in v[0..12), in their order: the same arithmetic on the same values.
 * For callers that are not inlined into theirs (or call it from a function too large for it to be inlined):
 * doubles passed to a call that is not inlined are boxed, one heap number each; these are not.
 */
export function obbOverlapIn(v: Float64Array): boolean {
  const ax = v[0], ay = v[1], ac = v[2], as = v[3], aHalfLen = v[4], aHalfWid = v[5];
  const bx = v[6], by = v[7], bc = v[8], bs = v[9], bHalfLen = v[10], bHalfWid = v[11];
  const dx = bx - ax, dy = by - ay;
  const a1b1 = Math.abs(ac * bc + as * bs);
  const a1b2 = Math.abs(-ac * bs + as * bc);
  const a2b1 = a1b2;
  const a2b2 = a1b1;
  if (Math.abs(dx * ac + dy * as) > aHalfLen + bHalfLen * a1b1 + bHalfWid * a1b2) return false;
  if (Math.abs(-dx * as + dy * ac) > aHalfWid + bHalfLen * a2b1 + bHalfWid * a2b2) return false;
  if (Math.abs(dx * bc + dy * bs) > bHalfLen + aHalfLen * a1b1 + aHalfWid * a2b1) return false;
  if (Math.abs(-dx * bs + dy * bc) > bHalfWid + aHalfLen * a1b2 + aHalfWid * a2b2) return false;
  return true;
}
