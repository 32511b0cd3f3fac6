import type { StoredObject } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import type { ListDecision, WatchDecision } from '../runtime/seams.js';
import type { KubeApiHost } from './kube-api-host.js';
import type { ResolvedResource } from './resource-definition.js';
import type { ResourceRegistry } from './resource-registry.js';
import type { KubeWatchEventInfo, WatchStream } from './watch-stream.js';

/** The verbs of the Kubernetes API (as in RBAC and audit logs). @public */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** One resource request, as the HTTP-layer fault seam sees it. @public */
export interface KubeRequestInfo {
  /** Time (virtual ms in a simulation). */
  t: number;
  /** Who sent it (from the bearer token), e.g. `controller:web/0`; `user` when anonymous. */
  actor: string;
  verb: KubeVerb;
  kind: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Index of this request among all requests the API served (0-based). */
  seq: number;
}

/**
 * What a fault may do to one request (a closed set, like the runtime's seams): answer an
 * error Status, make the write conflict (a genuine concurrent write happens first), time out
 * (the write applied or not), add latency, never arrive, or fail the connection (refused, or
 * reset after the request was or was not served).
 * @public
 */
export type KubeRequestDecision =
  | { type: 'pass' }
  | { type: 'conflict' }
  | { type: 'error'; status: 429 | 500 | 503 | 504; retryAfterSeconds?: number }
  | { type: 'timeout'; applied: boolean }
  | { type: 'latency'; ms: number }
  /** Never served and never answered: the client's process died before sending it. */
  | { type: 'hang' }
  /** The connection is refused: the request never reaches the server (`ECONNREFUSED`). */
  | { type: 'refused' }
  /** The connection is reset before the answer (`ECONNRESET`); the request may have been served. */
  | { type: 'reset'; applied: boolean };

/**
 * Interception points of the API (its fault seams). An absent hook or `undefined` means pass.
 * @public
 */
export interface KubeApiHooks {
  /** Asked once per resource request before it is served. */
  onRequest?: (info: KubeRequestInfo) => KubeRequestDecision | undefined;
  /** Asked once per served request; `'hang'` never answers (the client's process died). */
  onResponse?: (info: KubeRequestInfo, status: number) => 'deliver' | 'hang' | undefined;
  /** Asked for every event about to be written to a watch stream. */
  onWatchEvent?: (info: KubeWatchEventInfo) => WatchDecision | undefined;
  /** Asked for every list response (before paging). */
  onList?: (info: KubeRequestInfo & { count: number }) => ListDecision | undefined;
  /**
   * Asked for the first page of every list that any API server replica may answer from its watch
   * cache (`resourceVersion=0`, or `=N`: not older than N; never a quorum list without
   * resourceVersion, which is read from etcd): `{ rv, objects }` serves it as of that older
   * resourceVersion (a lagging replica: stale-snapshot), never older than `notOlderThan`.
   */
  onListFrom?: (info: KubeRequestInfo & { notOlderThan: number }) => { rv: number; objects: readonly StoredObject[] } | undefined;
}

/** Options resolved once. @internal */
export interface ResolvedKubeApiOptions {
  requestLatencyMs: number;
  watchLatencyMs: number;
  bookmarkIntervalMs: number;
  anonymousActor: string;
  hooks: KubeApiHooks;
}

/** Shared state of one API instance. @internal */
export interface ApiState {
  store: ObjectStore;
  host: KubeApiHost;
  registry: ResourceRegistry;
  options: ResolvedKubeApiOptions;
  streams: Set<WatchStream>;
  streamSeq: number;
  /** `actor\0kind` whose next resumed watch (from a resourceVersion) is answered 410 Expired: see {@link KubeApi.expireNextWatch}. */
  expireNext: Set<string>;
}

/** Per-request transport abilities. @public */
export interface HandleOptions {
  /** Aborted when the client goes away (ends its watch at once). @defaultValue request.signal */
  signal?: AbortSignal;
  /** Cuts the connection abruptly (the transport's socket destroy), for watch-cut faults. */
  cut?: () => void;
  /** Fails the request's connection with this error code (the transport's socket destroy); default: `cut`, else a network error response. */
  fail?: (code: 'ECONNREFUSED' | 'ECONNRESET') => void;
}

/** Everything a verb handler needs. @internal */
export interface ServeContext {
  api: ApiState;
  request: Request;
  url: URL;
  resource: ResolvedResource;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  info: KubeRequestInfo;
  handle: HandleOptions;
  /** The request body as text ('' for GET), read once before the hooks run. */
  body: string;
}
