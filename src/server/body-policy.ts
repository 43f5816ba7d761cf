/**
 * One body policy for every HTTP route of every server VILS runs (the scene server's REST and /api/io, `vils
 * realtime --http-port`, `vils replay --play`; issue 44): what a request body may be, decided here, wired into
 * fastify by plugins/body-policy.ts. A body is refused before any handler sees it, with a 4xx naming the limit:
 *
 *   - size: at most MAX_BODY_BYTES (413, from the Content-Length before anything is read);
 *   - nesting: at most MAX_BODY_DEPTH levels of arrays and objects (400, counted on the text before it is parsed:
 *     json-depth.ts);
 *   - a method without a body (GET, HEAD) sent one: 400, unread;
 *   - keys and values: the route's JSON schema, which must refuse unknown keys and bound every number, string and
 *     array (schemaProblems; a route whose schema does not is a programming error, refused when it is registered),
 *     and a route that takes no body gets NO_BODY_SCHEMA (nothing, or {}).
 *
 * The issue found /api/io outside the nesting limit (registered outside the REST plugin that had it): depth 5000
 * overflowed the stack when the body was copied to the simulated egos' thread (500), unknown keys were taken and
 * `vehicle: 4294967295` was a 200 with the error inside. A policy that lives on the route table cannot be skipped
 * by registering a route somewhere else.
 */
import { MAX_BODY_DEPTH } from './json-depth.js';

export { MAX_BODY_DEPTH, bodyDepthRefusal } from './json-depth.js';

/** The largest request body any route takes [bytes] (the largest real one, a signal plan of 64 phases, is ~10 kB). */
export const MAX_BODY_BYTES = 64 * 1024;

/** How long a client may take to send a request's headers, and the whole request [ms] (a half-open upgrade is not held). */
export const HEADERS_TIMEOUT_MS = 5_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** The methods that carry no body (fastify never reads one for them). */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE']);

/** The body schema of a route that takes none: nothing, null or {} (clients that always send JSON send {}). */
export const NO_BODY_SCHEMA = {
  type: ['object', 'null'],
  additionalProperties: false,
  maxProperties: 0,
  description: 'takes no body (nothing, or {})',
} as const;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The length a request announces, or null (chunked, or none given). */
export function announcedBytes(headers: Headers): number | null {
  const v = headers['content-length'];
  if (typeof v !== 'string' || !/^\d+$/.test(v)) return null;
  return Number(v);
}

/** Whether a request carries a body at all (a length above 0, or a chunked one). */
export function hasBody(headers: Headers): boolean {
  const n = announcedBytes(headers);
  return (n !== null && n > 0) || headers['transfer-encoding'] !== undefined;
}

/** Why a body of `bytes` is refused for its size, or null (`bytes` null: a chunked body that has passed the limit). */
export function sizeRefusal(bytes: number | null, limitBytes = MAX_BODY_BYTES): string | null {
  if (bytes !== null && bytes <= limitBytes) return null;
  const limit = `the ${limitBytes} bytes (${Math.round((limitBytes / 1024) * 10) / 10} KiB) a request body may have`;
  return bytes === null ? `body: more than ${limit}; refused` : `body: ${bytes} bytes, more than ${limit}; refused unread`;
}

/** Why a request whose method takes no body is refused, or null. */
export function bodylessRefusal(method: string, path: string, headers: Headers): string | null {
  if (!BODYLESS_METHODS.has(method) || !hasBody(headers)) return null;
  return `body: ${method} ${path.slice(0, 100)} takes no body; refused unread`;
}

/** The problems of a route's body schema against the policy: every object closed, every value bounded. */
export function schemaProblems(schema: unknown, at = 'body'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((sub, i) => out.push(...schemaProblems(sub, `${at}(${k}[${i}])`)));
  }
  if ('enum' in s || 'const' in s) return out;
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.includes('object')) {
    const extra = s.additionalProperties;
    if (extra === false) {
      for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) out.push(...schemaProblems(sub, `${at}.${k}`));
    } else if (typeof extra === 'object' && extra !== null && typeof s.maxProperties === 'number') {
      out.push(...schemaProblems(extra, `${at}.*`));
    } else out.push(`${at}: takes unknown keys (additionalProperties must be false, or a schema with maxProperties)`);
  }
  if (types.includes('number') || types.includes('integer')) {
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push(`${at}: a number without a minimum`);
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push(`${at}: a number without a maximum`);
  }
  if (types.includes('string') && s.maxLength === undefined && s.pattern === undefined) out.push(`${at}: a string without a maxLength`);
  if (types.includes('array')) {
    if (typeof s.maxItems !== 'number') out.push(`${at}: an array without maxItems`);
    out.push(...schemaProblems(s.items, `${at}[]`));
  }
  return out;
}

/** An ajv error as fastify hands it to a schemaErrorFormatter. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The error to tell of a failed validation (all of them are collected): an unknown key first, else the first. */
export function pickSchemaError<E extends { keyword: string }>(errors: readonly E[] | null | undefined): E | undefined {
  return errors?.find((e) => e.keyword === 'additionalProperties') ?? errors?.[0];
}

/**
 * A validation failure in words, naming the key: ajv's own "must NOT have additional properties" leaves out which
 * one, and a route that takes no body says so.
 */
export function describeSchemaError(e: SchemaError | undefined, dataVar: string): string {
  if (!e) return `${dataVar} is not valid`;
  const where = `${dataVar}${e.instancePath}`;
  if (e.keyword === 'additionalProperties') return `${where}/${String(e.params.additionalProperty)}: unknown key, refused (the fields this request takes are in its schema, /docs)`;
  if (e.keyword === 'maxProperties' && e.params.limit === 0) return `${where}: this request takes no body (nothing, or {})`;
  if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) return `${where} must be one of ${e.params.allowedValues.slice(0, 20).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where} ${e.message ?? 'is not valid'}`;
}
