import { applyMergePatch } from '../store/merge-patch.js';
import { cloneJson, jsonEqual, type Json, type JsonObject } from '../store/object.js';
import type { HeaderPairs } from './sim-response.js';

/**
 * Options of {@link fakeRestService}.
 * @public
 */
export interface FakeRestServiceOptions {
  /** Absolute http(s) URL the service answers under, e.g. `'https://dns.example'` or `'https://api.example/v1'`. */
  baseUrl: string;
  /**
   * Name used in reports.
   * @defaultValue the host of `baseUrl`
   */
  name?: string;
  /**
   * Request header carrying an idempotency key (e.g. `'Idempotency-Key'`). When set, a POST that
   * repeats a key gets the first response back instead of creating again.
   * @defaultValue undefined (no idempotency: every POST creates)
   */
  idempotencyKeyHeader?: string;
  /**
   * Collections served (first path segment after `baseUrl`). Requests to other paths fall
   * through to msw handlers (and are unhandled without one).
   * @defaultValue undefined (any collection name)
   */
  collections?: string[];
  /**
   * Virtual ms each request takes before the service sees it (a real API answers in tens or
   * hundreds of ms, not instantly): the caller's task parks on the virtual clock, so calls of
   * two replicas or workers overlap the way they do against a real API, without any fault. A
   * `latency` fault decision adds to it; when the sum reaches the client timeout the call times
   * out without reaching the service.
   * @defaultValue 0
   */
  latencyMs?: number;
  /**
   * Resources the service holds before the run, per collection (records another team or cluster
   * made, an account's existing buckets): they get the first ids, in order, and are not in
   * `history()` or `createdCount`, as objects a scenario starts with are not the controllers'
   * writes. Drift may still edit or delete them; no property asks the controllers to undo that.
   * @defaultValue none
   */
  resources?: Readonly<Record<string, readonly object[]>>;
  /**
   * Top-level fields no request may change once a resource exists (a DNS record's `zone`, a
   * bucket's `region`, a database's `engine`): a PUT or PATCH that changes (or drops) one gets 422,
   * and drift leaves them, as no console can change them either.
   * @defaultValue none
   */
  immutableFields?: readonly string[];
}

/** Options after {@link fakeRestService} validated them. @internal */
export interface ResolvedFakeRestServiceOptions {
  baseUrl: string;
  name: string;
  idempotencyKeyHeader: string | undefined;
  collections: ReadonlySet<string> | undefined;
  latencyMs: number;
  resources: Readonly<Record<string, readonly JsonObject[]>>;
  immutableFields: ReadonlySet<string>;
}

/** A stored external resource: the body the client sent plus the server-assigned `id`. @public */
export type RestResource = JsonObject & { id: string };

/**
 * One change of a fake service's resources, in the order they happened: a create through POST
 * (the body as created), a delete through DELETE, or an out-of-band removal ({@link
 * FakeRestService.remove}, drift) with the body the resource had then. What was destroyed and made
 * again is only visible here: the end state holds the replacement alone.
 */
export interface RestChange {
  op: 'create' | 'delete' | 'remove';
  collection: string;
  id: string;
  body: RestResource;
}

/**
 * One edit of an existing resource, in the order they happened: through a PUT or PATCH request
 * (`via: 'request'`, the system under test) or out of band ({@link FakeRestService.mutate},
 * drift). `fields` are the top-level fields whose values it changed; `body` is the resource after
 * it. Which fields a controller keeps changing is what says it maintains them (a drift edit of a
 * field it only set at creation is not its to undo).
 */
export interface RestEdit {
  via: 'request' | 'out-of-band';
  collection: string;
  id: string;
  fields: string[];
  body: RestResource;
}

/** Resources of one collection that share an owner value. @public */
export interface OwnerGroup {
  collection: string;
  owner: string;
  resources: RestResource[];
}

/** Where a URL lands inside a fake service. @internal */
export interface RestRoute {
  collection: string;
  /** Undefined for the collection itself. */
  id: string | undefined;
  /** Raw query string without `?` ('' when none). */
  query: string;
  /** Normalised endpoint path (`origin/base/collection` or `…/collection/:id`). */
  endpointPath: string;
}

/** A service answer, before it becomes a response object. @internal */
export interface RestReply {
  status: number;
  text: string | null;
  headers: HeaderPairs;
}

/**
 * A stateful in-memory REST resource store standing in for an external API (DNS records,
 * orders, buckets), so duplicates and leaks are visible after a run.
 *
 * Routes under `baseUrl`: `POST /{c}` creates (201, server-assigned id), `GET /{c}` lists (a
 * JSON array; query parameters filter on top-level or dotted fields, e.g. `?owner=default/web`),
 * `GET /{c}/{id}` reads (404 when missing), `PUT /{c}/{id}` replaces, `PATCH /{c}/{id}` merge
 * patches (RFC 7386), `DELETE /{c}/{id}` removes (204; 404 when missing). Bodies are JSON.
 *
 * With `latencyMs`, each request reaches the service that many virtual ms after the call (the
 * answer then comes back at once).
 *
 * Known limits: no auth, no pagination, no conditional requests (ETag/If-Match), no nested
 * collections; ids are a per-service counter (`'1'`, `'2'`, …).
 * @public
 */
export interface FakeRestService {
  readonly name: string;
  /** `baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  /** Resources ever created through POST (idempotent replays excluded). */
  readonly createdCount: number;
  /** Deep copies of the stored resources, in creation order; all collections when omitted. */
  resources(collection?: string): RestResource[];
  /** Names of the collections that have held a resource (or were declared), in first-use order. */
  collections(): string[];
  /** Deep copies of every create, delete and out-of-band removal so far, in order. */
  history(): RestChange[];
  /** Deep copies of every edit of an existing resource that changed a field, in order (see {@link RestEdit}). */
  edits(): RestEdit[];
  /** A deep copy of one resource, or undefined. */
  get(collection: string, id: string): RestResource | undefined;
  /**
   * Out-of-band merge patch (drift: someone edited the resource outside the reconciler).
   * @returns false when the resource does not exist
   */
  mutate(collection: string, id: string, patch: JsonObject): boolean;
  /**
   * Out-of-band deletion (drift).
   * @returns false when the resource did not exist
   */
  remove(collection: string, id: string): boolean;
  /**
   * Resources grouped per (collection, owner value of `field`, a dotted path); resources without
   * the field are skipped. A group with more than one resource is a duplicate side effect.
   * @param field - @defaultValue 'owner'
   */
  byOwner(field?: string): OwnerGroup[];
  /** @internal Maps a URL onto a route, or undefined when this service does not serve it. */
  route(url: string): RestRoute | undefined;
  /** @internal Serves one request. `idempotencyKey` is read only for POST. */
  handle(route: RestRoute, method: string, bodyText: string | undefined, idempotencyKey: string | undefined): RestReply;
  /** @internal */
  readonly options: ResolvedFakeRestServiceOptions;
}

/**
 * Creates a fake REST service for the `downstream` factory of `check`, `simulate` or a module's
 * `checkOptions`, called once per run so every run starts with an empty service: a reconciler's
 * `ctx.fetch` to `baseUrl` reaches it, and properties (no-duplicate-side-effects,
 * deletion-completes) read what it holds at the end.
 * @param options - see {@link FakeRestServiceOptions}
 * @example
 * export const checkOptions: CheckOptions = {
 *   downstream: () => ({ services: [fakeRestService({ baseUrl: 'https://dns.example', idempotencyKeyHeader: 'Idempotency-Key' })] }),
 * };
 * @public
 */
export function fakeRestService(options: FakeRestServiceOptions): FakeRestService {
  return new RestStore(resolveFakeRestServiceOptions(options));
}

/** Validates and completes the options once, with errors that name the call. @internal */
export function resolveFakeRestServiceOptions(options: FakeRestServiceOptions): ResolvedFakeRestServiceOptions {
  const where = 'steadystate.fakeRestService';
  let parsed: URL;
  try {
    parsed = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`${where}: baseUrl ${JSON.stringify(options.baseUrl)} is not an absolute URL; pass e.g. 'https://dns.example'.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${where}: baseUrl must use http or https, got ${JSON.stringify(options.baseUrl)}.`);
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new TypeError(`${where}: baseUrl must not carry a query or fragment, got ${JSON.stringify(options.baseUrl)}.`);
  }
  // Keep the canonical form (lower-case host, no default port) so it matches what callers send.
  const baseUrl = (parsed.origin + parsed.pathname).replace(/\/+$/, '');
  for (const c of options.collections ?? []) {
    if (c === '' || c.includes('/')) {
      throw new TypeError(`${where}: collection names are single path segments, got ${JSON.stringify(c)}.`);
    }
  }
  const latencyMs = options.latencyMs ?? 0;
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new RangeError(`${where}: latencyMs must be a non-negative number of virtual ms, got ${String(latencyMs)}; pass e.g. 200, or omit it for instant answers.`);
  }
  return {
    baseUrl,
    name: options.name ?? parsed.host,
    latencyMs,
    idempotencyKeyHeader: options.idempotencyKeyHeader,
    collections: options.collections ? new Set(options.collections) : undefined,
    resources: resourcesOf(options.resources, options.collections, where),
    immutableFields: immutableOf(options.immutableFields, where),
  };
}

/** The immutable fields, checked: top-level field names, never `id` (the service's own). */
function immutableOf(fields: readonly string[] | undefined, where: string): ReadonlySet<string> {
  for (const f of fields ?? []) {
    if (typeof f !== 'string' || f === '' || f.includes('.') || f === 'id') throw new TypeError(`${where}: immutableFields holds top-level field names other than id, got ${JSON.stringify(f)}; e.g. immutableFields: ['zone'].`);
  }
  return new Set(fields ?? []);
}

/** The resources a service starts with, checked: plain objects in collections it serves. */
function resourcesOf(resources: FakeRestServiceOptions['resources'], collections: readonly string[] | undefined, where: string): Readonly<Record<string, readonly JsonObject[]>> {
  if (resources === undefined) return {};
  const out: Record<string, JsonObject[]> = {};
  for (const [c, list] of Object.entries(resources)) {
    if (c === '' || c.includes('/') || (collections !== undefined && !collections.includes(c))) {
      throw new TypeError(`${where}: resources names collection ${JSON.stringify(c)}, which ${collections !== undefined && !c.includes('/') && c !== '' ? 'is not among its collections' : 'is not a single path segment'}; name a collection the service serves.`);
    }
    if (!Array.isArray(list) || list.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) {
      throw new TypeError(`${where}: resources.${c} must be an array of JSON objects (the bodies, without ids: the service assigns them).`);
    }
    // a JSON copy: the service holds JSON, as a request body would be
    out[c] = list.map((r) => JSON.parse(JSON.stringify(r)) as JsonObject);
  }
  return out;
}

const JSON_HEADERS: HeaderPairs = [['content-type', 'application/json']];

class RestStore implements FakeRestService {
  readonly options: ResolvedFakeRestServiceOptions;
  readonly name: string;
  readonly baseUrl: string;
  createdCount = 0;
  private nextId = 1;
  private readonly data = new Map<string, Map<string, RestResource>>();
  /** Idempotency key → first reply, per collection. */
  private readonly replies = new Map<string, RestReply>();
  /** Stored resources are replaced, never changed in place, so the log holds them without copies. */
  private readonly log: RestChange[] = [];
  /** Edits that changed a field, holding the replaced resources as the log does. */
  private readonly editLog: RestEdit[] = [];

  constructor(options: ResolvedFakeRestServiceOptions) {
    this.options = options;
    this.name = options.name;
    this.baseUrl = options.baseUrl;
    // there before the run: not a create of the run (no history entry, not counted)
    for (const [collection, list] of Object.entries(options.resources)) {
      let items = this.data.get(collection);
      if (!items) this.data.set(collection, (items = new Map()));
      for (const body of list) {
        const id = String(this.nextId++);
        items.set(id, withId(body, id));
      }
    }
  }

  resources(collection?: string): RestResource[] {
    const out: RestResource[] = [];
    for (const [c, items] of this.data) {
      if (collection !== undefined && c !== collection) continue;
      for (const r of items.values()) out.push(cloneJson(r));
    }
    return out;
  }

  collections(): string[] {
    return [...this.data.keys()];
  }

  history(): RestChange[] {
    return this.log.map((c) => ({ ...c, body: cloneJson(c.body) }));
  }

  edits(): RestEdit[] {
    return this.editLog.map((e) => ({ ...e, fields: [...e.fields], body: cloneJson(e.body) }));
  }

  /** Logs an edit that changed a top-level field of `before` (none changed: nothing to log). */
  private edited(via: RestEdit['via'], collection: string, id: string, before: RestResource, after: RestResource): void {
    const fields: string[] = [];
    for (const k in after) if (k !== 'id' && !jsonEqual(before[k], after[k])) fields.push(k);
    for (const k in before) if (k !== 'id' && !(k in after)) fields.push(k);
    if (fields.length > 0) this.editLog.push({ via, collection, id, fields, body: after });
  }

  get(collection: string, id: string): RestResource | undefined {
    const r = this.data.get(collection)?.get(id);
    return r && cloneJson(r);
  }

  mutate(collection: string, id: string, patch: JsonObject): boolean {
    const items = this.data.get(collection);
    const current = items?.get(id);
    if (!items || !current) return false;
    // what no request may change, no console changes either
    const allowed: JsonObject = {};
    for (const [k, v] of Object.entries(patch)) if (!this.options.immutableFields.has(k)) allowed[k] = v;
    const next = withId(applyMergePatch(current, allowed), id);
    items.set(id, next);
    this.edited('out-of-band', collection, id, current, next);
    return true;
  }

  remove(collection: string, id: string): boolean {
    const current = this.data.get(collection)?.get(id);
    if (!current) return false;
    this.data.get(collection)!.delete(id);
    this.log.push({ op: 'remove', collection, id, body: current });
    return true;
  }

  byOwner(field = 'owner'): OwnerGroup[] {
    const path = field.split('.');
    const groups = new Map<string, OwnerGroup>();
    for (const [collection, items] of this.data) {
      for (const r of items.values()) {
        const v = at(r, path);
        if (v === undefined || v === null || typeof v === 'object') continue;
        const owner = String(v);
        const key = `${collection}\u0000${owner}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { collection, owner, resources: [] }));
        g.resources.push(cloneJson(r));
      }
    }
    return [...groups.values()];
  }

  route(url: string): RestRoute | undefined {
    const base = this.baseUrl;
    if (!url.startsWith(base)) return undefined;
    let rest = url.slice(base.length);
    const hash = rest.indexOf('#');
    if (hash >= 0) rest = rest.slice(0, hash);
    const q = rest.indexOf('?');
    const query = q >= 0 ? rest.slice(q + 1) : '';
    const path = q >= 0 ? rest.slice(0, q) : rest;
    // Path must be "/c" or "/c/id" (a trailing slash is tolerated).
    if (path.charCodeAt(0) !== 47 /* '/' */) return undefined;
    const parts = path.slice(1).split('/');
    if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
    if (parts.length > 2 || parts[0] === '' || parts[0] === undefined) return undefined;
    const collection = decode(parts[0]);
    if (this.options.collections && !this.options.collections.has(collection)) return undefined;
    const rawId = parts[1];
    const endpointPath = `${base}/${parts[0]}${rawId === undefined ? '' : '/:id'}`;
    return { collection, id: rawId === undefined ? undefined : decode(rawId), query, endpointPath };
  }

  handle(route: RestRoute, method: string, bodyText: string | undefined, idempotencyKey: string | undefined): RestReply {
    const { collection, id } = route;
    if (id === undefined) {
      if (method === 'GET' || method === 'HEAD') return this.list(collection, route.query, method);
      if (method === 'POST') return this.create(collection, bodyText, idempotencyKey);
      return problem(405, `${method} is not allowed on a collection; use GET or POST`);
    }
    const items = this.data.get(collection);
    const current = items?.get(id);
    switch (method) {
      case 'GET':
      case 'HEAD':
        if (!current) return notFound(collection, id);
        return json(200, method === 'HEAD' ? undefined : current);
      case 'PUT':
      case 'PATCH': {
        if (!items || !current) return notFound(collection, id);
        const body = parseObject(bodyText);
        if (typeof body === 'string') return problem(400, body);
        const next = withId(method === 'PUT' ? body : applyMergePatch(current, body), id);
        for (const f of this.options.immutableFields) {
          if (f in current && !jsonEqual(current[f] ?? null, next[f] ?? null)) return problem(422, `${f} cannot change once ${collection}/${id} exists (it is ${JSON.stringify(current[f])}); create a new resource for another ${f}`);
        }
        items.set(id, next);
        this.edited('request', collection, id, current, next);
        return json(200, next);
      }
      case 'DELETE':
        if (!items || !current) return notFound(collection, id);
        items.delete(id);
        this.log.push({ op: 'delete', collection, id, body: current });
        return { status: 204, text: null, headers: [] };
      default:
        return problem(405, `${method} is not allowed on a resource; use GET, PUT, PATCH or DELETE`);
    }
  }

  private list(collection: string, query: string, method: string): RestReply {
    const items = this.data.get(collection);
    let all = items ? [...items.values()] : [];
    if (query !== '') {
      for (const [k, v] of new URLSearchParams(query)) {
        const path = k.split('.');
        all = all.filter((r) => {
          const x = at(r, path);
          return x !== null && typeof x !== 'object' && x !== undefined && String(x) === v;
        });
      }
    }
    return json(200, method === 'HEAD' ? undefined : all);
  }

  private create(collection: string, bodyText: string | undefined, key: string | undefined): RestReply {
    const replayKey = key !== undefined && this.options.idempotencyKeyHeader !== undefined ? `${collection}\u0000${key}` : undefined;
    if (replayKey !== undefined) {
      const first = this.replies.get(replayKey);
      // Stripe-style replay: the first response again, marked so a test can see it happened.
      if (first) return { ...first, headers: [...first.headers, ['idempotent-replayed', 'true']] };
    }
    const body = parseObject(bodyText);
    if (typeof body === 'string') return problem(400, body);
    const id = String(this.nextId++);
    const resource = withId(body, id);
    let items = this.data.get(collection);
    if (!items) this.data.set(collection, (items = new Map()));
    items.set(id, resource);
    this.log.push({ op: 'create', collection, id, body: resource });
    this.createdCount++;
    const reply: RestReply = {
      status: 201,
      text: JSON.stringify(resource),
      headers: [...JSON_HEADERS, ['location', `${this.baseUrl}/${encodeURIComponent(collection)}/${id}`]],
    };
    if (replayKey !== undefined) this.replies.set(replayKey, reply);
    return reply;
  }
}

/** The resource with `id` first and authoritative (a client cannot rename a resource). */
function withId(body: Json, id: string): RestResource {
  const out: JsonObject = { id };
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const k in body) if (k !== 'id') out[k] = body[k]!;
  }
  return out as RestResource;
}

/** Parsed JSON object, or an error message. */
function parseObject(text: string | undefined): JsonObject | string {
  if (text === undefined || text === '') return 'request body is empty; send a JSON object';
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return `request body is not JSON: ${(err as Error).message}`;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'request body must be a JSON object';
  return v as JsonObject;
}

function at(value: Json | undefined, path: readonly string[]): Json | undefined {
  let cur = value;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function json(status: number, body: Json | undefined): RestReply {
  return { status, text: body === undefined ? null : JSON.stringify(body), headers: JSON_HEADERS };
}

function problem(status: number, message: string): RestReply {
  return json(status, { error: message });
}

function notFound(collection: string, id: string): RestReply {
  return problem(404, `${collection}/${id} not found`);
}
