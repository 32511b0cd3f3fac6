import { matchesFields, parseFieldSelector } from '../store/field-selector.js';
import { permuteList } from './list-permutation.js';
import { wireForm } from './wire-form.js';
import { NotFoundError, ServerError } from '../store/errors.js';
import { cloneJson, keyOf, parseKey, type JsonObject, type NewObject, type StoredObject } from '../store/object.js';
import type { DeleteOptions, ListOptions } from '../store/store.js';
import type { Scale } from '../store/scale.js';
import { matchesSelector, selectorRequirements } from '../store/selector.js';
import type { Client, KeyOrRef, PatchOptions, ReadOptions } from './client.js';
import type { RuntimeEnv } from './env.js';
import type { Informer } from './informer.js';
import type { ConnectionFailure, WriteInfo } from './seams.js';
import type { TraceEntry } from '../sim/trace.js';
import { kernelHooks, type Task } from '../sim/kernel.js';

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
  /**
   * While another replica of the controller is active at the same time (the second-replica
   * fault): the virtual ms of the next leg of an API round trip (to the server, or back).
   * Undefined otherwise, and then calls take no time.
   */
  readonly callLegMs?: ((leg: 'request' | 'response') => number) | undefined;
}

/**
 * A request that never got an answer because the connection failed: refused (`ECONNREFUSED`, it
 * never reached the API server) or reset (`ECONNRESET`, it may have been applied). Not a `Status`
 * error: the client sees a network error, as client-go and client-node do.
 * @public
 */
export class ConnectionError extends Error {
  readonly code: 'ECONNREFUSED' | 'ECONNRESET';
  constructor(code: 'ECONNREFUSED' | 'ECONNRESET', message: string) {
    super(message);
    this.name = 'ConnectionError';
    this.code = code;
  }
}

function connectionError(d: ConnectionFailure, what: string): ConnectionError {
  return d.how === 'refused'
    ? new ConnectionError('ECONNREFUSED', `${what}: connect ECONNREFUSED (injected by steadystate)`)
    : new ConnectionError('ECONNRESET', `${what}: read ECONNRESET (injected by steadystate; the request was ${d.applied ? '' : 'not '}applied)`);
}

function reasonOf(status: 500 | 503 | 429 | 504): 'TooManyRequests' | 'ServiceUnavailable' | 'Timeout' | 'InternalError' {
  return status === 429 ? 'TooManyRequests' : status === 503 ? 'ServiceUnavailable' : status === 504 ? 'Timeout' : 'InternalError';
}

/** What a read of the scale subresource adds to its trace entry. */
const SCALE_READ = { subresource: 'scale' } as const;

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
  // strings, read once: a getter or a toString of the caller's runs here, never in a call's window
  const namespace: unknown = key.namespace;
  const name = String(key.name);
  return namespace !== undefined ? { namespace: String(namespace), name } : { name };
}

/** The kind as a string, converted here (before a call's window) when the caller passed something else. */
function kindOf(kind: unknown): string {
  return typeof kind === 'string' ? kind : String(kind);
}

/**
 * Options as plain data, each field read once before the call's window: the store never reads
 * an object of the caller's, whose getter could run inside the window (red team H0, stop 43).
 */
function plainPatchOptions(o: PatchOptions | undefined): PatchOptions {
  const rv: unknown = o?.resourceVersion;
  return rv === undefined ? {} : { resourceVersion: String(rv) };
}

function plainDeleteOptions(o: DeleteOptions | undefined): DeleteOptions | undefined {
  if (o === undefined || o === null) return undefined;
  const pre: unknown = o.preconditions;
  const policy: unknown = o.propagationPolicy;
  const out: DeleteOptions = {};
  if (typeof pre === 'object' && pre !== null) {
    const { uid, resourceVersion } = pre as { uid?: unknown; resourceVersion?: unknown };
    out.preconditions = { ...(uid !== undefined ? { uid: String(uid) } : {}), ...(resourceVersion !== undefined ? { resourceVersion: String(resourceVersion) } : {}) };
  }
  if (policy !== undefined) out.propagationPolicy = String(policy) as NonNullable<DeleteOptions['propagationPolicy']>;
  return out;
}

function plainListOptions(o: (ListOptions & ReadOptions) | undefined): ListOptions & ReadOptions {
  if (o === undefined || o === null) return {};
  const namespace: unknown = o.namespace;
  const labelSelector: unknown = o.labelSelector;
  const fieldSelector: unknown = o.fieldSelector;
  // fields assigned in the order the conditional spreads gave them (each spread made a temporary object, on every list)
  const out: ListOptions & ReadOptions = {};
  if (o.live === true) out.live = true;
  if (namespace !== undefined) out.namespace = String(namespace);
  if (labelSelector !== undefined) out.labelSelector = wireForm(labelSelector, 'list: labelSelector') as NonNullable<ListOptions['labelSelector']>;
  if (fieldSelector !== undefined) out.fieldSelector = String(fieldSelector);
  return out;
}

/**
 * The client a controller instance's reconciles use: cached reads through the instance's
 * informers, writes to the store, every call passing the fault seams.
 * @internal
 */
export function createControllerClient(env: RuntimeEnv, owner: ClientOwner, task?: Task): Client {
  const { store, seams, kernel, trace } = env;

  /**
   * One leg of an API round trip (`request`: to the server, `response`: back), made only by a
   * reconcile's own client (`task`) while `owner.callLegMs` is set: the reconcile parks, so
   * another active replica's calls land between its read and its write, as over a real network
   * (split brain races a read-modify-write only so). A zero-ms leg still yields to the kernel.
   */
  function leg(which: 'request' | 'response'): Promise<void> {
    const ms = owner.callLegMs?.(which) ?? 0;
    // a client kept past its reconcile (stored by the code under test) parks whoever calls it
    // now, which the kernel cannot name: an anonymous park, as a patched global fetch's
    return kernel.sleep(task !== undefined && kernel.isLive(task) ? task : undefined, ms);
  }

  /**
   * Whether calls take time now. Checked before any await: an untimed call keeps the exact
   * microtask path it always had (concurrent reconciles of one replica interleave by it).
   */
  function timed(): boolean {
    return task !== undefined && owner.callLegMs !== undefined;
  }

  /** A timed call to the API server: `call` runs at the server, between the two legs of its round trip. */
  async function roundTrip<R>(call: () => R): Promise<R> {
    await leg('request');
    let result: R;
    try {
      result = call();
    } catch (err) {
      await leg('response');
      throw owner.alive ? err : new CrashedError(owner.name);
    }
    await leg('response');
    // a replica that crashed while the answer was on its way never sees it
    if (!owner.alive) throw new CrashedError(owner.name);
    return result;
  }

  function checkpoint(phase: 'before' | 'after', verb: string, write: boolean, noCallerCodeSinceBefore = false): void {
    // the store, the trace and the records run synchronously inside this call, under the built-ins
    // of this moment: a reconcile that swapped one just around its call (Array.prototype.push
    // dropping its write records, Map.prototype.get catching the store's map) fails the run here,
    // not only when it next hands control back to the kernel (red team N2, N3, stop 41)
    if (!noCallerCodeSinceBefore) kernelHooks.userCodeReturned?.();
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
    if (!env.traceReads) return;
    // a literal per shape and the extra fields assigned (the order a spread gives): every read writes one
    const t = kernel.now();
    const e: TraceEntry = key !== undefined ? { t, type: 'store:read', actor: owner.actor, verb, kind, key, cached } : { t, type: 'store:read', actor: owner.actor, verb, kind, cached };
    if (extra !== undefined) Object.assign(e, extra);
    trace.push(e);
  }

  /**
   * The read seam of live reads (a cached read never reaches the API server): an API error or a
   * failed connection, thrown as the client would throw it.
   */
  function decideRead(verb: 'get' | 'list', kind: string, key: string | undefined, extra?: Record<string, unknown>): void {
    if (!seams.hasReadHooks) return;
    // two literals, not a conditional spread (V8's slow path): every live read under read faults asks
    const t = kernel.now();
    const d = seams.decideRead(key !== undefined ? { t, actor: owner.actor, verb, kind, key, cached: false, seq: seams.readSeq++ } : { t, actor: owner.actor, verb, kind, cached: false, seq: seams.readSeq++ });
    if (d.type !== 'error' && d.type !== 'connection') return;
    const what = `${verb} ${kind}${key !== undefined ? ` "${key}"` : ''}`;
    if (d.type === 'error') {
      const reason = reasonOf(d.status);
      traceRead(verb, kind, key, false, { ...extra, error: reason, fault: 'api-error' });
      throw new ServerError(reason, d.status, `${what}: the server returned ${d.status} (injected by steadystate)`, d.retryAfterSeconds);
    }
    if (d.type === 'connection') {
      traceRead(verb, kind, key, false, { ...extra, error: d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset', fault: 'api-error' });
      throw connectionError(d, what);
    }
  }

  /**
   * `key` as the server and the cache key the object: a cluster-scoped kind's namespace dropped,
   * as a client sends the request to the cluster path (the store's rule, scope.ts).
   */
  function scoped(kind: string, key: string): string {
    const slash = key.indexOf('/');
    return slash >= 0 && store.namespaced(kind) === false ? key.slice(slash + 1) : key;
  }

  function readOne(kindArg: string, key: KeyOrRef, options: ReadOptions | undefined): StoredObject | undefined {
    // the caller's arguments as plain data before the window: no code of theirs runs inside it
    const kind = kindOf(kindArg);
    // a string key is its own key unless it starts with '/' (an empty namespace, which keyOf drops): no parse and rejoin per read
    const k = scoped(kind, typeof key === 'string' && key.charCodeAt(0) !== 47 ? key : keyOf(refOf(key)));
    const live = options?.live === true;
    checkpoint('before', 'get', false);
    if (live) {
      decideRead('get', kind, k);
      traceRead('get', kind, k, false);
      const o = store.peek(kind, k);
      // only the harness's own code ran since the look 'before' (see write())
      checkpoint('after', 'get', false, true);
      return o ? cloneJson(o) : undefined;
    }
    const o = owner.informer(kind).get(k);
    traceRead('get', kind, k, true);
    // a cached read ran no code of the caller's since the look 'before' (its arguments were read
    // into plain data before it): the built-ins are as that look left them, so the look 'after'
    // is skipped (the rest of the seam is not)
    checkpoint('after', 'get', false, true);
    return o ? cloneJson(o) : undefined;
  }

  function write<R>(verb: WriteInfo['verb'], kind: string, key: string, fn: () => R): R {
    checkpoint('before', verb, true);
    if (seams.hasWriteHooks) {
      const d = seams.decideWrite({ t: kernel.now(), actor: owner.actor, verb, kind, key, seq: seams.writeSeq++ });
      switch (d.type) {
        case 'conflict': {
          // a genuine concurrent write: another actor touches metadata first, so the 409 is real
          // (a Binding's or an Eviction's Pod: one that names the Pod's resourceVersion then conflicts)
          const target = kind === 'Binding' || kind === 'Eviction' ? 'Pod' : kind;
          const cur = store.peek(target, key);
          if (cur) {
            const n = Number(cur.metadata.annotations['steadystate.dev/concurrent-writes'] ?? '0') + 1;
            store.patch('fault:api-conflict', target, parseKey(key), { metadata: { annotations: { 'steadystate.dev/concurrent-writes': String(n) } } });
          }
          break;
        }
        case 'error': {
          const reason = reasonOf(d.status);
          trace.push({ t: kernel.now(), type: 'store:write', actor: owner.actor, verb, kind, key, changed: [], noop: false, error: reason, fault: 'api-error' });
          throw new ServerError(reason, d.status, `${verb} ${kind} "${key}": the server returned ${d.status} (injected by steadystate)`, d.retryAfterSeconds);
        }
        case 'connection': {
          // reset: the request may have reached the server and been applied; only the answer was lost
          if (d.how === 'reset' && d.applied) {
            try {
              fn();
              countWrite();
            } catch {
              // the caller never learns the outcome either way
            }
          }
          trace.push({ t: kernel.now(), type: 'store:write', actor: owner.actor, verb, kind, key, changed: [], noop: false, error: d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset', fault: 'api-error' });
          throw connectionError(d, `${verb} ${kind} "${key}"`);
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
    // only the harness's own code ran since the look 'before': the arguments are plain data read
    // before it (wireForm, plainPatchOptions), and nothing in the store's write runs a caller's
    // code (watch events reach informers later, by the kernel). A built-in replaced by code the
    // write did run (a probe, an environment actor's map) is put back at the next seam, as one
    // replaced by a reconcile's microtask is: nothing of the harness's runs before it but the
    // return of this call. The look 'after' cost a sixth of a write-heavy simulation's guard time.
    checkpoint('after', verb, true, true);
    return result;
  }

  /** A live read of an object's Scale: the read seam first (api-error acts on it), as any live GET. */
  function readScale(kind: string, ref: { namespace?: string; name: string }): Scale {
    const k = scoped(kind, keyOf(ref));
    checkpoint('before', 'get', false);
    decideRead('get', kind, k, SCALE_READ);
    traceRead('get', kind, k, false, SCALE_READ);
    const scale = store.getScale(kind, ref);
    checkpoint('after', 'get', false);
    return scale;
  }

  /** One list, cached or live, as copies. */
  function listNow(kind: string, options: ListOptions & ReadOptions): StoredObject[] {
    checkpoint('before', 'list', false);
    let items: StoredObject[];
    if (options.live) {
      decideRead('list', kind, undefined);
      items = store.select(kind, options);
    } else {
      const reqs = selectorRequirements(options.labelSelector);
      // the cache takes the field selectors a live list takes (it did ignore them, and returned everything)
      const fields = parseFieldSelector(kind, options.fieldSelector, options.fieldSelector ? store.selectableFields(kind) : []);
      items = [];
      // a cluster-scoped kind listed "in a namespace" is listed whole, as the live list is
      const namespace = options.namespace !== undefined && store.namespaced(kind) !== false ? options.namespace : undefined;
      for (const o of owner.informer(kind).values()) {
        if (namespace !== undefined && o.metadata.namespace !== namespace) continue;
        if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
        if (fields.length > 0 && !matchesFields(fields, o)) continue;
        items.push(o);
      }
    }
    if (seams.hasListHooks) {
      const d = seams.decideList({ t: kernel.now(), actor: owner.actor, kind, count: items.length, seq: seams.listSeq++ });
      if (d.type === 'shuffle') items = permuteList([...items], d.seed);
    }
    traceRead('list', kind, undefined, !options.live, { count: items.length });
    // only the harness's own code ran since the look 'before' (see write())
    checkpoint('after', 'list', false, true);
    return items.map((o) => cloneJson(o));
  }

  const client: Client = {
    async get<S, T>(kind: string, key: KeyOrRef, options?: ReadOptions) {
      // a cached read is local to the process: only a live read is a round trip
      const o = options?.live === true && timed() ? await roundTrip(() => readOne(kind, key, options)) : readOne(kind, key, options);
      if (!o) throw new NotFoundError(`${kind} "${scoped(kindOf(kind), keyOf(refOf(key)))}" not found`);
      return o as unknown as StoredObject<S, T>;
    },
    async tryGet<S, T>(kind: string, key: KeyOrRef, options?: ReadOptions) {
      const o = options?.live === true && timed() ? await roundTrip(() => readOne(kind, key, options)) : readOne(kind, key, options);
      return o as unknown as StoredObject<S, T> | undefined;
    },
    async list<S, T>(kindArg: string, listOptions?: ListOptions & ReadOptions) {
      const kind = kindOf(kindArg);
      const options = plainListOptions(listOptions);
      const items = options.live === true && timed() ? await roundTrip(() => listNow(kind, options)) : listNow(kind, options);
      return items as unknown as StoredObject<S, T>[];
    },
    async create<S, T>(sent: NewObject<S, T>) {
      const object = wireForm(sent, `create ${String(sent?.kind)}`);
      const key = object.metadata.name ? keyOf({ namespace: object.metadata.namespace, name: object.metadata.name }) : `${object.metadata.namespace ?? ''}/${object.metadata.generateName ?? ''}*`;
      // the store call as an argument, not a named const: under tsx (keepNames) every named
      // closure made per call also costs a defineProperty of its name
      const k = scoped(object.kind, key);
      if (!timed()) return write('create', object.kind, k, () => store.create(owner.actor, object));
      return roundTrip(() => write('create', object.kind, k, () => store.create(owner.actor, object)));
    },
    async update<S, T>(sent: NewObject<S, T> & { metadata: { name: string } }) {
      const object = wireForm(sent, `update ${String(sent?.kind)}`);
      const k = scoped(object.kind, keyOf(object.metadata));
      if (!timed()) return write('update', object.kind, k, () => store.update(owner.actor, object));
      return roundTrip(() => write('update', object.kind, k, () => store.update(owner.actor, object)));
    },
    async updateStatus<S, T>(sent: NewObject<S, T> & { metadata: { name: string } }) {
      const object = wireForm(sent, `updateStatus ${String(sent?.kind)}`);
      const k = scoped(object.kind, keyOf(object.metadata));
      if (!timed()) return write('updateStatus', object.kind, k, () => store.updateStatusSent(owner.actor, object));
      return roundTrip(() => write('updateStatus', object.kind, k, () => store.updateStatusSent(owner.actor, object)));
    },
    async patch<S, T>(kindArg: string, key: KeyOrRef, patch: JsonObject, patchOptions?: PatchOptions) {
      const kind = kindOf(kindArg);
      const ref = refOf(key);
      const options = plainPatchOptions(patchOptions);
      const body = wireForm(patch, `patch ${kind}`);
      const k = scoped(kind, keyOf(ref));
      if (!timed()) return write('patch', kind, k, () => store.patch<S, T>(owner.actor, kind, ref, body, options));
      return roundTrip(() => write('patch', kind, k, () => store.patch<S, T>(owner.actor, kind, ref, body, options)));
    },
    async patchStatus<S, T>(kindArg: string, key: KeyOrRef, patch: JsonObject, patchOptions?: PatchOptions) {
      const kind = kindOf(kindArg);
      const ref = refOf(key);
      const options = plainPatchOptions(patchOptions);
      const body = wireForm(patch, `patchStatus ${kind}`);
      const k = scoped(kind, keyOf(ref));
      if (!timed()) return write('patchStatus', kind, k, () => store.patch<S, T>(owner.actor, kind, ref, body, { ...options, subresource: 'status' }));
      return roundTrip(() => write('patchStatus', kind, k, () => store.patch<S, T>(owner.actor, kind, ref, body, { ...options, subresource: 'status' })));
    },
    async delete(kindArg: string, key: KeyOrRef, deleteOptions?: DeleteOptions) {
      const kind = kindOf(kindArg);
      const ref = refOf(key);
      const options = plainDeleteOptions(deleteOptions);
      const k = scoped(kind, keyOf(ref));
      if (timed()) await roundTrip(() => write('delete', kind, k, () => store.delete(owner.actor, kind, ref, options)));
      else write('delete', kind, k, () => store.delete(owner.actor, kind, ref, options));
    },
    async getScale(kindArg: string, key: KeyOrRef) {
      const kind = kindOf(kindArg);
      const ref = refOf(key);
      return timed() ? roundTrip(() => readScale(kind, ref)) : readScale(kind, ref);
    },
    async updateScale(kindArg: string, sent: Scale) {
      const kind = kindOf(kindArg);
      const scale = wireForm(sent, `updateScale ${kind}`);
      // the write is the object's (the seams, the api-conflict fault's concurrent write and the record name it)
      const k = scoped(kind, keyOf({ namespace: scale?.metadata?.namespace, name: String(scale?.metadata?.name ?? '') }));
      if (!timed()) return write('update', kind, k, () => store.updateScale(owner.actor, kind, scale));
      return roundTrip(() => write('update', kind, k, () => store.updateScale(owner.actor, kind, scale)));
    },
    async patchScale(kindArg: string, key: KeyOrRef, patch: JsonObject, patchOptions?: PatchOptions) {
      const kind = kindOf(kindArg);
      const ref = refOf(key);
      const options = plainPatchOptions(patchOptions);
      const body = wireForm(patch, `patchScale ${kind}`);
      const k = scoped(kind, keyOf(ref));
      if (!timed()) return write('patch', kind, k, () => store.patchScale(owner.actor, kind, ref, body, options));
      return roundTrip(() => write('patch', kind, k, () => store.patchScale(owner.actor, kind, ref, body, options)));
    },
  };
  return client;
}
