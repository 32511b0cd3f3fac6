import type { Kernel } from '../sim/kernel.js';
import { keyOf } from '../store/object.js';
import { writeCounters } from '../runtime/controller-client.js';
import type { ProcessReplica } from '../runtime/controller-process.js';
import type { RuntimeEnv } from '../runtime/env.js';
import type { WriteInfo } from '../runtime/seams.js';
import { createKubeApi, type KubeApi } from './kube-api.js';
import type { KubeApiHost } from './kube-api-host.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { KubeApiHooks, KubeRequestDecision, KubeRequestInfo } from './serve-context.js';

/**
 * The simulated API of one world, shared by every kube process in it (`kubeController`,
 * `defineProgram`): the store served over the Kubernetes REST API on the kernel's clock, with
 * the world's fault seams as the API's hooks.
 * @internal
 */
export interface KubeWorld {
  api: KubeApi;
  /** The live incarnation of each actor (hooks find the replica by the request's actor). */
  live: Map<string, ProcessReplica>;
  /** Replica slots started and not yet shut down; the transport is held while any is. */
  slots: Set<string>;
  release: () => void;
  registered: Set<string>;
}

const worlds = new WeakMap<RuntimeEnv, KubeWorld>();
/** Keeps tokens of worlds alive at the same time apart (tokens never enter a trace). */
let worldCounter = 0;

function kernelHost(kernel: Kernel): KubeApiHost {
  return {
    now: () => kernel.now(),
    after(ms, fn) {
      const ev = kernel.after(ms, () => {
        kernel.external();
        fn();
      });
      return () => {
        ev.cancelled = true;
      };
    },
    activity: () => kernel.external(),
  };
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const PASS = { type: 'pass' } as const;

function errorReason(status: 500 | 503 | 429 | 504): string {
  return status === 429 ? 'TooManyRequests' : status === 503 ? 'ServiceUnavailable' : status === 504 ? 'Timeout' : 'InternalError';
}

function writeVerb(info: KubeRequestInfo): WriteInfo['verb'] {
  const status = info.subresource === 'status';
  switch (info.verb) {
    case 'update':
      return status ? 'updateStatus' : 'update';
    case 'patch':
      return status ? 'patchStatus' : 'patch';
    case 'create':
      return 'create';
    default:
      return 'delete';
  }
}

/** The world's fault seams, seen from the HTTP layer. */
function hooksOf(env: RuntimeEnv, world: () => KubeWorld): KubeApiHooks {
  const { seams, kernel, trace } = env;
  /** Kinds each process incarnation has listed (its first list of a kind is not a relist). */
  const listed = new WeakMap<ProcessReplica, Set<string>>();
  const keyOfInfo = (i: KubeRequestInfo): string => keyOf({ namespace: i.namespace, name: i.name ?? '' });
  const call = (r: ProcessReplica, i: KubeRequestInfo, phase: 'before' | 'after'): boolean => {
    if (!seams.hasCallHooks) return false;
    const write = WRITE_VERBS.has(i.verb);
    const writeSeq = writeCounters.get(env)?.get(r.name) ?? 0;
    const d = seams.decideCall({ t: kernel.now(), controller: r.name, replica: r.replica, phase, verb: i.verb, write, seq: r.callSeq++, writeSeq });
    if (d !== 'crash') return false;
    r.crash(`${phase} ${i.verb}`);
    return true;
  };
  return {
    onRequest(i): KubeRequestDecision | undefined {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      if (call(r, i, 'before')) return { type: 'hang' };
      if (i.verb === 'get' || i.verb === 'list' || i.verb === 'watch') {
        // GET, LIST and the watch connect reach the API server: api-error acts on them too
        const d = seams.hasReadHooks ? seams.decideRead({ t: kernel.now(), actor: i.actor, verb: i.verb, kind: i.kind, ...(i.name !== undefined ? { key: keyOfInfo(i) } : {}), cached: false, seq: seams.readSeq++ }) : PASS;
        const error = d.type === 'error' ? errorReason(d.status) : d.type === 'connection' ? (d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset') : undefined;
        if (env.traceReads && i.verb !== 'watch') {
          trace.push({ t: kernel.now(), type: 'store:read', actor: i.actor, verb: i.verb, kind: i.kind, ...(i.name !== undefined ? { key: keyOfInfo(i) } : {}), cached: false, via: 'http', ...(error !== undefined ? { error, fault: 'api-error' } : {}) });
        }
        return d.type === 'error' ? d : d.type === 'connection' ? (d.how === 'refused' ? { type: 'refused' } : { type: 'reset', applied: false }) : undefined;
      }
      if (!WRITE_VERBS.has(i.verb) || !seams.hasWriteHooks) return undefined;
      const verb = writeVerb(i);
      const d = seams.decideWrite({ t: kernel.now(), actor: i.actor, verb, kind: i.kind, key: keyOfInfo(i), seq: seams.writeSeq++ });
      const error = d.type === 'error' ? errorReason(d.status) : d.type === 'connection' ? (d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset') : undefined;
      if (error !== undefined) trace.push({ t: kernel.now(), type: 'store:write', actor: i.actor, verb, kind: i.kind, key: keyOfInfo(i), changed: [], noop: false, error, fault: 'api-error' });
      if (d.type === 'connection') return d.how === 'refused' ? { type: 'refused' } : { type: 'reset', applied: d.applied };
      return d.type === 'pass' ? undefined : d;
    },
    onResponse(i, status) {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      if (WRITE_VERBS.has(i.verb) && status < 300) {
        let counts = writeCounters.get(env);
        if (!counts) writeCounters.set(env, (counts = new Map()));
        counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
      }
      return call(r, i, 'after') ? 'hang' : undefined;
    },
    onWatchEvent(i) {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      const seq = seams.watchSeq++;
      const d = seams.hasWatchHooks ? seams.decideWatch({ t: i.t, controller: r.name, replica: r.replica, kind: i.kind, event: i.event, seq }) : undefined;
      trace.push({ t: i.t, type: 'watch:event', controller: r.name, replica: r.replica, kind: i.kind, key: keyOf(i.event.object.metadata), event: i.event.type, rv: i.event.rv, decision: d?.type ?? 'deliver', seq, via: 'http' });
      return d;
    },
    onListFrom(i) {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      // the first list of a kind in this incarnation is its (re)start's, later ones are relists
      let kinds = listed.get(r);
      if (!kinds) listed.set(r, (kinds = new Set()));
      const reason = kinds.has(i.kind) ? 'relist' : 'list';
      kinds.add(i.kind);
      const cur = env.store.currentResourceVersion();
      // a list a lagging replica may answer, recorded also without faults: systematic mode derives lagging lists from it (M-1)
      const record = (rv: number) => trace.push({ t: kernel.now(), type: 'program:list', controller: r.name, replica: r.replica, actor: i.actor, kind: i.kind, reason, rv, notOlderThan: i.notOlderThan });
      if (!seams.hasInformerListHooks) {
        record(cur);
        return undefined;
      }
      const d = seams.decideInformerList({ t: kernel.now(), controller: r.name, replica: r.replica, kind: i.kind, reason, seq: seams.informerListSeq++, rv: cur, notOlderThan: i.notOlderThan });
      const at = d.type === 'lagging' ? Math.max(0, i.notOlderThan, cur - d.versionsBack) : cur;
      const objects = at < cur ? env.store.snapshotAt(i.kind, at) : undefined;
      if (!objects) {
        // the replica is not behind, or the history no longer reaches back
        record(cur);
        return undefined;
      }
      trace.push({ t: kernel.now(), type: 'informer:time-travel', controller: r.name, replica: r.replica, kind: i.kind, reason: reason === 'list' ? 'restart' : 'relist', fromRv: cur, toRv: at, via: 'http' });
      record(at);
      return { rv: at, objects };
    },
    onList(i) {
      if (!seams.hasListHooks || !world().live.has(i.actor)) return undefined;
      return seams.decideList({ t: i.t, actor: i.actor, kind: i.kind, count: i.count, seq: seams.listSeq++ });
    },
  };
}

/** The world's API (created on first use), serving `resources` too. @internal */
export function kubeWorldOf(env: RuntimeEnv, requestLatencyMs: number, resources: readonly ResourceDefinition[]): KubeWorld {
  let w = worlds.get(env);
  if (!w) {
    const id = ++worldCounter;
    let self!: KubeWorld;
    const api = createKubeApi({
      store: env.store,
      host: kernelHost(env.kernel),
      hooks: hooksOf(env, () => self),
      requestLatencyMs,
      watchLatencyMs: env.watchLatencyMs,
      tokenPrefix: `steadystate-w${id}-`,
    });
    self = { api, live: new Map(), slots: new Set(), release: () => {}, registered: new Set() };
    // a watch lag or delay decided in the fault window must not outlive it
    env.seams.onDeactivate.push(() => api.endLags());
    w = self;
    worlds.set(env, w);
  }
  for (const r of resources) {
    const id = `${r.group}/${r.version}/${r.plural}`;
    if (!w.registered.has(id)) {
      w.registered.add(id);
      w.api.resources.register(r);
    }
  }
  return w;
}
