/**
 * V8 stores a number field unboxed only while every object of that shape has held non-integers there; a
 * field that starts as a small integer (0) and later takes fractions changes representation, and objects of
 * one class then end up with different hidden classes. Hot code reading them becomes polymorphic and boxes
 * numbers on every access. Calling this at the end of a constructor moves the named fields to the double
 * representation up front (keeping their values), so every instance shares one shape and tick() allocates
 * nothing.
 */
export function useDoubleFields(obj: object, keys: readonly string[]): void {
  const o = obj as Record<string, number>;
  for (const k of keys) {
    const v = o[k];
    if (typeof v !== 'number') throw new TypeError(`useDoubleFields: '${k}' is not a number field`);
    o[k] = 0.5;
    o[k] = v;
  }
}
