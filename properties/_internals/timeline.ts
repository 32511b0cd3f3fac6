import type { ApiRequest } from '../../src/harness/world.js';
import type { RunRecord } from '../../src/harness/property.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import type { WriteFacts } from '../../src/report/explain.js';

/**
 * The trace of a run, indexed once for judges: reconciles as spans, and every store write and
 * downstream request attributed to the reconcile that made it. Built lazily and cached per run
 * record (a record is immutable data), so several properties judging one run share the work.
 * @internal
 */

/** One reconcile, from `reconcile:start` to `reconcile:end` (or the crash that ended it). */
export interface ReconcileSpan {
  controller: string;
  replica: number;
  /** `controller:<name>/<replica>`, the actor its writes carry. */
  actor: string;
  key: string;
  n: number;
  start: number;
  /** Index of the `reconcile:start` entry in the trace. */
  startIndex: number;
  end: number | undefined;
  endIndex: number | undefined;
  /** `done`, `requeue`, `requeueAfter`, `error`, `crashed`, `stopped` (its replica stopped), or undefined while running at the end. */
  result: string | undefined;
  error: string | undefined;
  requeueAfter: number | undefined;
  /** The delay the rate-limited queue chose for its retry (result `error` or `requeue`). */
  retryInMs?: number;
}

/**
 * One firing of a hosted program's own schedule (a `setInterval`, a `setTimeout` of a second or
 * more, and what their continuations do): a program has no reconcile spans, and this is what
 * stands for one when the question is whether its work was scheduled (see scheduled.ts). Only
 * firings that wrote are known.
 */
export interface ProgramSpan {
  /** `controller:<name>/<replica>`. */
  actor: string;
  /** The schedule (`<incarnation>.<timer id>`). */
  chain: string;
  /** The firing (`<incarnation>.<n>`). */
  fire: string;
  /** When it fired. */
  start: number;
}

/**
 * What a hosted program did answering watch events (the writes of its handlers of one batch of
 * events and of their continuations): the stand-in for a reconcile started by notifications when
 * the question is whether a program's write follows from scheduled work (see scheduled.ts).
 */
export interface ReactionSpan {
  /** `controller:<name>/<replica>`. */
  actor: string;
  /** The resourceVersions of the events it answers. */
  answers: number[];
  /** Its first write. */
  start: number;
}

/** A store write as recorded in the trace, with its position and the reconcile that made it. */
export interface TimelineWrite extends WriteFacts {
  changed: string[];
  index: number;
  uid: string | undefined;
  fault: string | undefined;
  reconcile: ReconcileSpan | undefined;
  /** The firing of a hosted program's schedule that made it, if one did. */
  program?: ProgramSpan;
  /** The hosted program's answer to watch events that made it, if one did. */
  reaction?: ReactionSpan;
  /** A delete naming no propagation policy of a kind that orphans by default: the dependents it orphaned. */
  orphaned?: string[];
  /** An environment actor's write: why the sync that made it ran (its `environment:sync` entry); absent in traces that have none. */
  envCause?: EnvCause;
}

/**
 * Why an environment actor's sync ran: the resourceVersions of the writes whose events started it,
 * and whether something from outside did too (its own timer, the settle, a fault, its start).
 */
export interface EnvCause {
  events: readonly number[];
  external: boolean;
}

/** A downstream request as recorded in the trace (at its completion), attributed. */
export interface TimelineRequest {
  index: number;
  /** Start time. */
  t: number;
  tEnd: number;
  actor: string;
  method: string;
  url: string;
  endpoint: string;
  status: number;
  outcome: string;
  mutating: boolean;
  fault: string | undefined;
  applied: boolean | undefined;
  /** Response headers as recorded (names lower-case), when the caller got a response. */
  headers: Readonly<Record<string, string>> | undefined;
  reconcile: ReconcileSpan | undefined;
}

/** A notification: a key about to be enqueued because of an event. */
export interface Notify {
  index: number;
  t: number;
  controller: string;
  replica: number;
  kind: string;
  key: string;
  event: string;
  delivered: boolean;
  /** When the event reached the controller, if its handlers held it back (a slow watch map) until `t`. */
  eventAt?: number;
  /**
   * The resource version of the store write behind the watch event; undefined for a resync, or
   * when unknown (a relist's difference).
   */
  causeRv?: number;
}

/** A Kubernetes API request of a hosted program (`http:request`), as it was answered. */
export type ProgramRequest = Omit<ApiRequest, 'ms'>;

/** The indexed run. */
export interface Timeline {
  /** Kubernetes API requests of hosted programs (they have no reconcile spans). */
  programRequests: ProgramRequest[];
  /** Firings of hosted programs' schedules that wrote, in the order of their first write. */
  programSpans: ProgramSpan[];
  /** Hosted programs' answers to watch events that wrote, in the order of their first write. */
  reactionSpans: ReactionSpan[];
  reconciles: ReconcileSpan[];
  writes: TimelineWrite[];
  requests: TimelineRequest[];
  notifies: Notify[];
  faults: TraceEntry[];
  crashes: TraceEntry[];
  /** `controller:leader` transitions, in order. */
  leaders: TraceEntry[];
  /**
   * Downstream calls an injected hang or latency held, per actor, `to` undefined while still
   * held at the end of the trace: time the fault, not the reconciler, spent.
   */
  stalls: { actor: string; from: number; to: number | undefined }[];
}

const cache = new WeakMap<RunRecord, Timeline>();

/** The timeline of a run (cached). */
export function timelineOf(run: RunRecord): Timeline {
  let tl = cache.get(run);
  if (!tl) cache.set(run, (tl = build(run.trace)));
  return tl;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined ? '' : String(v);
}

function headersOf(v: unknown): Readonly<Record<string, string>> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, string>) : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** `list.map(str)`, or `list` itself when every element is a string already. */
function stringsOf(list: unknown[]): string[] {
  for (let i = 0; i < list.length; i++) if (typeof list[i] !== 'string') return list.map(str);
  return list as string[];
}

/** Builds a timeline from trace entries (exported for tests of hand-made traces). */
export function build(trace: readonly TraceEntry[]): Timeline {
  const tl: Timeline = { programRequests: [], programSpans: [], reactionSpans: [], reconciles: [], writes: [], requests: [], notifies: [], faults: [], crashes: [], leaders: [], stalls: [] };
  const requestBySeq = new Map<number, number>();
  const programSpans = new Map<string, ProgramSpan>();
  const reactionSpans = new Map<string, ReactionSpan>();
  // the last watch event per controller process: a notify follows its event
  const lastEvent = new Map<string, TraceEntry>();
  const open = new Map<string, ReconcileSpan[]>();
  // `controller:<name>/<replica>` made once per process, not once per entry (a trace has a handful of processes)
  const actors = new Map<string, string[]>();
  const actorOf = (controller: string, replica: number): string => {
    let byReplica = actors.get(controller);
    if (!byReplica) actors.set(controller, (byReplica = []));
    // a replica that is no small index (never, from the runtime) is not cached
    if (!(replica >= 0 && replica < 64 && Number.isInteger(replica))) return `controller:${controller}/${replica}`;
    return (byReplica[replica] ??= `controller:${controller}/${replica}`);
  };
  // per environment actor, the cause of its running sync (its writes follow their sync's entry: a sync runs without yielding)
  const syncs = new Map<string, EnvCause>();
  const inFlight = (actor: string, key?: string): ReconcileSpan | undefined => {
    const spans = open.get(actor);
    if (!spans || spans.length === 0) return undefined;
    if (key !== undefined) {
      for (let i = spans.length - 1; i >= 0; i--) if (spans[i]!.key === key) return spans[i];
    }
    return spans[spans.length - 1];
  };
  for (let index = 0; index < trace.length; index++) {
    const e = trace[index]!;
    switch (e.type) {
      case 'reconcile:start': {
        const controller = str(e['controller']);
        const replica = num(e['replica']) ?? 0;
        const actor = actorOf(controller, replica);
        const span: ReconcileSpan = { controller, replica, actor, key: str(e['key']), n: num(e['n']) ?? 0, start: e.t, startIndex: index, end: undefined, endIndex: undefined, result: undefined, error: undefined, requeueAfter: undefined };
        tl.reconciles.push(span);
        let spans = open.get(actor);
        if (!spans) open.set(actor, (spans = []));
        spans.push(span);
        break;
      }
      case 'reconcile:end': {
        const actor = actorOf(str(e['controller']), num(e['replica']) ?? 0);
        const spans = open.get(actor) ?? [];
        const i = spans.findIndex((s) => s.n === e['n'] && s.key === e['key']);
        if (i < 0) break;
        const span = spans[i]!;
        spans.splice(i, 1);
        span.end = e.t;
        span.endIndex = index;
        span.result = str(e['result']);
        if (typeof e['error'] === 'string') span.error = e['error'];
        span.requeueAfter = num(e['requeueAfter']);
        if (typeof e['retryInMs'] === 'number') span.retryInMs = e['retryInMs'];
        break;
      }
      case 'controller:crash':
      case 'controller:stop': {
        // a replica stopped (the second-replica fault's extra pod, gone at the end of the fault
        // window) is killed mid-reconcile as a crash kills it: what it was doing is over
        if (e.type === 'controller:crash') tl.crashes.push(e);
        const actor = actorOf(str(e['controller']), num(e['replica']) ?? 0);
        for (const span of open.get(actor) ?? []) {
          span.end = e.t;
          span.endIndex = index;
          span.result = e.type === 'controller:crash' ? 'crashed' : 'stopped';
        }
        open.delete(actor);
        break;
      }
      case 'http:request':
        tl.programRequests.push({ t: e.t, controller: str(e['controller']), replica: num(e['replica']) ?? 0, method: str(e['method']), path: str(e['path']), status: num(e['status']) ?? 0, watch: e['watch'] === true });
        break;
      case 'store:write': {
        const actor = str(e['actor']);
        const key = str(e['key']);
        // the entry's own list when it holds only strings (as the store writes it; nothing changes a timeline's lists)
        const changed = Array.isArray(e['changed']) ? stringsOf(e['changed'] as unknown[]) : [];
        const w: TimelineWrite = {
          index,
          t: e.t,
          actor,
          verb: str(e['verb']),
          kind: str(e['kind']),
          key,
          changed,
          noop: e['noop'] === true,
          error: typeof e['error'] === 'string' ? e['error'] : undefined,
          rv: num(e['rv']),
          removed: e['removed'] === true ? true : undefined,
          markedForDeletion: e['markedForDeletion'] === true ? true : undefined,
          uid: typeof e['uid'] === 'string' ? e['uid'] : undefined,
          fault: typeof e['fault'] === 'string' ? e['fault'] : undefined,
          reconcile: actor.startsWith('controller:') ? inFlight(actor, key) : undefined,
        };
        if (Array.isArray(e['orphaned'])) w.orphaned = stringsOf(e['orphaned'] as unknown[]);
        if (actor.startsWith('environment:')) {
          const c = syncs.get(actor);
          if (c !== undefined) w.envCause = c;
        }
        if (typeof e['fire'] === 'string' && actor.startsWith('controller:')) {
          const id = `${actor}\u0000${e['fire']}`;
          let span = programSpans.get(id);
          if (!span) {
            span = { actor, chain: str(e['timer']), fire: e['fire'], start: num(e['firedAt']) ?? e.t };
            programSpans.set(id, span);
            tl.programSpans.push(span);
          }
          w.program = span;
        } else if (Array.isArray(e['answers']) && actor.startsWith('controller:')) {
          const answers = (e['answers'] as unknown[]).filter((x): x is number => typeof x === 'number');
          const id = `${actor}\u0000${answers.join(',')}`;
          let span = reactionSpans.get(id);
          if (!span) {
            span = { actor, answers, start: e.t };
            reactionSpans.set(id, span);
            tl.reactionSpans.push(span);
          }
          w.reaction = span;
        }
        tl.writes.push(w);
        break;
      }
      case 'downstream:request': {
        const actor = str(e['actor']);
        if (typeof e['seq'] === 'number') requestBySeq.set(e['seq'], tl.requests.length);
        tl.requests.push({
          index,
          t: num(e['start']) ?? e.t,
          tEnd: num(e['tEnd']) ?? e.t,
          actor,
          method: str(e['method']),
          url: str(e['url']),
          endpoint: str(e['endpoint']),
          status: num(e['status']) ?? 0,
          outcome: str(e['outcome']),
          mutating: e['mutating'] === true,
          fault: typeof e['fault'] === 'string' ? e['fault'] : undefined,
          applied: typeof e['applied'] === 'boolean' ? e['applied'] : undefined,
          headers: headersOf(e['responseHeaders']),
          reconcile: inFlight(actor),
        });
        break;
      }
      case 'informer:notify': {
        const event = str(e['event']);
        const eventAt = typeof e['eventAt'] === 'number' ? e['eventAt'] : undefined;
        const w = lastEvent.get(actorOf(str(e['controller']), num(e['replica']) ?? 0));
        const rv = w && w.t === (eventAt ?? e.t) ? num(w['rv']) : undefined;
        // optional fields set one by one (no spreads of temporary objects: one notify per event per informer)
        const n: Notify = { index, t: e.t, controller: str(e['controller']), replica: num(e['replica']) ?? 0, kind: str(e['kind']), key: str(e['key']), event, delivered: e['decision'] === 'deliver' };
        if (eventAt !== undefined) n.eventAt = eventAt;
        if (event !== 'SYNC' && rv !== undefined) n.causeRv = rv;
        tl.notifies.push(n);
        break;
      }
      case 'watch:event':
        lastEvent.set(actorOf(str(e['controller']), num(e['replica']) ?? 0), e);
        break;
      case 'environment:sync': {
        const events = Array.isArray(e['events']) ? (e['events'] as unknown[]).filter((x): x is number => typeof x === 'number') : [];
        syncs.set(str(e['actor']), { events, external: e['external'] === true });
        break;
      }
      case 'fault:inject':
        tl.faults.push(e);
        break;
      case 'controller:leader':
        tl.leaders.push(e);
        break;
      default:
        break;
    }
  }
  for (const f of tl.faults) {
    const d = f['decision'] ?? f['fail'];
    if (d !== 'hang' && d !== 'latency') continue;
    const i = typeof f['nth'] === 'number' ? requestBySeq.get(f['nth']) : undefined;
    const r = i === undefined ? undefined : tl.requests[i];
    tl.stalls.push({ actor: str(f['actor']), from: r?.t ?? f.t, to: r ? r.tEnd : undefined });
  }
  for (const r of tl.requests) if ((r.fault === 'hang' || r.fault === 'latency') && !tl.stalls.some((s) => s.actor === r.actor && s.from === r.t)) tl.stalls.push({ actor: r.actor, from: r.t, to: r.tEnd });
  return tl;
}

/** Writes by controllers (actors `controller:…`), optionally in a time window `[from, to]`. */
export function controllerWrites(tl: Timeline, from = -Infinity, to = Infinity): TimelineWrite[] {
  return tl.writes.filter((w) => w.actor.startsWith('controller:') && w.t >= from && w.t <= to);
}

/** `controller:web/0` → `web`; undefined for other actors. */
export function controllerOf(actor: string): string | undefined {
  if (!actor.startsWith('controller:')) return undefined;
  const rest = actor.slice('controller:'.length);
  const i = rest.lastIndexOf('/');
  return i < 0 ? rest : rest.slice(0, i);
}

/** The primary kind of a controller actor in this run, if known. */
export function primaryKindOf(run: RunRecord, actor: string): string | undefined {
  const name = controllerOf(actor);
  if (name === undefined) return undefined;
  const i = run.controllers.indexOf(name);
  return i < 0 ? undefined : run.primaryKinds[i];
}

/** The last reconcile of a key (by any controller, or one controller) that started before `before`. */
export function lastReconcile(tl: Timeline, key: string, before = Infinity, controller?: string): ReconcileSpan | undefined {
  for (let i = tl.reconciles.length - 1; i >= 0; i--) {
    const r = tl.reconciles[i]!;
    if (r.start < before && r.key === key && (controller === undefined || r.controller === controller)) return r;
  }
  return undefined;
}

/** The last controller write to an object before `before`. */
export function lastWrite(tl: Timeline, kind: string, key: string, before = Infinity): TimelineWrite | undefined {
  for (let i = tl.writes.length - 1; i >= 0; i--) {
    const w = tl.writes[i]!;
    if (w.t < before && w.kind === kind && w.key === key && w.actor.startsWith('controller:')) return w;
  }
  return undefined;
}
