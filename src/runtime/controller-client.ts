import { permuteList } from './list-permutation.js';
import { NotFoundError, ServerError } from '../store/errors.js';
import { cloneJson, keyOf, parseKey, type JsonObject, type NewObject, type StoredObject } from '../store/object.js';
import type { DeleteOptions, ListOptions } from '../store/store.js';
import { matchesSelector, parseSelector } from '../store/selector.js';
import type { Client, KeyOrRef, PatchOptions, ReadOptions } from './client.js';
import type { RuntimeEnv } from './env.js';
import type { Informer, StaleRead } from './informer.js';
import type { WriteInfo } from './seams.js';

/** Thrown into a reconcile whose process crashed; the runtime discards its outcome. @public */
export class CrashedError extends Error {
  constructor(controller: string) {
    super(`controller ${controller} crashed (injected by steadystate); this reconcile is abandoned`);
    this.name = 'CrashedError';
  }
}

/** What the client needs from its controller instance. @internal */
export interface ClientOwner {
  readonly name: string;
  readonly replica: number;
  readonly actor: string;
  alive: boolean;
  informer(kind: string): Informer;
  crash(reason: string): void;
  /** Calls made by this instance (crash points). */
  callSeq: number;
}

/** Writes by each controller (all replicas), for "crash after the k-th write". @internal */
export const writeCounters = new WeakMap<RuntimeEnv, Map<string, number>>();

/** Downstream requests by each controller (all replicas), for "crash before/after the k-th downstream call". @internal */
const fetchCounters = new WeakMap<RuntimeEnv, Map<string, number>>();

/**
 * The crash points around one downstream request of a controller instance: asks the call seam
 * before the request (`downstream.seq` is then assigned) and after it returned or failed. Throws
 * {@link CrashedError} when the instance is dead or a fault crashes it there.
 * @returns the request's index among the controller's downstream requests
 * @internal
 */
export function downstreamCheckpoint(env: RuntimeEnv, owner: ClientOwner, phase: 'before' | 'after', method: string, url: string, seq?: number): number {
  if (!owner.alive) throw new CrashedError(owner.name);
  let n = seq;
  if (n === undefined) {
    let counts = fetchCounters.get(env);
    if (!counts) fetchCounters.set(env, (counts = new Map()));
    n = counts.get(owner.name) ?? 0;
    counts.set(owner.name, n + 1);
  }
  const writeSeq = writeCounters.get(env)?.get(owner.name) ?? 0;
  const d = env.seams.decideCall({ t: env.kernel.now(), controller: owner.name, replica: owner.replica, phase, verb: 'fetch', write: false, seq: owner.callSeq, writeSeq, downstream: { method, url, seq: n } });
  if (d === 'crash') {
    owner.crash(`${phase} fetch ${method} ${url}`);
    throw new CrashedError(owner.name);
  }
  return n;
}

function refOf(key: KeyOrRef): { namespace?: string; name: string } {
  if (typeof key === 'string') return parseKey(key);
  return key.namespace !== undefined ? { namespace: key.namespace, name: key.name } : { name: key.name };
}

/**
 * The client a controller instance's reconciles use: cached reads through the instance's
 * informers, writes to the store, every call passing the fault seams.
 * @internal
 */
export function createControllerClient(env: RuntimeEnv, owner: ClientOwner): Client {
  const { store, seams, kernel, trace } = env;

  function checkpoint(phase: 'before' | 'after', verb: string, write: boolean): void {
    if (!owner.alive) throw new CrashedError(owner.name);
    kernel.touch();
    if (!seams.hasCallHooks) return;
    let counts = writeCounters.get(env);
    if (!counts) writeCounters.set(env, (counts = new Map()));
    const writeSeq = counts.get(owner.name) ?? 0;
    const d = seams.decideCall({ t: kernel.now(), controller: owner.name, replica: owner.replica, phase, verb, write, seq: owner.callSeq++, writeSeq });
    if (d === 'crash') {
      owner.crash(`${phase} ${verb}`);
      throw new CrashedError(owner.name);
    }
  }

  function countWrite(): void {
    let counts = writeCounters.get(env);
    if (!counts) writeCounters.set(env, (counts = new Map()));
    counts.set(owner.name, (counts.get(owner.name) ?? 0) + 1);
  }

  function traceRead(verb: 'get' | 'list', kind: string, key: string | undefined, cached: boolean, extra?: Record<string, unknown>): void {
    if (env.traceReads) trace.push({ t: kernel.now(), type: 'store:read', actor: owner.actor, verb, kind, ...(key !== undefined ? { key } : {}), cached, ...extra });
  }

  /** The read seam: a stale cached read, or (live reads only: a cache never errs) an API error. */
  function decideRead(verb: 'get' | 'list', kind: string, key: string | undefined, cached: boolean): StaleRead | undefined {
    if (!seams.hasReadHooks) return undefined;
    const d = seams.decideRead({ t: kernel.now(), actor: owner.actor, verb, kind, ...(key !== undefined ? { key } : {}), cached, seq: seams.readSeq++ });
    if (d.type === 'stale' && cached) return 'ageMs' in d ? (d.ageMs > 0 ? { ageMs: d.ageMs } : undefined) : d.versionsBack > 0 ? { versionsBack: d.versionsBack } : undefined;
    if (d.type === 'error' && !cached) {
      const reason = d.status === 429 ? 'TooManyRequests' : d.status === 503 ? 'ServiceUnavailable' : d.status === 504 ? 'Timeout' : 'InternalError';
      traceRead(verb, kind, key, false, { error: reason, fault: 'api-error' });
      throw new ServerError(reason, d.status, `${verb} ${kind}${key !== undefined ? ` "${key}"` : ''}: the server returned ${d.status} (injected by steadystate)`, d.retryAfterSeconds);
    }
    return undefined;
  }

  /** What a trace records about a stale read. */
  function staleDetail(stale: StaleRead | undefined): Record<string, unknown> | undefined {
    return stale === undefined ? undefined : 'ageMs' in stale ? { staleMs: stale.ageMs } : { stale: stale.versionsBack };
  }

  function readOne(kind: string, key: KeyOrRef, options: ReadOptions | undefined): StoredObject | undefined {
    checkpoint('before', 'get', false);
    const ref = refOf(key);
    const k = keyOf(ref);
    if (options?.live) {
      decideRead('get', kind, k, false);
      traceRead('get', kind, k, false);
      const o = store.peek(kind, k);
      checkpoint('after', 'get', false);
      return o ? cloneJson(o) : undefined;
    }
    const stale = decideRead('get', kind, k, true);
    const inf = owner.informer(kind);
    const o = stale ? inf.getStale(k, stale) : inf.get(k);
    traceRead('get', kind, k, true, staleDetail(stale));
    checkpoint('after', 'get', false);
    return o ? cloneJson(o) : undefined;
  }

  function write<R>(verb: WriteInfo['verb'], kind: string, key: string, fn: () => R): R {
    checkpoint('before', verb, true);
    if (seams.hasWriteHooks) {
      const d = seams.decideWrite({ t: kernel.now(), actor: owner.actor, verb, kind, key, seq: seams.writeSeq++ });
      switch (d.type) {
        case 'conflict': {
          // a genuine concurrent write: another actor touches metadata first, so the 409 is real
          const cur = store.peek(kind, key);
          if (cur) {
            const n = Number(cur.metadata.annotations['steadystate.dev/concurrent-writes'] ?? '0') + 1;
            store.patch('fault:api-conflict', kind, parseKey(key), { metadata: { annotations: { 'steadystate.dev/concurrent-writes': String(n) } } });
          }
          break;
        }
        case 'error': {
          trace.push({ t: kernel.now(), type: 'store:write', actor: owner.actor, verb, kind, key, changed: [], noop: false, error: d.status === 429 ? 'TooManyRequests' : d.status === 503 ? 'ServiceUnavailable' : d.status === 504 ? 'Timeout' : 'InternalError', fault: 'api-error' });
          const reason = d.status === 429 ? 'TooManyRequests' : d.status === 503 ? 'ServiceUnavailable' : d.status === 504 ? 'Timeout' : 'InternalError';
          throw new ServerError(reason, d.status, `${verb} ${kind} "${key}": the server returned ${d.status} (injected by steadystate)`, d.retryAfterSeconds);
        }
        case 'timeout': {
          if (d.applied) {
            try {
              fn();
              countWrite();
            } catch {
              // the caller never learns the outcome either way
            }
          }
          throw new ServerError('Timeout', 504, `${verb} ${kind} "${key}": request timed out (injected by steadystate; the write was ${d.applied ? '' : 'not '}applied)`);
        }
        case 'pass':
          break;
      }
    }
    let result: R;
    try {
      result = fn();
    } finally {
      countWrite();
    }
    checkpoint('after', verb, true);
    return result;
  }

  const client: Client = {
    async get<S, T>(kind: string, key: KeyOrRef, options?: ReadOptions) {
      const o = readOne(kind, key, options);
      if (!o) throw new NotFoundError(`${kind} "${keyOf(refOf(key))}" not found`);
      return o as unknown as StoredObject<S, T>;
    },
    async tryGet<S, T>(kind: string, key: KeyOrRef, options?: ReadOptions) {
      return readOne(kind, key, options) as unknown as StoredObject<S, T> | undefined;
    },
    async list<S, T>(kind: string, options: ListOptions & ReadOptions = {}) {
      checkpoint('before', 'list', false);
      let items: StoredObject[];
      if (options.live) {
        decideRead('list', kind, undefined, false);
        items = store.select(kind, options);
      } else {
        const stale = decideRead('list', kind, undefined, true);
        const reqs = parseSelector(options.labelSelector);
        const inf = owner.informer(kind);
        items = [];
        for (const cur of inf.values()) {
          // k versions back keeps every cached object; t ms old leaves out those not cached yet then
          const o = stale === undefined ? cur : 'ageMs' in stale ? inf.getStale(keyOf(cur.metadata), stale) : (inf.get(keyOf(cur.metadata), stale.versionsBack) ?? cur);
          if (o === undefined) continue;
          if (options.namespace !== undefined && o.metadata.namespace !== options.namespace) continue;
          if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
          items.push(o);
        }
      }
      if (seams.hasListHooks) {
        const d = seams.decideList({ t: kernel.now(), actor: owner.actor, kind, count: items.length, seq: seams.listSeq++ });
        if (d.type === 'shuffle') items = permuteList([...items], d.seed);
      }
      traceRead('list', kind, undefined, !options.live, { count: items.length });
      checkpoint('after', 'list', false);
      return items.map((o) => cloneJson(o)) as unknown as StoredObject<S, T>[];
    },
    async create<S, T>(object: NewObject<S, T>) {
      const key = object.metadata.name ? keyOf({ namespace: object.metadata.namespace, name: object.metadata.name }) : `${object.metadata.namespace ?? ''}/${object.metadata.generateName ?? ''}*`;
      return write('create', object.kind, key, () => store.create(owner.actor, object));
    },
    async update<S, T>(object: NewObject<S, T> & { metadata: { name: string } }) {
      return write('update', object.kind, keyOf(object.metadata), () => store.update(owner.actor, object));
    },
    async updateStatus<S, T>(object: NewObject<S, T> & { metadata: { name: string } }) {
      return write('updateStatus', object.kind, keyOf(object.metadata), () => store.updateStatus(owner.actor, object));
    },
    async patch<S, T>(kind: string, key: KeyOrRef, patch: JsonObject, options: PatchOptions = {}) {
      const ref = refOf(key);
      return write('patch', kind, keyOf(ref), () => store.patch<S, T>(owner.actor, kind, ref, patch, options));
    },
    async patchStatus<S, T>(kind: string, key: KeyOrRef, patch: JsonObject, options: PatchOptions = {}) {
      const ref = refOf(key);
      return write('patchStatus', kind, keyOf(ref), () => store.patch<S, T>(owner.actor, kind, ref, patch, { ...options, subresource: 'status' }));
    },
    async delete(kind: string, key: KeyOrRef, options?: DeleteOptions) {
      const ref = refOf(key);
      write('delete', kind, keyOf(ref), () => store.delete(owner.actor, kind, ref, options));
    },
  };
  return client;
}
