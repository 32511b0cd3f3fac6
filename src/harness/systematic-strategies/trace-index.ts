import type { TraceEntry } from '../../sim/trace.js';
import type { RunRecord } from '../property.js';

/**
 * One pass over a run's trace that every strategy reads from: the fault window's reconciles
 * with what each did, and the counters fault events are addressed by (`nth`), reconstructed the
 * way each fault module counts them. Only the fault window counts (faults never act after it).
 * @internal
 */
export interface TraceIndex {
  run: RunRecord;
  trace: readonly TraceEntry[];
  /** Index of the settle phase's start in the trace (trace length when there is none). */
  end: number;
  reconciles: ReconcileSpan[];
  /** Controller store writes (what `writeSeq` counts), in order. */
  writes: WriteAt[];
  /** Cached reads (get and list) of every controller, in order (what stale-snapshot counts). */
  cachedReads: ReadAt[];
  /** Client lists of every controller, cached and live (what list-order counts). */
  lists: ReadAt[];
  /** Downstream requests by controllers, by global seq (what flaky-downstream counts). */
  requests: RequestAt[];
  /** Watch deliveries to controllers (what the watch faults count by `seq`). */
  deliveries: TraceEntry[];
  /** Trace index of a delivery. */
  position: Map<TraceEntry, number>;
  /** Controller crashes. */
  crashes: TraceEntry[];
  /** Successful store writes per object (`kind key`), in order: its versions, with their trace index. */
  versions: Map<string, { entry: TraceEntry; index: number }[]>;
  /** The first fault injection (trace index), or -1: plans derived from a faulted run act after it. */
  firstInjection: number;
}

/** A reconcile of one controller replica and the trace entries its actor made meanwhile. */
export interface ReconcileSpan {
  controller: string;
  replica: number;
  key: string;
  start: TraceEntry;
  /** Undefined when the run's fault window ended (or the controller died) first. */
  endEntry: TraceEntry | undefined;
  startIndex: number;
  endIndex: number;
  /** Mutations in order: store writes that changed something, and mutating downstream requests. */
  steps: Step[];
}

export type Step = { type: 'write'; at: WriteAt } | { type: 'request'; at: RequestAt };

/** An occurrence the faults count by a global seq and by a per-controller index. */
export interface CountedAt {
  entry: TraceEntry;
  index: number;
  controller: string;
  /** Global index: among all controller writes (api-conflict's counter), or the request seq (flaky-downstream's). */
  seq: number;
  /** Among this controller's writes or requests, all replicas (crash-restart's `*-write` / `*-fetch` points). */
  perController: number;
  reconcile: ReconcileSpan | undefined;
}
export type WriteAt = CountedAt;
export type RequestAt = CountedAt;

export interface ReadAt {
  entry: TraceEntry;
  index: number;
  seq: number;
  reconcile: ReconcileSpan | undefined;
}

/** `controller:<name>/<replica>` → name and replica, or undefined for other actors. */
export function controllerActor(actor: unknown): { controller: string; replica: number } | undefined {
  if (typeof actor !== 'string' || !actor.startsWith('controller:')) return undefined;
  const slash = actor.lastIndexOf('/');
  return { controller: actor.slice('controller:'.length, slash), replica: Number(actor.slice(slash + 1)) };
}

/** Builds the index of a run (the fault window part of its trace). */
export function indexTrace(run: RunRecord): TraceIndex {
  const trace = run.trace;
  let end = trace.findIndex((e) => e.type === 'run:phase' && e['phase'] === 'settle');
  if (end < 0) end = trace.length;
  const reconciles: ReconcileSpan[] = [];
  const open = new Map<string, ReconcileSpan>();
  const writes: WriteAt[] = [];
  const cachedReads: ReadAt[] = [];
  const lists: ReadAt[] = [];
  const requestsUnsorted: { entry: TraceEntry; index: number; controller: string; reconcile: ReconcileSpan | undefined }[] = [];
  const deliveries: TraceEntry[] = [];
  const position = new Map<TraceEntry, number>();
  const crashes: TraceEntry[] = [];
  const versions = new Map<string, { entry: TraceEntry; index: number }[]>();
  const perControllerWrites = new Map<string, number>();
  let firstInjection = -1;
  const spanOf = (actor: unknown) => {
    const a = controllerActor(actor);
    return a ? open.get(`${a.controller}/${a.replica}`) : undefined;
  };
  for (let i = 0; i < end; i++) {
    const e = trace[i]!;
    switch (e.type) {
      case 'reconcile:start': {
        const span: ReconcileSpan = { controller: String(e['controller']), replica: Number(e['replica']), key: String(e['key']), start: e, endEntry: undefined, startIndex: i, endIndex: end, steps: [] };
        reconciles.push(span);
        open.set(`${span.controller}/${span.replica}`, span);
        break;
      }
      case 'reconcile:end': {
        const id = `${String(e['controller'])}/${Number(e['replica'])}`;
        const span = open.get(id);
        if (span) {
          span.endEntry = e;
          span.endIndex = i;
          open.delete(id);
        }
        break;
      }
      case 'controller:crash': {
        crashes.push(e);
        open.delete(`${String(e['controller'])}/${Number(e['replica'])}`);
        break;
      }
      case 'store:write': {
        if (e['error'] === undefined && e['rv'] !== undefined && e['noop'] !== true) {
          const id = `${String(e['kind'])} ${String(e['key'])}`;
          const list = versions.get(id);
          if (list) list.push({ entry: e, index: i });
          else versions.set(id, [{ entry: e, index: i }]);
        }
        const a = controllerActor(e['actor']);
        // leader election renews its Lease straight in the store, not through the client: no fault counts it
        if (!a || e['fault'] !== undefined || (e['kind'] === 'Lease' && e['key'] === `kube-system/${a.controller}-leader`)) break;
        const k = perControllerWrites.get(a.controller) ?? 0;
        perControllerWrites.set(a.controller, k + 1);
        const reconcile = spanOf(e['actor']);
        const w: WriteAt = { entry: e, index: i, controller: a.controller, seq: writes.length, perController: k, reconcile };
        writes.push(w);
        if (reconcile && e['noop'] !== true && e['error'] === undefined) reconcile.steps.push({ type: 'write', at: w });
        break;
      }
      case 'store:read': {
        if (!controllerActor(e['actor'])) break;
        const reconcile = spanOf(e['actor']);
        if (e['cached'] === true) cachedReads.push({ entry: e, index: i, seq: cachedReads.length, reconcile });
        if (e['verb'] === 'list' && e['error'] === undefined) lists.push({ entry: e, index: i, seq: lists.length, reconcile });
        break;
      }
      case 'downstream:request': {
        const a = controllerActor(e['actor']);
        if (a) requestsUnsorted.push({ entry: e, index: i, controller: a.controller, reconcile: spanOf(e['actor']) });
        break;
      }
      case 'watch:event':
        if (typeof e['seq'] === 'number') {
          deliveries.push(e);
          position.set(e, i);
        }
        break;
      case 'fault:inject':
        if (firstInjection < 0) firstInjection = i;
        break;
      default:
        break;
    }
  }
  // requests are traced when they answer; their counters count them when they start (by seq)
  requestsUnsorted.sort((a, b) => Number(a.entry['seq']) - Number(b.entry['seq']));
  const perControllerRequests = new Map<string, number>();
  const requests: RequestAt[] = requestsUnsorted.map((r) => {
    const k = perControllerRequests.get(r.controller) ?? 0;
    perControllerRequests.set(r.controller, k + 1);
    const at: RequestAt = { ...r, seq: Number(r.entry['seq']), perController: k };
    if (r.reconcile && r.entry['mutating'] === true) r.reconcile.steps.push({ type: 'request', at });
    return at;
  });
  for (const span of reconciles) span.steps.sort((a, b) => a.at.index - b.at.index);
  return { run, trace, end, reconciles, writes, cachedReads, lists, requests, deliveries, position, crashes, versions, firstInjection };
}

/** `kind key` of a trace entry's object. */
export function objectId(e: TraceEntry): string {
  return `${String(e['kind'])} ${String(e['key'])}`;
}

/** The object in words: `Kind key`. */
export function fmtEntryObject(e: TraceEntry): string {
  return `${String(e['kind'] ?? e['objectKind'])} ${String(e['key'] ?? '')}`.trim();
}
