import type { WatchEvent } from '../store/store.js';
import type { FetchDecision, FetchInfo } from '../downstream/fetch-decision.js';

export type { FetchDecision, FetchInfo };

/**
 * Typed interception points faults plug into (controller-runtime's `interceptor.Funcs`, with
 * turmoil's rule that a hook returns a decision from a closed set instead of running code).
 * An absent hook, or `undefined` from a hook, means "pass through".
 * @public
 */

/** informer → workqueue: one key about to be enqueued because of an event. */
export interface NotifyInfo {
  t: number;
  controller: string;
  replica: number;
  kind: string;
  key: string;
  event: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC';
  /** Index of this notification among all notifications of the run (0-based). */
  seq: number;
}
export type NotifyDecision = 'deliver' | 'drop';

/** store → informer: one watch event about to reach an informer. */
export interface WatchEventInfo {
  t: number;
  controller: string;
  replica: number;
  kind: string;
  event: WatchEvent;
  /** Index among all watch deliveries of the run (0-based). */
  seq: number;
  /** Virtual time the stream carrying it was opened (undefined when not known, as over HTTP). */
  openedAt?: number;
}
export type WatchDecision =
  | { type: 'deliver' }
  /** Lost on its way (the cache misses it until a relist). */
  | { type: 'drop' }
  /**
   * A replay after a reconnect from an older resourceVersion: after this event, the stream sends
   * its last `replay` events again (default 1: this one), in order, each only while it is still
   * its object's newest on the stream, `afterMs` later (the reconnect). Copies never change the
   * cache; they make the controller see the objects again.
   */
  | { type: 'duplicate'; afterMs?: number; replay?: number }
  /** This event and, the stream being ordered, every later one of its stream waits `ms`. */
  | { type: 'delay'; ms: number }
  /**
   * Delivered with the usual latency, and so is every event still waiting before it on its
   * stream (in order): the latency that held them ends. Benign variations use it so a controller
   * sees its own writes on time (src/harness/twin.ts); not a fault.
   */
  | { type: 'prompt' }
  /**
   * The stream falls `versions` events behind (a lagging watch cache): events are held back and
   * released in order, oldest first, so that `versions` stay held, until virtual time `untilMs`.
   */
  | { type: 'lag'; versions: number; untilMs: number }
  /** The connection is cut (the client re-watches from the last resourceVersion it saw). */
  | { type: 'disconnect' }
  /** The history was compacted: the re-watch gets 410 Gone and the client relists. */
  | { type: 'gone' }
  /** The server ends the stream cleanly, as kube-apiserver does after `timeoutSeconds`. */
  | { type: 'close' }
  /** An in-stream `ERROR` event with a Status of `status`, then the server ends the stream. */
  | { type: 'error'; status: 500 | 503 };

/** A read through the controller's client. */
export interface ReadInfo {
  t: number;
  actor: string;
  /** `watch`: a watch connect (HTTP clients only; the built-in informers' watches are seams of their own). */
  verb: 'get' | 'list' | 'watch';
  kind: string;
  key?: string;
  cached: boolean;
  seq: number;
}
/** A connection that fails: refused (never reached the server) or reset (the answer was lost). */
export type ConnectionFailure = { type: 'connection'; how: 'refused' } | { type: 'connection'; how: 'reset'; applied: boolean };

/**
 * What a live read gets (a cached read never reaches the API server, so faults leave it alone:
 * a cache lags only through its watch, see {@link WatchDecision}).
 */
export type ReadDecision = { type: 'pass' } | { type: 'error'; status: 500 | 503 | 429 | 504; retryAfterSeconds?: number } | ConnectionFailure;

/** An informer about to (re)list its kind: where the list comes from. */
export interface InformerListInfo {
  t: number;
  controller: string;
  replica: number;
  kind: string;
  reason: 'list' | 'relist';
  /** Index among all informer lists of the run (0-based). */
  seq: number;
  /** The API server's resourceVersion now. */
  rv: number;
  /** The oldest resourceVersion an answer may have: what the client asked for ("not older than"; 0: any). */
  notOlderThan: number;
}
/**
 * `lagging`: the list comes from an API server replica `versionsBack` resourceVersions behind,
 * and its watch catches up only `catchUpMs` later.
 */
export type InformerListDecision = { type: 'pass' } | { type: 'lagging'; versionsBack: number; catchUpMs: number };

/** A write through the controller's client. */
export interface WriteInfo {
  t: number;
  actor: string;
  verb: 'create' | 'update' | 'updateStatus' | 'patch' | 'patchStatus' | 'delete';
  kind: string;
  key: string;
  seq: number;
}
export type WriteDecision =
  | { type: 'pass' }
  | { type: 'conflict' }
  | { type: 'error'; status: 500 | 503 | 429 | 504; retryAfterSeconds?: number }
  | { type: 'timeout'; applied: boolean }
  | ConnectionFailure;

/**
 * A write by the user (a workload action, one attempt of it): the point where the API server may
 * answer the user with an error, time out, or let a concurrent writer in first. Counted apart
 * from controller writes (`seq` indexes user writes only), so user faults never shift the
 * occurrences controller faults count.
 */
export interface UserWriteInfo {
  t: number;
  verb: 'create' | 'update' | 'patch' | 'delete';
  kind: string;
  key: string;
  /** The workload action this write belongs to (`apply`, `recreate`, …). */
  action: string;
  /** 1-based attempt of that action. */
  attempt: number;
  /** Index among all user writes of the run (0-based). */
  seq: number;
}

/** Before/after each client call: the point where a process may die. */
export interface CallInfo {
  t: number;
  controller: string;
  replica: number;
  /** 'before' the call reaches the store, or 'after' it returned. */
  phase: 'before' | 'after';
  verb: string;
  write: boolean;
  /** Index among all calls of this controller replica's lifetime(s) in the run. */
  seq: number;
  /** Index among all writes of the controller (all replicas) in the run. */
  writeSeq: number;
  /**
   * Set for the points around a downstream request (`ctx.fetch`; then `verb` is `'fetch'` and
   * `seq` does not count it): its method, URL and index among the controller's downstream
   * requests (all replicas) in the run.
   */
  downstream?: { method: string; url: string; seq: number };
}
export type CallDecision = 'continue' | 'crash';

/** List results about to be returned (cached or live). */
export interface ListInfo {
  t: number;
  actor: string;
  kind: string;
  count: number;
  seq: number;
}
/** A permutation seed: 0 keeps key order (the store lists by key). */
export type ListDecision = { type: 'pass' } | { type: 'shuffle'; seed: number };

export interface SeamHooks {
  onNotify?: (i: NotifyInfo) => NotifyDecision | undefined;
  onWatchEvent?: (i: WatchEventInfo) => WatchDecision | undefined;
  onRead?: (i: ReadInfo) => ReadDecision | undefined;
  onWrite?: (i: WriteInfo) => WriteDecision | undefined;
  /** A user's write (workload action attempt); see {@link UserWriteInfo}. */
  onUserWrite?: (i: UserWriteInfo) => WriteDecision | undefined;
  onCall?: (i: CallInfo) => CallDecision | undefined;
  onList?: (i: ListInfo) => ListDecision | undefined;
  /** A downstream request about to be routed (flaky downstream). */
  onFetch?: (i: FetchInfo) => FetchDecision | undefined;
  /** An informer list (stale snapshot from a lagging replica). */
  onInformerList?: (i: InformerListInfo) => InformerListDecision | undefined;
}

type Hook<I, D> = (i: I) => D | undefined;

/**
 * The seams of one world. Several faults may hook the same seam; the first non-pass decision
 * wins, in installation order (which is plan order, so deterministic).
 * @internal
 */
export class Seams {
  private notify: Hook<NotifyInfo, NotifyDecision>[] = [];
  private watchEv: Hook<WatchEventInfo, WatchDecision>[] = [];
  private read: Hook<ReadInfo, ReadDecision>[] = [];
  private write: Hook<WriteInfo, WriteDecision>[] = [];
  private userWrite: Hook<UserWriteInfo, WriteDecision>[] = [];
  private call: Hook<CallInfo, CallDecision>[] = [];
  private list: Hook<ListInfo, ListDecision>[] = [];
  private fetchHooks: Hook<FetchInfo, FetchDecision>[] = [];
  private informerList: Hook<InformerListInfo, InformerListDecision>[] = [];
  /** False outside the fault window: no hook is consulted. */
  active = true;
  /** Called once when the fault window ends ({@link deactivate}): layers that hold what faults delayed let it go. */
  readonly onDeactivate: (() => void)[] = [];

  /** The fault window ended: no hook is consulted from now on. */
  deactivate(): void {
    if (!this.active) return;
    this.active = false;
    for (const f of this.onDeactivate) f();
  }
  notifySeq = 0;
  watchSeq = 0;
  readSeq = 0;
  writeSeq = 0;
  userWriteSeq = 0;
  listSeq = 0;
  informerListSeq = 0;

  install(h: SeamHooks): () => void {
    const pairs: [unknown[], unknown][] = [];
    if (h.onNotify) pairs.push([this.notify, h.onNotify]);
    if (h.onWatchEvent) pairs.push([this.watchEv, h.onWatchEvent]);
    if (h.onRead) pairs.push([this.read, h.onRead]);
    if (h.onWrite) pairs.push([this.write, h.onWrite]);
    if (h.onUserWrite) pairs.push([this.userWrite, h.onUserWrite]);
    if (h.onCall) pairs.push([this.call, h.onCall]);
    if (h.onList) pairs.push([this.list, h.onList]);
    if (h.onFetch) pairs.push([this.fetchHooks, h.onFetch]);
    if (h.onInformerList) pairs.push([this.informerList, h.onInformerList]);
    for (const [arr, fn] of pairs) arr.push(fn);
    return () => {
      for (const [arr, fn] of pairs) {
        const i = arr.indexOf(fn);
        if (i >= 0) arr.splice(i, 1);
      }
    };
  }

  get hasReadHooks(): boolean {
    return this.read.length > 0;
  }

  decideNotify(i: NotifyInfo): NotifyDecision {
    if (!this.active) return 'deliver';
    for (const h of this.notify) {
      const d = h(i);
      if (d === 'drop') return d;
    }
    return 'deliver';
  }

  decideWatch(i: WatchEventInfo): WatchDecision {
    if (!this.active) return DELIVER;
    for (const h of this.watchEv) {
      const d = h(i);
      if (d && d.type !== 'deliver') return d;
    }
    return DELIVER;
  }

  decideRead(i: ReadInfo): ReadDecision {
    if (!this.active) return PASS;
    for (const h of this.read) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  decideWrite(i: WriteInfo): WriteDecision {
    if (!this.active) return PASS;
    for (const h of this.write) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  decideUserWrite(i: UserWriteInfo): WriteDecision {
    if (!this.active) return PASS;
    for (const h of this.userWrite) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  decideCall(i: CallInfo): CallDecision {
    if (!this.active) return 'continue';
    for (const h of this.call) {
      const d = h(i);
      if (d === 'crash') return d;
    }
    return 'continue';
  }

  decideList(i: ListInfo): ListDecision {
    if (!this.active) return PASS;
    for (const h of this.list) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  decideFetch(i: FetchInfo): FetchDecision {
    if (!this.active) return PASS;
    for (const h of this.fetchHooks) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  decideInformerList(i: InformerListInfo): InformerListDecision {
    if (!this.active) return PASS;
    for (const h of this.informerList) {
      const d = h(i);
      if (d && d.type !== 'pass') return d;
    }
    return PASS;
  }

  get hasInformerListHooks(): boolean {
    return this.informerList.length > 0;
  }

  get hasFetchHooks(): boolean {
    return this.fetchHooks.length > 0;
  }

  get hasCallHooks(): boolean {
    return this.call.length > 0;
  }
  get hasNotifyHooks(): boolean {
    return this.notify.length > 0;
  }
  get hasWatchHooks(): boolean {
    return this.watchEv.length > 0;
  }
  get hasWriteHooks(): boolean {
    return this.write.length > 0;
  }
  get hasUserWriteHooks(): boolean {
    return this.userWrite.length > 0;
  }
  get hasListHooks(): boolean {
    return this.list.length > 0;
  }
}

const DELIVER: WatchDecision = { type: 'deliver' };
const PASS = { type: 'pass' } as const;
