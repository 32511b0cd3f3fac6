import type { ObjectStore } from '../store/store.js';
import { keyOf } from '../store/object.js';
import { coreVersions, group, groupList, openApiV2, openApiV3, openApiV3Root, resourceList, versionInfo } from './discovery.js';
import { wallClockHost, type KubeApiHost } from './kube-api-host.js';
import { parseRoute } from './parse-route.js';
import type { ResolvedResource, ResourceDefinition } from './resource-definition.js';
import { ResourceRegistry } from './resource-registry.js';
import type { ApiState, HandleOptions, KubeApiHooks, KubeRequestDecision, KubeRequestInfo, KubeVerb, ResolvedKubeApiOptions, ServeContext } from './serve-context.js';
import { serveDelete, serveDeleteCollection } from './serve-delete.js';
import { servePatch } from './serve-patch.js';
import { serveGet, serveList, serveWatch } from './serve-read.js';
import { serveBinding, serveCreate, serveUpdate } from './serve-write.js';
import { serveEviction } from './serve-eviction.js';
import { serveScale } from './serve-scale.js';
import { isDryRun } from './dry-run.js';
import { heldByOtherGroup, servedBy } from './served-by.js';
import { fieldManagersOf } from './managed-fields.js';
import { bodyTooLarge, jsonResponse, KubeStatusError, statusFromError, statusResponse, type StatusReason } from './status.js';

/** Options of {@link createKubeApi}. @public */
export interface KubeApiOptions {
  /** The object store served (the simulated cluster's state). */
  store: ObjectStore;
  /** Clock, timers and activity signal. @defaultValue {@link wallClockHost}() (real timers) */
  host?: KubeApiHost;
  /** Custom kinds to serve besides the built-ins and CRD-defined kinds. @defaultValue [] */
  resources?: readonly ResourceDefinition[];
  /** Fault seams of the HTTP layer. @defaultValue {} (everything passes) */
  hooks?: KubeApiHooks;
  /** Time every resource request takes before it is served (ms of the host's clock). @defaultValue 0 */
  requestLatencyMs?: number;
  /** Time from a store write to its watch event being written to a stream. @defaultValue 0 */
  watchLatencyMs?: number;
  /** Period of BOOKMARK events on watches that asked for them. @defaultValue 60_000 */
  bookmarkIntervalMs?: number;
  /** Actor recorded for requests without a bearer token. @defaultValue 'user' */
  anonymousActor?: string;
  /** Prefix of issued tokens (keeps tokens of several APIs in one process apart). @defaultValue 'steadystate-' */
  tokenPrefix?: string;
}

/**
 * The Kubernetes REST API over an {@link ObjectStore}, written once as a
 * `(Request) => Promise<Response>` function; msw handlers and the loopback server both call it.
 * @public
 */
export interface KubeApi {
  /** Serves one request. Never rejects: failures are `kind: Status` responses. */
  handle(request: Request, options?: HandleOptions): Promise<Response>;
  readonly store: ObjectStore;
  readonly resources: ResourceRegistry;
  /** A bearer token whose requests are recorded as `actor` (e.g. `controller:web/0`). */
  issueToken(actor: string): string;
  /** Makes a token unknown again (401 from then on). */
  revokeToken(token: string): void;
  /**
   * Ends open watch streams: `'close'` cleanly (clients re-watch), `'expire'` with a 410 ERROR
   * event (clients relist), `'cut'` abruptly (the connection drops). Returns how many ended.
   */
  endWatches(how: 'close' | 'expire' | 'cut', which?: (w: { actor: string; kind: string }) => boolean): number;
  /**
   * The next watch of `kind` that `actor` resumes from a resourceVersion ends at once with a 410
   * ERROR event (its client relists), as a real API server answers a resume from a version it
   * no longer serves. For a watch that fell behind while the client had none open (it was
   * waiting to re-watch after a cut): expiring only open streams would let it resume past what
   * it missed.
   */
  expireNextWatch(actor: string, kind: string): void;
  /** Watch streams currently open. */
  openWatches(): number;
  /** Every open watch stream sends now what faults held back or delayed (the fault window ended). */
  endLags(): void;
}

/** @internal */
export function resolveKubeApiOptions(o: KubeApiOptions): ResolvedKubeApiOptions {
  const where = 'steadystate.createKubeApi';
  const ms = (name: string, v: number | undefined, d: number, min = 0): number => {
    if (v === undefined) return d;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new TypeError(`${where}: ${name} must be a finite number ≥ ${min} (ms), got ${JSON.stringify(v)}`);
    return v;
  };
  if (o.anonymousActor !== undefined && (typeof o.anonymousActor !== 'string' || o.anonymousActor === '')) throw new TypeError(`${where}: anonymousActor must be a non-empty string such as 'user'`);
  return {
    requestLatencyMs: ms('requestLatencyMs', o.requestLatencyMs, 0),
    watchLatencyMs: ms('watchLatencyMs', o.watchLatencyMs, 0),
    bookmarkIntervalMs: ms('bookmarkIntervalMs', o.bookmarkIntervalMs, 60_000, 1),
    anonymousActor: o.anonymousActor ?? 'user',
    hooks: o.hooks ?? {},
  };
}

/**
 * Creates the Kubernetes REST API of a store (SPEC §7): discovery, `/version`, `/openapi/v2`,
 * and for built-in, registered and CRD-defined kinds list (selectors, paging), get, create,
 * update, merge/JSON/strategic patch, server-side apply (managedFields beside the store, see
 * serve-apply.ts), delete (propagation, preconditions), deletecollection,
 * the status subresource, a Pod's binding (`pods/{name}/binding` and `bindings`, as
 * kube-scheduler binds), a Pod's eviction (`pods/{name}/eviction`, PodDisruptionBudgets
 * respected, as drain tools evict), the scale subresource (`deployments/{name}/scale` and the
 * other workloads', a CRD's `subresources.scale`) and streaming watch (bookmarks, 410 Expired, legacy `/watch/` paths).
 *
 * Known limits (stated, as controller-runtime's fake client does): no admission webhooks; a CRD in
 * the store prunes, defaults and validates its objects by its schema, but not by CEL rules or
 * `format` (store/prune.ts, store/schema-validation.ts); a namespace need not exist as an object (deleting a Namespace deletes what is
 * in it and refuses new content, see the store);
 * CBOR and protobuf are not implemented; server-side apply of a Scale is refused (415); list pages after the first show
 * current objects; status written through the main resource is ignored for every kind; a
 * deleted CRD's objects stay in the store.
 * @param options - see {@link KubeApiOptions}
 * @example
 * const api = createKubeApi({ store });
 * const res = await api.handle(new Request('http://kube/api/v1/namespaces/default/configmaps'));
 * @public
 */
export function createKubeApi(options: KubeApiOptions): KubeApi {
  if (options === null || typeof options !== 'object' || typeof options.store?.create !== 'function') {
    throw new TypeError('steadystate.createKubeApi: pass { store } with the ObjectStore to serve (world.store in a simulation)');
  }
  const state: ApiState = {
    store: options.store,
    host: options.host ?? wallClockHost(),
    registry: new ResourceRegistry(options.store, options.resources ?? []),
    options: resolveKubeApiOptions(options),
    streams: new Set(),
    streamSeq: 0,
    expireNext: new Set(),
  };
  const tokens = new Map<string, string>();
  let tokenSeq = 0;
  let seq = 0;

  async function handle(request: Request, handleOptions: HandleOptions = {}): Promise<Response> {
    state.host.activity();
    try {
      return await serve(request, handleOptions);
    } catch (err) {
      return statusResponse(err instanceof KubeStatusError ? err : new KubeStatusError('InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`));
    } finally {
      state.host.activity();
    }
  }

  async function serve(request: Request, handleOptions: HandleOptions): Promise<Response> {
    const url = new URL(request.url);
    const route = parseRoute(url.pathname);
    const auth = request.headers.get('authorization');
    let actor = state.options.anonymousActor;
    if (auth !== null && /^bearer /i.test(auth)) {
      const known = tokens.get(auth.slice(7).trim());
      if (known === undefined) throw new KubeStatusError('Unauthorized', 'Unauthorized');
      actor = known;
    }
    if (route.type !== 'resource') {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw new KubeStatusError('MethodNotAllowed', `the server does not allow this method on the requested resource (${request.method} ${url.pathname})`);
      const body = discovery(route);
      if (body === undefined) throw new KubeStatusError('NotFound', 'the server could not find the requested resource');
      return typeof body === 'string' ? new Response(body, { headers: { 'content-type': 'text/plain' } }) : jsonResponse(body);
    }
    // a Pod's binding: POST pods/{name}/binding, or the legacy bindings resource (a v1 Binding, not a stored kind)
    const binding = route.group === '' && route.version === 'v1' && route.namespace !== undefined && ((route.plural === 'pods' && route.name !== undefined && route.subresource === 'binding') || (route.plural === 'bindings' && route.name === undefined && route.subresource === undefined));
    const resource = state.registry.find(route.group, route.version, binding ? 'pods' : route.plural);
    if (!resource) throw new KubeStatusError('NotFound', 'the server could not find the requested resource');
    if (binding) {
      if (request.method !== 'POST' || route.legacyWatch) throw new KubeStatusError('MethodNotAllowed', `the server does not allow this method on the requested resource (${request.method} ${url.pathname})`);
      return serveRequest(request, url, handleOptions, actor, resource, route.namespace, route.name, 'binding', 'create', 'Binding');
    }
    // a Pod's eviction: POST pods/{name}/eviction (a policy/v1 Eviction, not a stored kind)
    if (route.group === '' && route.version === 'v1' && route.plural === 'pods' && route.namespace !== undefined && route.name !== undefined && route.subresource === 'eviction') {
      if (request.method !== 'POST' || route.legacyWatch) throw new KubeStatusError('MethodNotAllowed', `the server does not allow this method on the requested resource (${request.method} ${url.pathname})`);
      return serveRequest(request, url, handleOptions, actor, resource, route.namespace, route.name, 'eviction', 'create', 'Eviction');
    }
    if (route.namespace !== undefined && !resource.namespaced) throw new KubeStatusError('NotFound', 'the server could not find the requested resource');
    if (route.subresource !== undefined && route.subresource !== 'status' && !(route.subresource === 'scale' && resource.scale === true)) throw new KubeStatusError('NotFound', 'the server could not find the requested resource');
    const watching = route.legacyWatch || isTrue(url.searchParams.get('watch'));
    const verb = verbOf(request.method, route.name !== undefined, watching);
    if (verb === undefined || (route.subresource !== undefined && !['get', 'update', 'patch'].includes(verb))) {
      throw new KubeStatusError('MethodNotAllowed', `the server does not allow this method on the requested resource (${request.method} ${url.pathname})`);
    }
    if (route.name !== undefined && resource.namespaced && route.namespace === undefined && verb !== 'watch') throw new KubeStatusError('NotFound', 'the server could not find the requested resource');
    return serveRequest(request, url, handleOptions, actor, resource, route.namespace, route.name, route.subresource, verb, resource.kind);
  }

  /** Serves a resource request: the fault seam asked, then the verb's handler. */
  async function serveRequest(request: Request, url: URL, handleOptions: HandleOptions, actor: string, resource: ResolvedResource, namespace: string | undefined, routeName: string | undefined, subresource: string | undefined, verb: KubeVerb, kind: string): Promise<Response> {
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const name = routeName ?? (verb === 'create' ? nameInBody(body) : undefined);
    const info: KubeRequestInfo = {
      t: state.host.now(),
      actor,
      verb,
      kind,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(subresource !== undefined ? { subresource } : {}),
      seq: seq++,
    };
    const c: ServeContext = { api: state, request, url, resource, namespace, name: routeName, subresource, info, handle: handleOptions, body };
    const decision = state.options.hooks.onRequest?.(info);
    if (decision?.type === 'hang') return new Promise<Response>(() => {});
    if (decision?.type === 'refused') return failConnection(handleOptions, 'ECONNREFUSED');
    let response: Response;
    try {
      if (decision?.type === 'reset') {
        // the request reached the server (and was served, or not); only the answer is lost
        if (decision.applied) await perform(c, undefined);
        return failConnection(handleOptions, 'ECONNRESET');
      }
      response = await perform(c, decision);
    } catch (err) {
      if (decision?.type === 'reset') return failConnection(handleOptions, 'ECONNRESET');
      response = statusResponse(statusFromError(err, resource, name));
    }
    if (state.options.hooks.onResponse?.(info, response.status) === 'hang') return new Promise<Response>(() => {});
    return response;
  }

  /** A request whose connection fails: the transport destroys the socket; without one, a network error. */
  function failConnection(h: HandleOptions, code: 'ECONNREFUSED' | 'ECONNRESET'): Promise<Response> | Response {
    const fail = h.fail ?? (h.cut ? () => h.cut!() : undefined);
    if (!fail) return Response.error();
    fail(code);
    return new Promise<Response>(() => {});
  }

  async function perform(c: ServeContext, decision: KubeRequestDecision | undefined): Promise<Response> {
    const wait = state.options.requestLatencyMs + (decision?.type === 'latency' ? decision.ms : 0);
    if (wait > 0) await new Promise<void>((resolve) => state.host.after(wait, resolve));
    if (decision?.type === 'error') throw injected(decision.status, decision.retryAfterSeconds);
    if (decision?.type === 'conflict' && (c.name ?? (c.info.kind === 'Binding' ? c.info.name : undefined)) !== undefined) concurrentWrite(c);
    if (decision?.type === 'timeout') {
      if (decision.applied) {
        try {
          run(c);
        } catch {
          // the client never learns the outcome either way
        }
      }
      throw injected(504, undefined);
    }
    return run(c);
  }

  function run(c: ServeContext): Response {
    // a dry run is served in full and stores nothing: no object, version, event, write record or
    // field owner (red team rt48 D-1: a dry-run write that was stored let a program pass)
    if (isDryRun(c)) return c.api.store.dryRun(() => fieldManagersOf(c.api.store).unchanged(() => serveResource(c)));
    return serveResource(c);
  }

  function serveResource(c: ServeContext): Response {
    const tooLarge = bodyTooLarge(c.body);
    if (tooLarge) throw tooLarge;
    refuseOtherGroups(c);
    // the scale subresource (only get, update and patch reach here)
    if (c.subresource === 'scale') return serveScale(c);
    switch (c.info.verb) {
      case 'get':
        return serveGet(c);
      case 'list':
        return serveList(c);
      case 'watch':
        return serveWatch(c);
      case 'create':
        return c.info.kind === 'Binding' ? serveBinding(c) : c.info.kind === 'Eviction' ? serveEviction(c) : serveCreate(c);
      case 'update':
        return serveUpdate(c);
      case 'patch':
        return servePatch(c);
      case 'delete':
        return serveDelete(c);
      case 'deletecollection':
        return serveDeleteCollection(c);
    }
  }

  /**
   * A request naming an object that another group's kind of the same name holds (the store keys
   * objects by kind): no object of this group, so reads and writes of it are 404; a create (or an
   * apply that would create) cannot be stored, and says why (500) instead of answering for the
   * other group's object.
   */
  function refuseOtherGroups(c: ServeContext): void {
    const verb = c.info.verb;
    const name = verb === 'create' ? c.info.name : c.name;
    if (name === undefined || verb === 'list' || verb === 'watch' || verb === 'deletecollection' || c.info.kind === 'Binding' || c.info.kind === 'Eviction') return;
    const held = state.store.peek(c.resource.kind, keyOf({ namespace: c.namespace, name }));
    if (held === undefined || servedBy(held, c.resource)) return;
    const creates = verb === 'create' || (verb === 'patch' && (c.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml');
    if (!creates) throw new KubeStatusError('NotFound', `${c.resource.plural}${c.resource.group !== '' ? `.${c.resource.group}` : ''} "${name}" not found`, { name, ...(c.resource.group !== '' ? { group: c.resource.group } : {}), kind: c.resource.plural });
    throw new KubeStatusError('InternalError', heldByOtherGroup(held, c.resource));
  }

  /** The api-conflict fault: another writer touches the object first, so a stale write gets a real 409. */
  function concurrentWrite(c: ServeContext): void {
    // a Binding's Pod (the bindings resource names it in the body)
    const name = c.name ?? c.info.name!;
    const cur = state.store.peek(c.resource.kind, c.namespace !== undefined ? `${c.namespace}/${name}` : name);
    if (!cur) return;
    const n = Number(cur.metadata.annotations['steadystate.dev/concurrent-writes'] ?? '0') + 1;
    state.store.patch('fault:api-conflict', c.resource.kind, { namespace: c.namespace, name }, { metadata: { annotations: { 'steadystate.dev/concurrent-writes': String(n) } } });
  }

  function discovery(route: ReturnType<typeof parseRoute>): object | string | undefined {
    switch (route.type) {
      case 'api':
        return coreVersions();
      case 'apis':
        return groupList(state.registry);
      case 'group':
        return group(state.registry, route.group);
      case 'group-version':
        return resourceList(state.registry, route.group, route.version);
      case 'version':
        return versionInfo();
      case 'openapi-v2':
        return openApiV2();
      case 'openapi-v3':
        return openApiV3Root(state.registry);
      case 'openapi-v3-gv':
        return openApiV3(state.registry, route.group, route.version);
      case 'health':
        return 'ok';
      default:
        return undefined;
    }
  }

  return {
    handle,
    store: state.store,
    resources: state.registry,
    issueToken(actor) {
      if (typeof actor !== 'string' || actor === '') throw new TypeError('steadystate.KubeApi.issueToken: actor must be a non-empty string such as "controller:web/0"');
      const token = `${options.tokenPrefix ?? 'steadystate-'}${++tokenSeq}`;
      tokens.set(token, actor);
      return token;
    },
    revokeToken(token) {
      tokens.delete(token);
    },
    endWatches(how, which) {
      let n = 0;
      for (const s of [...state.streams]) {
        if (which && !which({ actor: s.actor, kind: s.kind })) continue;
        s.end(how);
        n++;
      }
      return n;
    },
    expireNextWatch(actor, kind) {
      state.expireNext.add(`${actor}\0${kind}`);
    },
    openWatches: () => state.streams.size,
    endLags() {
      for (const s of [...state.streams]) s.endLags();
    },
  };
}

function nameInBody(body: string): string | undefined {
  try {
    const name = (JSON.parse(body) as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

function verbOf(method: string, named: boolean, watching: boolean): KubeVerb | undefined {
  switch (method) {
    case 'GET':
      return watching ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'PATCH':
      return named ? 'patch' : undefined;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

const INJECTED: Record<429 | 500 | 503 | 504, [StatusReason, string]> = {
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later (injected by steadystate)'],
  500: ['InternalError', 'Internal error occurred: injected by steadystate'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request (injected by steadystate)'],
  504: ['Timeout', 'Timeout: request did not complete within the allotted timeout (injected by steadystate)'],
};

function injected(status: 429 | 500 | 503 | 504, retryAfterSeconds: number | undefined): KubeStatusError {
  const [reason, message] = INJECTED[status];
  const retry = status === 429 ? (retryAfterSeconds ?? 1) : retryAfterSeconds;
  return new KubeStatusError(reason, message, retry !== undefined ? { retryAfterSeconds: retry } : undefined, retry);
}
