/**
 * The web map (src/web, bundled by esbuild into dist/web at `npm run build`) as a fastify plugin: the page
 * at the scene's root (`/` for the default scene, `/scenes/<name>/` for others) and its files under
 * `web/`. The bundle is read once at start into memory: a fixed set of routes, no path from a request
 * ever reaches the file system. Everything the page loads comes from here (a strict Content-Security-Policy
 * says so to the browser): it works on a test track with no internet.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { projectRoot } from '../../util/project-root.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Same-origin only: scripts, styles, images and the stream/REST calls of this server, nothing else. */
export const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

export interface WebFile {
  body: Buffer;
  type: string;
  etag: string;
}

export interface WebBundle {
  dir: string;
  /** name (relative to dir, '/'-separated) → file */
  files: Map<string, WebFile>;
  /** why there is no page, when there is none */
  missing?: string;
}

export function defaultWebDir(): string {
  return process.env.VILS_WEB_DIR ?? join(projectRoot(), 'dist', 'web');
}

/** Reads the bundle directory into memory (a few small files). */
export function loadWebBundle(dir = defaultWebDir()): WebBundle {
  const files = new Map<string, WebFile>();
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub ? `${sub}/${name}` : name;
      const full = join(dir, rel);
      if (statSync(full).isDirectory()) walk(rel);
      else if (TYPES[extname(name)]) {
        const body = readFileSync(full);
        files.set(rel, { body, type: TYPES[extname(name)], etag: `"${createHash('sha1').update(body).digest('base64url')}"` });
      }
    }
  };
  let missing: string | undefined;
  if (!existsSync(join(dir, 'index.html'))) missing = `the web map is not built (no ${join(dir, 'index.html')}): run \`npm run build\``;
  else walk('');
  return { dir, files, missing };
}

function send(req: FastifyRequest, reply: FastifyReply, f: WebFile, extra: Record<string, string> = {}) {
  reply.header('cache-control', 'no-cache').header('etag', f.etag).header('x-content-type-options', 'nosniff');
  for (const [k, v] of Object.entries(extra)) reply.header(k, v);
  if (req.headers['if-none-match'] === f.etag) return reply.code(304).send();
  return reply.type(f.type).send(f.body);
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export async function webPlugin(app: FastifyInstance, opts: { bundle?: WebBundle } = {}): Promise<void> {
  const bundle = opts.bundle ?? loadWebBundle();
  const hide = { schema: { hide: true } };
  const page = (req: FastifyRequest, reply: FastifyReply) => {
    // the page's own files are relative to its folder: /scenes/b must become /scenes/b/
    const path = req.url.split('?')[0];
    if (!path.endsWith('/') && !path.endsWith('/index.html')) return reply.redirect(`${path}/${req.url.slice(path.length)}`, 308);
    if (bundle.missing) {
      return reply.code(503).type('text/html; charset=utf-8')
        .send(`<!doctype html><meta charset="utf-8"><title>VILS</title><p>VILS is running, but ${escapeHtml(bundle.missing)}. The REST API is described at <a href="/docs">/docs</a>.</p>`);
    }
    return send(req, reply, bundle.files.get('index.html') as WebFile, { 'content-security-policy': PAGE_CSP });
  };
  app.get('/', { ...hide, prefixTrailingSlash: 'both' }, page);
  app.get('/index.html', hide, page);
  for (const [name, f] of bundle.files) {
    if (name === 'index.html') continue;
    app.get(`/web/${name}`, hide, (req, reply) => send(req, reply, f));
  }
}
