import { isStoreError, type StoreErrorReason } from '../store/errors.js';
import { cloneJson, keyOf, parseKey, type Json, type NewObject, type StoredObject } from '../store/object.js';
import { applyMergePatch } from '../store/merge-patch.js';
import type { ScheduledEvent } from '../sim/scheduler.js';
import type { UserWriteInfo } from '../runtime/seams.js';
import type { WorkloadAction } from './scenario.js';
import type { World } from './world.js';

/** kubectl delete's default (`--cascade=background`): a user's delete of a Job takes its Pods too. */
const KUBECTL_DELETE = { propagationPolicy: 'Background' } as const;

/**
 * The user of a run: runs the workload's actions at their times, as `kubectl` would and as a
 * GitOps tool (Argo CD, Flux) does: an attempt the API rejects for a reason that passes (409
 * Conflict, 5xx, 429, a timeout, AlreadyExists while the old incarnation still terminates) is
 * retried with exponential backoff until accepted, unless the action says `retry: false`.
 * Rejections that do not pass (NotFound, Invalid, AlreadyExists of a live object) end the
 * action. Every attempt is one `user:action` trace entry (`attempt` 1-based once an action is
 * retried; a failed attempt carries `error`), so "the user's desired state was never accepted"
 * is "the last `user:action` for that object carries `error`". The user's actions on one object
 * happen in order: one waits while an earlier one on the same object is being retried.
 */

/** Backoff of user retries (virtual ms): 1 s doubling to 10 s, or the server's Retry-After when longer. @public */
export const USER_RETRY = { firstMs: 1000, maxMs: 10_000 } as const;

/** Reasons an attempt is retried for (besides AlreadyExists of a terminating object). */
const PASSING: ReadonlySet<string> = new Set<StoreErrorReason | 'Terminating'>(['Conflict', 'InternalError', 'ServiceUnavailable', 'TooManyRequests', 'Timeout', 'Terminating']);

/** A rejection of a user attempt: the API's reason, and Retry-After when the server sent one. */
class Rejected {
  // not an Error: it never leaves this module (runAttempt turns it into a trace entry), so it
  // needs no stack, and capturing one cost more than the rest of a rejected attempt
  constructor(
    readonly reason: string,
    readonly retryAfterSeconds?: number,
  ) {}
}

/** The live object as the user reads it (a copy), or the action is rejected NotFound, as `store.get` would (without building its error). */
function current(store: World['store'], kind: string, key: string): StoredObject {
  const o = store.peek(kind, keyOf(parseKey(key)));
  if (o === undefined) throw new Rejected('NotFound');
  return cloneJson(o);
}

/**
 * Schedules every action of the workload and expedites pending retries when faults stop. The
 * user acts on each object in order, as a script or a GitOps pipeline does: an action on an
 * object whose earlier action is still being retried waits until that one is accepted (or given
 * up), so a retry never lands after, and undoes, a later change to the same object. Actions on
 * different objects are independent.
 * @internal
 */
export function scheduleWorkload(world: World, workload: readonly WorkloadAction[]): void {
  const pending = new Set<{ event: ScheduledEvent; run: () => void }>();
  /** Per object: the actions waiting behind one that is being retried. */
  const waiting = new Map<string, WorkloadAction[]>();
  // methods of one object, not named arrows: under tsx every named arrow made per run costs a defineProperty
  const steps = {
    done(id: string): void {
      const next = waiting.get(id)?.shift();
      if (next === undefined) waiting.delete(id);
      else steps.attempt(next, 1, {});
    },
    attempt(a: WorkloadAction, n: number, memo: Memo): void {
      const outcome = runAttempt(world, a, n, memo);
      if (outcome === undefined) return steps.done(objectOf(a));
      const backoff = Math.min(USER_RETRY.maxMs, USER_RETRY.firstMs * 2 ** (n - 1));
      const delay = Math.max(backoff, (outcome.retryAfterSeconds ?? 0) * 1000);
      const entry = { event: undefined as unknown as ScheduledEvent, run: () => steps.attempt(a, n + 1, memo) };
      entry.event = world.kernel.after(delay, () => {
        pending.delete(entry);
        entry.run();
      });
      pending.add(entry);
    },
    start(a: WorkloadAction): void {
      const id = objectOf(a);
      const queue = waiting.get(id);
      if (queue) queue.push(a);
      else {
        waiting.set(id, []);
        steps.attempt(a, 1, {});
      }
    },
  };
  for (const a of workload) world.kernel.at(a.at, () => steps.start(a));
  // the fault window closed: the user's tool re-syncs now rather than at the end of its backoff
  world.onSettle.push(() => {
    for (const p of [...pending]) {
      p.event.cancelled = true;
      pending.delete(p);
      world.kernel.after(0, p.run);
    }
  });
}

/** The object an action is about (deleteOwned: its owner), for ordering the user's actions. */
/** The object an action is about, as `Kind key`. @internal */
export function objectOf(a: WorkloadAction): string {
  if (a.type === 'deleteOwned') return `${a.owner.kind} ${a.owner.key}`;
  const { kind, key } = target(a);
  return `${kind} ${key}`;
}

/** State an action keeps across its attempts (recreate: the deleted incarnation's copy). */
interface Memo {
  copy?: NewObject;
  /** uid of the incarnation deleted ('' when there was none); undefined until the delete is done. */
  oldUid?: string;
}

/**
 * Runs one workload action once, as the user, without retrying (the tail's re-applies). A
 * rejected action is recorded, not thrown.
 * @internal
 */
export function runAction(world: World, a: WorkloadAction): void {
  runAttempt(world, { ...a, retry: false }, 1, {});
}

/** One attempt; returns the rejection when the action is to be retried. */
function runAttempt(world: World, a: WorkloadAction, attempt: number, memo: Memo): Rejected | undefined {
  const t = world.kernel.now();
  const { kind, key } = target(a);
  const entries: { kind: string; key: string; error?: string }[] = [];
  let rejected: Rejected | undefined;
  try {
    if (a.type === 'deleteOwned') {
      const owner = world.store.peek(a.owner.kind, a.owner.key);
      const owned = owner ? world.store.peekAll(a.kind).filter((o) => o.metadata.ownerReferences.some((r) => r.uid === owner.metadata.uid)) : [];
      if (owned.length === 0) throw new Rejected('NotFound');
      for (const o of owned) {
        const k = keyOf(o.metadata);
        try {
          write(world, a, attempt, 'delete', a.kind, k, () => world.store.delete('user', a.kind, parseKey(k), KUBECTL_DELETE));
          entries.push({ kind: a.kind, key: k });
        } catch (err) {
          entries.push({ kind: a.kind, key: k, error: reasonOf(err).reason });
        }
      }
    } else {
      perform(world, a, attempt, memo);
    }
  } catch (err) {
    rejected = reasonOf(err);
  }
  const retried = rejected !== undefined && a.retry !== false && retryable(world, a, rejected);
  const numbered = attempt > 1 || retried;
  if (entries.length === 0) entries.push({ kind, key, ...(rejected ? { error: rejected.reason } : {}) });
  const policy = a.type === 'delete' && a.propagationPolicy !== undefined ? { propagationPolicy: a.propagationPolicy } : {};
  for (const e of entries) world.trace.push({ t, type: 'user:action', action: a.type, kind: e.kind, key: e.key, ...policy, ...(numbered ? { attempt } : {}), ...(e.error !== undefined ? { error: e.error } : {}) });
  return retried ? rejected : undefined;
}

/** Kind and key a trace entry names. */
function target(a: WorkloadAction): { kind: string; key: string } {
  switch (a.type) {
    case 'create':
    case 'apply':
      return { kind: a.object.kind, key: keyOf({ namespace: a.object.metadata.namespace, name: a.object.metadata.name ?? '' }) };
    case 'deleteOwned':
      return { kind: a.kind, key: a.owner.key };
    default:
      return { kind: a.kind, key: a.key };
  }
}

function perform(world: World, a: Exclude<WorkloadAction, { type: 'deleteOwned' }>, attempt: number, memo: Memo): void {
  const { store } = world;
  switch (a.type) {
    case 'create': {
      const { kind, key } = target(a);
      try {
        write(world, a, attempt, 'create', kind, key, () => store.create('user', a.object));
      } catch (err) {
        // an earlier attempt timed out but was applied: the object the user asked for is there
        if (attempt > 1 && isStoreError(err, 'AlreadyExists') && live(store.peek(kind, key))) return;
        throw err;
      }
      return;
    }
    case 'apply': {
      const { kind, key } = target(a);
      const cur = store.peek(kind, key);
      if (!cur) write(world, a, attempt, 'create', kind, key, () => store.create('user', a.object));
      else if (cur.metadata.deletionTimestamp !== undefined) throw new Rejected('Terminating');
      else write(world, a, attempt, 'update', kind, key, () => store.update('user', applied(cur, a.object, world.declared.get(declaredKey(cur)))));
      return;
    }
    case 'update': {
      const cur = current(store, a.kind, a.key);
      const last = world.declared.get(declaredKey(cur));
      // kubectl apply of the new spec: what the user declared before and dropped now goes, what nobody declared (a scheduler's nodeName) stays
      const spec = last === undefined ? a.spec : (threeWay(last.spec, cur.spec, a.spec) as typeof a.spec);
      write(world, a, attempt, 'update', a.kind, a.key, () => store.update('user', { ...cur, spec }));
      return;
    }
    case 'patch':
      write(world, a, attempt, 'patch', a.kind, a.key, () => store.patch('user', a.kind, parseKey(a.key), a.patch));
      return;
    case 'delete':
      write(world, a, attempt, 'delete', a.kind, a.key, () => store.delete('user', a.kind, parseKey(a.key), a.propagationPolicy !== undefined ? { propagationPolicy: a.propagationPolicy } : KUBECTL_DELETE));
      return;
    case 'reapply': {
      const cur = current(store, a.kind, a.key);
      write(world, a, attempt, 'update', a.kind, a.key, () => store.update('user', { ...cur, metadata: { ...cur.metadata, resourceVersion: '' } }));
      return;
    }
    case 'removeFinalizer': {
      const cur = current(store, a.kind, a.key);
      write(world, a, attempt, 'update', a.kind, a.key, () => store.update('user', { ...cur, metadata: { ...cur.metadata, finalizers: cur.metadata.finalizers.filter((f) => f !== a.finalizer) } }));
      return;
    }
    case 'recreate': {
      if (memo.oldUid === undefined) {
        const cur = store.peek(a.kind, a.key);
        const copy = a.object ?? (cur ? (declaredOf(world, cur) ?? copyOf(cur)) : undefined);
        if (copy) memo.copy = copy;
        if (cur && cur.metadata.deletionTimestamp === undefined) write(world, a, attempt, 'delete', a.kind, a.key, () => store.delete('user', a.kind, parseKey(a.key), KUBECTL_DELETE));
        memo.oldUid = cur?.metadata.uid ?? '';
      }
      const copy = memo.copy;
      if (!copy) throw new Rejected('NotFound');
      // an earlier attempt timed out but was applied: the new incarnation is there
      const now = store.peek(a.kind, a.key);
      if (attempt > 1 && live(now) && now!.metadata.uid !== memo.oldUid) return;
      write(world, a, attempt, 'create', a.kind, a.key, () => {
        const created = store.create('user', copy);
        declareCreated(world, copy, created);
        return created;
      });
      return;
    }
  }
}

/** One user write through the user seam (api-error / api-conflict events that target the user). */
function write(world: World, a: WorkloadAction, attempt: number, verb: UserWriteInfo['verb'], kind: string, key: string, fn: () => unknown): void {
  const { seams, store, kernel } = world;
  if (seams.hasUserWriteHooks) {
    const d = seams.decideUserWrite({ t: kernel.now(), verb, kind, key, action: a.type, attempt, seq: seams.userWriteSeq++ });
    switch (d.type) {
      case 'conflict': {
        // a genuine concurrent write gets in first: a conditional update of what the user read answers 409
        const cur = store.peek(kind, key);
        if (cur) {
          const n = Number(cur.metadata.annotations['steadystate.dev/concurrent-writes'] ?? '0') + 1;
          store.patch('fault:api-conflict', kind, parseKey(key), { metadata: { annotations: { 'steadystate.dev/concurrent-writes': String(n) } } });
        }
        break;
      }
      case 'error':
        throw new Rejected(d.status === 429 ? 'TooManyRequests' : d.status === 503 ? 'ServiceUnavailable' : d.status === 504 ? 'Timeout' : 'InternalError', d.retryAfterSeconds);
      case 'timeout':
        if (d.applied) {
          try {
            declare(world, a, fn());
          } catch {
            // the user never learns the outcome either way
          }
        }
        throw new Rejected('Timeout');
      case 'pass':
        break;
    }
  }
  declare(world, a, fn());
}

/** The key of an object in {@link World.declared}. */
function declaredKey(o: StoredObject): string {
  return `${o.kind}\u0000${keyOf(o.metadata)}`;
}

/** The manifest the user last declared for a live object, under its name (undefined when no person declared it). */
function declaredOf(world: World, o: StoredObject): NewObject | undefined {
  return world.declared.get(declaredKey(o));
}

/**
 * Records what an accepted user write declared ({@link World.declared}): a create's or apply's
 * manifest, an update's spec, a merge patch applied to the manifest, a recreate's copy.
 * `stored` is what the write returned (the object after it, for the writes that declare).
 */
function declare(world: World, a: WorkloadAction, stored: unknown): void {
  if (!isStored(stored)) return;
  const k = declaredKey(stored);
  const last = world.declared.get(k);
  switch (a.type) {
    case 'create':
    case 'apply':
      world.declared.set(k, named(a.object, stored));
      return;
    case 'update':
      if (last) world.declared.set(k, { ...last, spec: a.spec });
      return;
    case 'patch':
      if (last) world.declared.set(k, applyMergePatch(last as unknown as Json, a.patch as Json) as unknown as NewObject);
      return;
    default:
      return;
  }
}

/** Records the manifest of an object the user created outside a workload action (the scenario's initial objects, a recreate's copy). @internal */
export function declareCreated(world: World, manifest: NewObject, stored: StoredObject): void {
  world.declared.set(declaredKey(stored), named(manifest, stored));
}

/** The manifest under the name and namespace the object got (a generateName, a defaulted namespace). */
function named(manifest: NewObject, stored: StoredObject): NewObject {
  const { generateName: _g, ...metadata } = manifest.metadata;
  return { ...manifest, metadata: { ...metadata, name: stored.metadata.name, ...(stored.metadata.namespace !== undefined ? { namespace: stored.metadata.namespace } : {}) } };
}

function isStored(v: unknown): v is StoredObject {
  return typeof v === 'object' && v !== null && 'metadata' in v && typeof (v as { metadata: { uid?: unknown } }).metadata.uid === 'string' && 'kind' in v;
}

/**
 * kubectl's client-side apply of one field: `desired` where the user says, a member the user
 * declared before (`last`) and no longer does removed, a member nobody declared (another
 * writer's) kept. Objects merge member by member; anything else (arrays included) is replaced.
 * Without a member to keep, the result is \`desired\` member for member (same order, same JSON).
 */
function threeWay(last: unknown, live: unknown, desired: unknown): unknown {
  if (!isPlain(live) || !isPlain(desired)) return desired;
  const declaredBefore = isPlain(last) ? last : {};
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(live)) if (!(k in desired) && !(k in declaredBefore)) out[k] = live[k];
  for (const k of Object.keys(desired)) out[k] = threeWay(declaredBefore[k], live[k], desired[k]);
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function retryable(world: World, a: WorkloadAction, r: Rejected): boolean {
  if (PASSING.has(r.reason)) return true;
  if (r.reason !== 'AlreadyExists') return false;
  // AlreadyExists passes while the old incarnation is terminating (a recreate, a create after a delete)
  const { kind, key } = target(a);
  const cur = world.store.peek(kind, key);
  return cur !== undefined && cur.metadata.deletionTimestamp !== undefined;
}

function live(o: StoredObject | undefined): boolean {
  return o !== undefined && o.metadata.deletionTimestamp === undefined;
}

function reasonOf(err: unknown): Rejected {
  if (err instanceof Rejected) return err;
  if (isStoreError(err)) return new Rejected(err.reason, err.retryAfterSeconds);
  throw err;
}

/**
 * `kubectl apply` of a manifest to a live object: its spec (three-way with what the user declared
 * last, `last`: a spec field nobody declared stays), labels, annotations, finalizers and other
 * top-level fields.
 */
function applied(cur: StoredObject, obj: NewObject, last: NewObject | undefined): StoredObject {
  const { apiVersion: _a, kind: _k, metadata, spec, status: _s, ...rest } = obj as NewObject & Record<string, unknown>;
  const m = cur.metadata;
  return {
    ...cur,
    ...(rest as object),
    metadata: {
      ...m,
      resourceVersion: '',
      labels: { ...m.labels, ...(metadata.labels ?? {}) },
      annotations: { ...m.annotations, ...(metadata.annotations ?? {}) },
      finalizers: [...new Set([...m.finalizers, ...(metadata.finalizers ?? [])])],
    },
    spec: spec === undefined ? cur.spec : last === undefined ? spec : (threeWay(last.spec, cur.spec, spec) as typeof spec),
  };
}

/** What the user would create again: the object without server-set fields, status or controller finalizers. */
function copyOf(cur: StoredObject): NewObject {
  const { metadata: m, status: _s, ...rest } = cur as StoredObject & Record<string, unknown>;
  return {
    ...(rest as { kind: string }),
    metadata: {
      name: m.name,
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      ...(Object.keys(m.labels).length > 0 ? { labels: { ...m.labels } } : {}),
      ...(Object.keys(m.annotations).length > 0 ? { annotations: { ...m.annotations } } : {}),
    },
  };
}

/**
 * The workload with the actions of different objects at one instant in the reverse order (each
 * object's own actions keep theirs): two users acting at the same time, whose requests the API
 * server may commit in either order. A benign variation (src/harness/twin.ts), not a fault.
 * @internal
 */
export function reverseSimultaneous(workload: readonly WorkloadAction[]): WorkloadAction[] {
  const byAt = new Map<number, WorkloadAction[]>();
  for (const a of workload) {
    const group = byAt.get(a.at);
    if (group) group.push(a);
    else byAt.set(a.at, [a]);
  }
  const out: WorkloadAction[] = [];
  for (const a of workload) {
    const group = byAt.get(a.at);
    if (!group) continue;
    byAt.delete(a.at);
    const perObject = new Map<string, WorkloadAction[]>();
    for (const x of group) {
      const id = objectOf(x);
      const xs = perObject.get(id);
      if (xs) xs.push(x);
      else perObject.set(id, [x]);
    }
    for (const xs of [...perObject.values()].reverse()) for (const x of xs) out.push(x);
  }
  return out;
}
