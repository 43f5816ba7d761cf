/**
 * The body policy (../body-policy.ts) on a fastify app: installed on the root instance before any route, so it
 * holds for every route registered after it, in every plugin, whoever registers it (the scene server's REST, the
 * JSON data port, `vils realtime`'s and the playback's HTTP):
 *
 *   - validation: one strict Ajv for every route's schemas (unknown keys refused, never dropped; no type coercion);
 *   - onRoute: each route gets the policy's body limit, a body schema (NO_BODY_SCHEMA where it has none and its
 *     method carries a body) and the error formatter that names the key; a body schema that takes unknown keys or
 *     leaves a value unbounded is refused here, when the route is registered (a programming error, not a request);
 *   - preParsing: a body over the limit is refused from its Content-Length before a byte is read (a chunked one as
 *     soon as it passes the limit), and a GET or HEAD with a body is refused unread;
 *   - the JSON parser: a body nested too deeply is refused before it is parsed.
 *
 * `vilsRoutes` lists every route the policy saw (method and URL), for the test that walks them all.
 */
import { Transform } from 'node:stream';
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError, RouteOptions } from 'fastify';
import {
  BODYLESS_METHODS,
  MAX_BODY_BYTES,
  NO_BODY_SCHEMA,
  announcedBytes,
  bodyDepthRefusal,
  bodylessRefusal,
  describeSchemaError,
  pickSchemaError,
  schemaProblems,
  sizeRefusal,
  type SchemaError,
} from '../body-policy.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** every route registered after the body policy was installed: method and URL (HEAD routes too) */
    vilsRoutes?: Array<{ method: string; url: string }>;
  }
}

const refusal = (statusCode: number, message: string, code: string) => Object.assign(new Error(message), { statusCode, code });

/** A stream that passes a body on until it is longer than the limit, then fails with the policy's 413. */
function limited(payload: NodeJS.ReadableStream, limitBytes: number): NodeJS.ReadableStream {
  let seen = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limitBytes) return done(refusal(413, sizeRefusal(null, limitBytes)!, 'VILS_BODY_TOO_LARGE'));
      done(null, chunk);
    },
  });
  return payload.pipe(t);
}

/** The route's limit (set by the onRoute hook), or the policy's. */
const limitOf = (req: FastifyRequest, fallback: number) => req.routeOptions.bodyLimit ?? fallback;

export function installBodyPolicy(app: FastifyInstance, opts: { limitBytes?: number } = {}): void {
  const limitBytes = opts.limitBytes ?? MAX_BODY_BYTES;
  const routes: Array<{ method: string; url: string }> = [];
  app.decorate('vilsRoutes', routes);
  // the schemas are checked as written on every server: fastify's own defaults would drop unknown keys silently
  // (removeAdditional) and take "1" for 1 (coerceTypes); defaults in a schema still fill in missing keys. Every
  // error is collected (a body is at most 64 KiB) so that an unknown key is named even beside a missing one
  const ajv = new Ajv({ removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: true, strict: false });
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // (a plugin's "/" under a prefix is also registered with the trailing slash, from these same options, without
    // a second onRoute call — its HEAD route has one of its own: it is listed here so that a walk covers it)
    const placed = route as RouteOptions & { prefix?: string; routePath?: string };
    const slashToo = !!placed.prefix && placed.routePath === '' && (route.prefixTrailingSlash ?? 'both') === 'both';
    for (const m of methods) {
      routes.push({ method: m, url: route.url });
      if (slashToo && m !== 'HEAD') routes.push({ method: m, url: `${route.url}/` });
    }
    route.bodyLimit = Math.min(route.bodyLimit ?? limitBytes, limitBytes);
    const takesBody = methods.some((m) => !BODYLESS_METHODS.has(m));
    if (takesBody) {
      const schema = (route.schema ??= {});
      schema.body ??= NO_BODY_SCHEMA;
      const problems = schemaProblems(schema.body);
      if (problems.length) throw new Error(`${methods.join(',')} ${route.url}: its body schema breaks the body policy (src/server/body-policy.ts): ${problems.join('; ')}`);
    }
    route.schemaErrorFormatter ??= (errors: FastifySchemaValidationError[], dataVar: string) =>
      Object.assign(new Error(describeSchemaError(pickSchemaError(errors) as unknown as SchemaError, dataVar)), { statusCode: 400 });
  });

  app.addHook('preParsing', async (req, _reply, payload) => {
    const limit = limitOf(req, limitBytes);
    const announced = announcedBytes(req.headers);
    const big = announced === null ? null : sizeRefusal(announced, limit);
    if (big) throw refusal(413, big, 'VILS_BODY_TOO_LARGE');
    const bodyless = bodylessRefusal(req.method, req.url.split('?')[0], req.headers);
    if (bodyless) throw refusal(400, bodyless, 'VILS_BODY_NOT_TAKEN');
    return announced === null && req.headers['transfer-encoding'] !== undefined ? limited(payload, limit) : payload;
  });

  // deeper than the limit: refused before it is parsed (nothing downstream — validation, the scene, the recorder,
  // a copy to another thread — has to walk 5,000 levels); the refusal goes through the route's hooks like any reply
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const deep = bodyDepthRefusal(body as string);
    if (deep) return done(refusal(400, deep, 'VILS_BODY_TOO_DEEP'), undefined);
    return parseJson(req, body as string, done);
  });
}
