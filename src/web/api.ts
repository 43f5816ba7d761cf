/** The REST API of one scene, with the server's own error text on refusal. */

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The access token the page was opened with (`/?token=…`), kept for the tab in sessionStorage so a reload
 * or a link without it keeps working; null on a server without tokens.
 */
export function pageToken(): string | null {
  const fromUrl = new URLSearchParams(location.search).get('token');
  try {
    if (fromUrl) sessionStorage.setItem('vils-token', fromUrl);
    return fromUrl ?? sessionStorage.getItem('vils-token');
  } catch {
    return fromUrl;
  }
}

/** A stream URL with the page's token (a browser WebSocket cannot send an Authorization header). */
export function withToken(url: string, token = pageToken()): string {
  return token ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : url;
}

export class Api {
  /** `base`: the scene's prefix ('' for the default scene, '/scenes/<name>' for others) */
  constructor(readonly base: string, private readonly token: string | null = pageToken()) {}

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        // no content-type without a body: fastify refuses an empty JSON body
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, `the server did not answer (${method} ${path})`);
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: the text itself is the message */
    }
    if (!res.ok) {
      const msg = (data as { message?: unknown } | null)?.message;
      throw new ApiError(res.status, typeof msg === 'string' && msg ? msg : text.slice(0, 300) || `${res.status} ${res.statusText}`);
    }
    return data as T;
  }
}

/** The scene prefix of the page at `pathname`: '/' → '', '/scenes/b/' → '/scenes/b'. */
export function scenePrefix(pathname: string): string {
  const dir = pathname.endsWith('/') ? pathname : pathname.slice(0, pathname.lastIndexOf('/') + 1);
  return dir.replace(/\/+$/, '');
}
