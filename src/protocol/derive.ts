import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * The type of the messages a JSON schema describes, as json-schema-to-ts derives it from the `as const` schema,
 * less the `[x: string]: unknown` it adds to every object that does not forbid other keys: the protocol leaves
 * objects open so that clients take new fields in their stride, but in code a key is either in the schema or a
 * typo. Arrays come out read-only (a message is read, not edited).
 */
export type WireType<S extends JSONSchema> = Known<FromSchema<S>>;

type Known<T> = T extends readonly (infer U)[]
  ? readonly Known<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Known<T[K]> }
    : T;
