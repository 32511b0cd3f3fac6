import type { FetchResponse, SimFetch } from '../../../src/index.js';
import { sameJson } from './same-json.js';

/**
 * A failed call to an external JSON API. `retryAfterMs` carries a `Retry-After` header, so a
 * careful controller can wait as long as the server asked.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A resource as an external REST API returns it: the body plus the server-assigned id. */
export type Remote<T> = T & { id: string };

/**
 * The small REST client a controller author writes for an external API (`POST /c`, `GET /c?q`,
 * `GET|PUT|DELETE /c/:id`, JSON bodies). Every non-2xx answer throws an {@link HttpError},
 * except `get`, which reads 404 as "absent".
 */
export interface JsonApi {
  list<T>(collection: string, query?: Record<string, string>): Promise<Remote<T>[]>;
  get<T>(collection: string, id: string): Promise<Remote<T> | undefined>;
  create<T extends object>(collection: string, body: T, options?: { idempotencyKey?: string }): Promise<Remote<T>>;
  replace<T extends object>(collection: string, id: string, body: T): Promise<Remote<T>>;
  patch<T extends object>(collection: string, id: string, body: Partial<T>): Promise<Remote<T>>;
  /** @throws HttpError, also 404 when the resource is already gone */
  remove(collection: string, id: string): Promise<void>;
  /** Idempotent delete: a resource that is already gone (404) counts as deleted. */
  removeIfPresent(collection: string, id: string): Promise<void>;
  /** Idempotent delete of every resource whose `owner` field is `owner`. */
  removeOwned(collection: string, owner: string): Promise<void>;
}

/** A {@link JsonApi} over `fetch` (a reconcile passes `ctx.fetch`). */
export function jsonApi(fetch: SimFetch, baseUrl: string): JsonApi {
  async function call(method: string, path: string, body?: object, headers: Record<string, string> = {}): Promise<unknown> {
    const init: RequestInit = { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${baseUrl}${path}`, init);
    if (!res.ok) throw await httpError(method, `${baseUrl}${path}`, res);
    return res.status === 204 ? undefined : res.json();
  }
  const api: JsonApi = {
    async list<T>(collection: string, query: Record<string, string> = {}) {
      const q = new URLSearchParams(query).toString();
      return (await call('GET', `/${collection}${q ? `?${q}` : ''}`)) as Remote<T>[];
    },
    async get<T>(collection: string, id: string) {
      try {
        return (await call('GET', `/${collection}/${encodeURIComponent(id)}`)) as Remote<T>;
      } catch (err) {
        if (err instanceof HttpError && err.status === 404) return undefined;
        throw err;
      }
    },
    async create<T extends object>(collection: string, body: T, options: { idempotencyKey?: string } = {}) {
      const headers: Record<string, string> = options.idempotencyKey !== undefined ? { 'Idempotency-Key': options.idempotencyKey } : {};
      return (await call('POST', `/${collection}`, body, headers)) as Remote<T>;
    },
    async replace<T extends object>(collection: string, id: string, body: T) {
      return (await call('PUT', `/${collection}/${encodeURIComponent(id)}`, body)) as Remote<T>;
    },
    async patch<T extends object>(collection: string, id: string, body: Partial<T>) {
      return (await call('PATCH', `/${collection}/${encodeURIComponent(id)}`, body)) as Remote<T>;
    },
    async remove(collection: string, id: string) {
      await call('DELETE', `/${collection}/${encodeURIComponent(id)}`);
    },
    async removeIfPresent(collection: string, id: string) {
      try {
        await api.remove(collection, id);
      } catch (err) {
        if (!(err instanceof HttpError && err.status === 404)) throw err;
      }
    },
    async removeOwned(collection: string, owner: string) {
      for (const r of await api.list(collection, { owner })) await api.removeIfPresent(collection, r.id);
    },
  };
  return api;
}

async function httpError(method: string, url: string, res: FetchResponse): Promise<HttpError> {
  let detail = '';
  try {
    detail = (await res.text()).slice(0, 200);
  } catch {
    // the body is only for the message
  }
  const ra = res.headers.get('retry-after');
  const seconds = ra === null ? NaN : Number(ra);
  return new HttpError(res.status, `${method} ${url}: HTTP ${res.status}${detail ? ` ${detail}` : ''}`, Number.isFinite(seconds) ? seconds * 1000 : undefined);
}

/** True when a remote resource holds exactly `want` (its server-assigned `id` aside). */
export function matches(have: Remote<object>, want: object): boolean {
  const { id: _, ...body } = have;
  return sameJson(body, want);
}
