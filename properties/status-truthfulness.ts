import { defineProperty, nothingToJudge, type Probe, type ProbeContext, type ProbeSample, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { WorldView } from '../src/harness/world.js';
import { keyOf, type StoredObject } from '../src/store/object.js';
import type { WriteRecord } from '../src/store/store.js';
import type { TraceEntry } from '../src/sim/trace.js';
import { WORKLOAD_KINDS, workloadReady } from '../src/environment/workload-ready.js';
import { explanation, fmtActor, fmtDuration, fmtFault, fmtPaths, fmtTime, letFacts } from '../src/report/explain.js';
import { deploymentMinimumAvailability } from './_internals/deployment-availability.js';

/** Options of {@link statusTruthfulness}. @public */
export interface StatusTruthfulnessOptions {
  /** Kinds whose status is judged. @defaultValue the controllers' primary kinds */
  kinds?: string[];
  /**
   * What the controller claims for an object.
   * @defaultValue a `Ready` or `Available` condition with status "True", or `status.ready === true`
   */
  reported?: (object: StoredObject) => boolean;
  /**
   * What "actually ready" means for an object; a string means "no, because …".
   * @defaultValue every workload it controls (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, Pod, PersistentVolumeClaim, by controller ownerReference) is ready by `workloadReady`, and so is every other object it controls that controls workloads in turn (a custom resource child with its own workloads); a Deployment judged itself is ready as Kubernetes means `Available` (its ReplicaSets, old and new, have at least `replicas − maxUnavailable` pods available); an object that controls none, transitively, is not judged, and neither is a run without environment actors (nothing ever becomes ready there)
   */
  actual?: (object: StoredObject, view: WorldView) => boolean | string;
  /** How long a claim may stand while it is false (watch latency plus the reconcile that notices). @defaultValue 1000 */
  lagMs: number;
  /**
   * How long readiness may go unreported, and a claim that went stale while faults acted may
   * stand, counted from when faults stop at the earliest. @defaultValue 10_000
   */
  boundMs: number;
}

const NAME = 'status-truthfulness';

/** One object whose status disagrees with reality at a sample (the probe's detail is a JSON list of these). */
interface Mismatch {
  kind: string;
  key: string;
  /** `claim`: reports Ready while not ready; `unreported`: ready but not reported. */
  type: 'claim' | 'unreported';
  why: string;
}

interface Interval extends Mismatch {
  start: number;
  end: number;
  /** Index of the sample that opened it (the write that caused it, when samples follow writes). */
  index: number;
  /** Index of the sample that closed it (the number of samples when it is open at the end). */
  endIndex: number;
  /** Open at the end of the run. */
  open: boolean;
}

/**
 * Status truthfulness (SPEC §5; SPEC §1: "apply succeeded" is not "available"): the controller
 * reports Ready/Available only while the object is actually ready, beyond a small lag, and does
 * report it once that has held for a bound.
 *
 * Judged from a probe sampled after every store write (both sides change only on writes, so the
 * timeline is exact). A claim the controller writes while the object is not ready fails after
 * `lagMs`, in any phase, unless a fault acting between the store and the controller (lost,
 * delayed or stale views; not the environment's own faults) fired before it: then the
 * controller may have been shown a stale world, and the claim must only be corrected within
 * `boundMs` after faults stop. A claim that goes stale under the controller (a pod is evicted
 * while it says Ready) fails after `lagMs` once faults have stopped; while faults act, within
 * `boundMs` after they stop. Readiness must be reported within `boundMs`, counted from when faults stop at the
 * earliest. With the default `actual`, an object that controls no workload (directly or through the objects it controls) is not judged, nor
 * is a run without environment actors (nothing ever becomes ready there): pass `actual` to
 * judge anything else.
 *
 * Only the controllers' own claims are judged: the probe notes, after every write, which objects'
 * readiness claim (the Ready/Available conditions' statuses, `status.ready`, a readiness phase; or
 * the value of a given `reported`) the write changed, so each claim has an author. A mismatch whose
 * claim was set, all along, by another writer (the environment's Deployment controller writes a
 * Deployment's `Available`, a person writes a status by hand) is someone else's report, not the
 * controller's: a Reloader-like controller `for: 'Deployment'` that only restarts pods is not held
 * to the Deployment controller's `Available`. A claim a fault wrote (drift) keeps the author it had;
 * one whose author is unknown (set before the probe ran, or at a write to another object) is judged.
 * @example properties.statusTruthfulness({ actual: (app, view) => view.list('Pod').filter(isMine(app)).every(isReady) })
 * @public
 */
export const statusTruthfulness = defineProperty<StatusTruthfulnessOptions>({
  name: NAME,
  description: 'the controller reports Ready only while the object is actually ready (beyond a small lag), and reports it once it has been ready for a bound',
  defaults: { lagMs: 1000, boundMs: 10_000 },
  validate: (o) => {
    if (!(o.lagMs >= 0)) return `lagMs must be ≥ 0 virtual ms, got ${String(o.lagMs)}`;
    if (!(o.boundMs >= 0)) return `boundMs must be ≥ 0 virtual ms, got ${String(o.boundMs)}`;
    if (o.kinds !== undefined && (!Array.isArray(o.kinds) || o.kinds.some((k) => typeof k !== 'string'))) return 'kinds must be a list of kind names';
    if (o.reported !== undefined && typeof o.reported !== 'function') return 'reported must be a function (object) => boolean';
    if (o.actual !== undefined && typeof o.actual !== 'function') return 'actual must be a function (object, view) => boolean | string';
    return undefined;
  },
  probes: (o, ctx) => [probe(o, ctx)],
  judge,
});

/** The default claim: a Ready or Available condition with status True, `status.ready === true`, or `status.phase` Ready or Available. */
export function defaultReported(o: StoredObject): boolean {
  const c = o.status['conditions'];
  if (Array.isArray(c)) {
    for (const x of c) {
      if (x !== null && typeof x === 'object' && !Array.isArray(x) && (x['type'] === 'Ready' || x['type'] === 'Available') && x['status'] === 'True') return true;
    }
  }
  return o.status['ready'] === true || o.status['phase'] === 'Ready' || o.status['phase'] === 'Available';
}

/** Whether an object's status says anything about readiness, true or false (the default claim's vocabulary): a Ready or Available condition, `status.ready`, or a phase in readiness words. */
function speaksReadiness(o: StoredObject): boolean {
  const c = o.status['conditions'];
  if (Array.isArray(c) && c.some((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && (x['type'] === 'Ready' || x['type'] === 'Available'))) return true;
  // a phase speaks of readiness only in readiness words (`Progressing`/`Promoted` is a rollout's, not a claim)
  return typeof o.status['ready'] === 'boolean' || READINESS_PHASES.has(String(o.status['phase']));
}

const READINESS_PHASES: ReadonlySet<string> = new Set(['Ready', 'Available', 'NotReady', 'Unavailable', 'Unready']);

/**
 * The default "actually ready": every workload it controls is ready, and so is every other
 * object it controls that controls workloads in turn (an App's Database custom resource and
 * that Database's StatefulSet: the App is ready only once its database is); undefined (not
 * judged) when nothing it controls, transitively, is a workload.
 */
export function defaultActual(o: StoredObject, view: WorldView): true | string | undefined {
  return readinessOf(o, ownerIndex(view));
}

/** Kinds never judged and never followed: the environment's workloads (judged by `workloadReady`) and cluster plumbing. */
const NOT_JUDGED: ReadonlySet<string> = new Set([...WORKLOAD_KINDS, 'Lease', 'Event', 'Node', 'Namespace']);

/** Objects by the uid of their controlling owner: workloads, and the other objects that may control workloads. */
interface OwnerIndex {
  workloads: Map<string, StoredObject[]>;
  others: Map<string, StoredObject[]>;
}

function ownerIndex(view: WorldView): OwnerIndex {
  const index: OwnerIndex = { workloads: new Map(), others: new Map() };
  const add = (into: Map<string, StoredObject[]>, d: StoredObject) => {
    for (const r of d.metadata.ownerReferences) {
      if (r.controller !== true) continue;
      const list = into.get(r.uid);
      if (list) list.push(d);
      else into.set(r.uid, [d]);
    }
  };
  for (const kind of WORKLOAD_KINDS) for (const d of view.list(kind)) add(index.workloads, d);
  for (const kind of view.kinds()) if (!NOT_JUDGED.has(kind)) for (const d of view.list(kind)) if (d.metadata.ownerReferences.length > 0) add(index.others, d);
  return index;
}

function readinessOf(o: StoredObject, index: OwnerIndex, seen: Set<string> = new Set()): true | string | undefined {
  // a Deployment judged itself (a controller `for: 'Deployment'`): Available is minimum
  // availability, which a rollout keeps while the old ReplicaSet serves, not "every ReplicaSet ready"
  if (o.kind === 'Deployment') {
    const sets = (index.workloads.get(o.metadata.uid) ?? []).filter((d) => d.kind === 'ReplicaSet');
    const available = deploymentMinimumAvailability(o, sets);
    if (available !== undefined) return available;
  }
  seen.add(o.metadata.uid);
  const why: string[] = [];
  let judged = false;
  for (const d of index.workloads.get(o.metadata.uid) ?? []) {
    judged = true;
    const r = workloadReady(d);
    if (r !== true) why.push(r);
  }
  for (const c of index.others.get(o.metadata.uid) ?? []) {
    if (seen.has(c.metadata.uid) || c.metadata.deletionTimestamp !== undefined) continue;
    const r = readinessOf(c, index, seen);
    if (r === undefined) continue;
    judged = true;
    if (r !== true) why.push(`${c.kind} ${keyOf(c.metadata)}: ${r}`);
  }
  if (!judged) return undefined;
  return why.length === 0 ? true : why.slice(0, 3).join('; ') + (why.length > 3 ? `; and ${why.length - 3} more` : '');
}

function probe(o: StatusTruthfulnessOptions, ctx: ProbeContext | undefined): Probe {
  const reported = o.reported ?? defaultReported;
  const user = o.actual;
  // without a probe context, judge every kind that is not a workload the environment runs
  const kinds = o.kinds ?? ctx?.primaryKinds;
  // with the default definitions a sample depends only on the objects of the kinds judged, the
  // workloads and the objects that may control them (never on a Lease or an Event, the writes of
  // leader election and of the API): the same immutable snapshots give the last sample's answer
  const pure = o.reported === undefined && o.actual === undefined;
  // what a claim is made of, to know which write made it: the default claim's words, or the given claim's value
  const signature = o.reported === undefined ? claimSignature : (x: StoredObject) => (reported(x) ? 'true' : '');
  /** Per judged object (kind and key): the snapshot last seen, its uid and its claim's signature. */
  const claims = new Map<string, { obj: StoredObject; uid: string; sig: string }>();
  /** Kinds with an object whose actual readiness was defined at some sample (noted once, in the sample's data as `judged`). */
  const evaluated = new Set<string>();
  let last: { objs: StoredObject[]; result: true | string } | undefined;
  /** The list `last.objs` is refilled in (one list per run, not one per write that changed something). */
  const lastObjs: StoredObject[] = [];
  return {
    name: NAME,
    everyMs: 'write',
    phases: ['faults', 'settle', 'tail'],
    fn(view) {
      // the same snapshots: no claim changed either
      if (pure && last && unchanged(view, kinds, last.objs)) return last.result;
      const changed: ClaimChange[] = [];
      const newly: string[] = [];
      const result = sample(view, changed, newly);
      if (pure) {
        relevantObjects(view, kinds, lastObjs);
        if (last === undefined) last = { objs: lastObjs, result };
        else last.result = result;
      }
      if (changed.length === 0 && newly.length === 0) return result;
      const data = { ...(changed.length > 0 ? { claims: changed } : {}), ...(newly.length > 0 ? { judged: newly } : {}) };
      return result === true ? { ok: true, data } : { ok: false, detail: result, data };
    },
  };

  function sample(view: WorldView, changed: ClaimChange[], newly: string[]): true | string {
      const out: Mismatch[] = [];
      // built once per sample, and only when an object is judged by the default definition
      let index: OwnerIndex | undefined;
      for (const kind of kinds ?? view.kinds().filter((k) => !NOT_JUDGED.has(k))) {
        for (const obj of view.list(kind)) {
          if (obj.metadata.deletionTimestamp !== undefined) continue;
          const key = keyOf(obj.metadata);
          noteClaim(kind, key, obj, changed);
          const a = user ? user(obj, view) : readinessOf(obj, (index ??= ownerIndex(view)));
          if (a === undefined) continue;
          if (!evaluated.has(kind)) {
            evaluated.add(kind);
            newly.push(kind);
          }
          const r = reported(obj);
          if (r === (a === true)) continue;
          out.push({ kind, key, type: r ? 'claim' : 'unreported', why: r ? (typeof a === 'string' ? a : 'not ready') : 'it is actually ready' });
        }
      }
      return out.length === 0 ? true : JSON.stringify(out);
  }

  /** Notes in `changed` an object whose claim changed since the last sample (the write this sample follows made it), or that is new. */
  function noteClaim(kind: string, key: string, obj: StoredObject, changed: ClaimChange[]): void {
    const id = `${kind}\u0000${key}`;
    const had = claims.get(id);
    if (had !== undefined && had.obj === obj) return;
    const sig = signature(obj);
    const fresh = had === undefined || had.uid !== obj.metadata.uid;
    if (fresh || sig !== had.sig) changed.push([kind, key, fresh ? 1 : 0, sig === '' ? 0 : 1]);
    claims.set(id, { obj, uid: obj.metadata.uid, sig });
  }
}

/**
 * A change of an object's claim a sample saw: kind, key, 1 when the object is new to the probe
 * (a new object or a new incarnation), and 1 when it makes any claim now (0: it says nothing of readiness).
 */
type ClaimChange = [string, string, 0 | 1, 0 | 1];

/** The default claim's words in an object's status: the Ready/Available conditions' statuses, `status.ready`, a readiness phase ('' when it says nothing of readiness). */
function claimSignature(o: StoredObject): string {
  let sig = '';
  const c = o.status['conditions'];
  if (Array.isArray(c)) {
    for (const x of c) {
      if (x !== null && typeof x === 'object' && !Array.isArray(x) && (x['type'] === 'Ready' || x['type'] === 'Available')) sig += `${String(x['type'])}=${String(x['status'])};`;
    }
  }
  const ready = o.status['ready'];
  if (typeof ready === 'boolean') sig += `ready=${String(ready)};`;
  const phase = o.status['phase'];
  if (typeof phase === 'string' && READINESS_PHASES.has(phase)) sig += `phase=${phase};`;
  return sig;
}

/** Whether a default sample may read this kind: a judged kind, a workload, or a kind judged or followed. */
function relevant(kind: string, kinds: readonly string[] | undefined): boolean {
  return !NOT_JUDGED.has(kind) || WORKLOAD_KIND_SET.has(kind) || (kinds ?? []).includes(kind);
}

/** Every object a default sample may read, in the view's order. */
function relevantObjects(view: WorldView, kinds: readonly string[] | undefined, out: StoredObject[] = []): StoredObject[] {
  out.length = 0;
  for (const kind of view.kinds()) if (relevant(kind, kinds)) for (const o of view.list(kind)) out.push(o);
  return out;
}

/** Whether the view holds exactly the snapshots `before` (as {@link relevantObjects} lists them), without listing them anew. */
function unchanged(view: WorldView, kinds: readonly string[] | undefined, before: readonly StoredObject[]): boolean {
  let i = 0;
  for (const kind of view.kinds()) {
    if (!relevant(kind, kinds)) continue;
    for (const o of view.list(kind)) if (before[i++] !== o) return false;
  }
  return i === before.length;
}

const WORKLOAD_KIND_SET: ReadonlySet<string> = new Set(WORKLOAD_KINDS);

function parse(s: ProbeSample): Mismatch[] {
  if (s.ok || s.detail === undefined) return [];
  try {
    const v: unknown = JSON.parse(s.detail);
    return Array.isArray(v) ? (v as Mismatch[]) : [];
  } catch {
    return []; // a predicate that threw: nothing to judge at this sample
  }
}

/** Mismatch intervals per object, in order of their start. */
function intervalsOf(samples: readonly ProbeSample[], kinds: ReadonlySet<string>, end: number): Interval[] {
  const open = new Map<string, Interval>();
  const out: Interval[] = [];
  samples.forEach((s, index) => {
    const now = new Map<string, Mismatch>();
    for (const m of parse(s)) if (kinds.has(m.kind)) now.set(`${m.kind}\u0000${m.key}`, m);
    for (const [id, iv] of open) {
      const m = now.get(id);
      if (m && m.type === iv.type) continue;
      iv.end = s.t;
      iv.endIndex = index;
      iv.open = false;
      open.delete(id);
    }
    for (const [id, m] of now) {
      if (open.has(id)) continue;
      const iv: Interval = { ...m, start: s.t, end, index, endIndex: samples.length, open: true };
      open.set(id, iv);
      out.push(iv);
    }
  });
  return out;
}

/** A claim's author: the actor of the write that set it; '' when no one has claimed anything yet or the writer is unknown. */
interface Authorship {
  /** Index of the sample after which it holds. */
  index: number;
  author: string;
}

/**
 * Writers that tamper with what others wrote rather than report anything themselves: the faults
 * (drift's edit of a status, a recreation from the manifest). A claim they change keeps its author.
 */
const FAULT_WRITER = /^(fault:|environment:(drift|recreation)$)/;

/** Who set each object's claim, by kind and key, in sample order (from the claim changes the probe noted). */
function claimAuthors(run: RunRecord, samples: readonly ProbeSample[]): Map<string, Authorship[]> {
  const out = new Map<string, Authorship[]>();
  samples.forEach((s, index) => {
    const changes = s.data?.['claims'];
    if (!Array.isArray(changes)) return;
    const w = s.write !== undefined ? run.writes[s.write] : undefined;
    for (const c of changes) {
      if (!Array.isArray(c)) continue;
      const [kind, key, fresh, claims] = c as ClaimChange;
      let author: string;
      // a new object that says nothing of readiness: nobody has claimed anything of it yet
      if (fresh === 1 && claims === 0) author = '';
      // the write this sample follows is not to it: the claim was set before the probe ran (an initial object)
      else if (w === undefined || w.kind !== kind || w.key !== key) author = '';
      else if (FAULT_WRITER.test(w.actor)) {
        if (fresh === 0) continue;
        author = '';
      } else author = w.actor;
      const id = `${kind}\u0000${key}`;
      const list = out.get(id);
      if (list) list.push({ index, author });
      else out.set(id, [{ index, author }]);
    }
  });
  return out;
}

/**
 * The writer whose claim a mismatch is, when it is not the controllers': every claim of the
 * object in force during the interval (the one it opened under, and any set before it closed)
 * was set by an actor other than a controller under test (the environment's own controllers, a
 * person). Undefined when a controller set any of them, or an author is unknown: judged.
 */
function othersClaim(authors: readonly Authorship[] | undefined, iv: Interval): string | undefined {
  let inForce = '';
  const during: string[] = [];
  for (const a of authors ?? []) {
    if (a.index <= iv.index) inForce = a.author;
    else if (a.index < iv.endIndex) during.push(a.author);
    else break;
  }
  const others = (x: string) => x !== '' && !x.startsWith('controller:');
  return others(inForce) && during.every(others) ? inForce : undefined;
}

/** The controller write that opened a claim interval, if a controller made the claim. */
function claimWrite(run: RunRecord, samples: readonly ProbeSample[], iv: Interval): WriteRecord | undefined {
  const mine = (w: WriteRecord | undefined) => w !== undefined && w.kind === iv.kind && w.key === iv.key && w.actor.startsWith('controller:') && !w.noop && w.error === undefined;
  // the probe samples after every write from the moment it is installed (after the setup
  // writes of t=0), so the last samples line up with the last writes
  const offset = run.writes.length - samples.length;
  const w = offset >= 0 ? run.writes[offset + iv.index] : undefined;
  if (w !== undefined && w.t === iv.start) return mine(w) ? w : undefined;
  return run.writes.find((x) => x.t === iv.start && mine(x));
}

interface Violation {
  iv: Interval;
  deadline: number;
  by: WriteRecord | undefined;
  /** The fault that may have hidden the truth from the controller before its claim. */
  blind?: TraceEntry;
  rule: 'claim' | 'claim-while-blind' | 'stale' | 'stale-after-faults' | 'unreported';
}

/**
 * Faults that change the world rather than what the controller sees of it: after them (and no
 * other) a controller that claims Ready had the truth in front of it.
 */
const WORLD_FAULT = /^(environment-|drift$|recreation$)/;

/** The last fault before `t` that acts between the store and the controller (lost, late or stale views). */
function blindingFault(run: RunRecord, t: number): TraceEntry | undefined {
  let found: TraceEntry | undefined;
  for (const e of run.trace) {
    if (e.t > t) break;
    if (e.type === 'fault:inject' && !WORLD_FAULT.test(String(e['kind'] ?? ''))) found = e;
  }
  return found;
}

function judge(run: RunRecord, o: StatusTruthfulnessOptions): Verdict {
  const samples = run.probes[NAME] ?? [];
  const kinds = new Set(o.kinds ?? run.primaryKinds);
  const end = run.timing.stoppedAt ?? run.timing.end;
  const { settleStart } = run.timing;
  if (o.actual === undefined && (run.scenario.environment ?? []).length === 0) {
    // with no environment actor nothing ever becomes ready, so a claim cannot be checked
    return nothingToJudge('no environment actor runs, so nothing ever becomes ready to hold a readiness claim against; pass `actual` to say what ready means without one');
  }
  const intervals = intervalsOf(samples, kinds, end);
  const authors = claimAuthors(run, samples);
  // a controller that never speaks of readiness for a kind (no Ready/Available condition, no
  // status.ready, no phase) makes no claim to hold to: "unreported" needs a vocabulary to report in
  const speaks = new Set<string>();
  if (o.reported !== undefined) for (const k of kinds) speaks.add(k);
  for (const x of [...run.settledObjects, ...run.finalObjects]) if (kinds.has(x.kind) && speaksReadiness(x)) speaks.add(x.kind);
  for (const iv of intervals) if (iv.type === 'claim') speaks.add(iv.kind);
  const violations: Violation[] = [];
  let worstLag = 0;
  // mismatches over claims another writer made (a Deployment's Available, the Deployment controller's)
  let othersClaims = 0;
  // mismatches held to the controllers (the others are not theirs, or not claims)
  let held = 0;
  for (const iv of intervals) {
    let v: Violation;
    if (iv.type === 'unreported' && !speaks.has(iv.kind)) continue;
    if (othersClaim(authors.get(`${iv.kind}\u0000${iv.key}`), iv) !== undefined) {
      othersClaims++;
      continue;
    }
    held++;
    if (iv.type === 'unreported') {
      v = { iv, deadline: Math.max(iv.start, settleStart) + o.boundMs, by: undefined, rule: 'unreported' };
      if (!iv.open) worstLag = Math.max(worstLag, iv.end - iv.start);
    } else {
      const by = claimWrite(run, samples, iv);
      const blind = by !== undefined && iv.start < settleStart ? blindingFault(run, iv.start) : undefined;
      if (by && blind) v = { iv, deadline: settleStart + o.boundMs, by, rule: 'claim-while-blind', blind };
      else if (by) v = { iv, deadline: iv.start + o.lagMs, by, rule: 'claim' };
      else if (iv.start >= settleStart) v = { iv, deadline: iv.start + o.lagMs, by, rule: 'stale-after-faults' };
      else v = { iv, deadline: settleStart + o.boundMs, by, rule: 'stale' };
    }
    if (iv.end > v.deadline && v.deadline < end) violations.push(v);
  }
  if (samples.length === 0 && run.writes.length > 0) {
    return fail(run, o, undefined, `the ${NAME} probe never ran: pass the property to simulate/check (options.properties) so it can sample the run`);
  }
  if (violations.length === 0) {
    const unjudged = held === 0 ? nothingJudged(samples, kinds, authors, o) : undefined;
    if (unjudged !== undefined) return nothingToJudge(unjudged, { mismatches: intervals.length, othersClaims });
    return { ok: true, stats: { judged: true, mismatches: intervals.length, othersClaims, maxReportLatencyMs: worstLag } };
  }
  violations.sort((a, b) => a.deadline - b.deadline || a.iv.start - b.iv.start);
  return fail(run, o, violations[0]!, undefined);
}

/**
 * Why a run without a mismatch held to the controllers judged no claim of theirs, if it did not:
 * no object of the judged kinds had a readiness to compare with (it controls no workload), or the
 * controllers never wrote a readiness claim on one that had.
 */
function nothingJudged(samples: readonly ProbeSample[], kinds: ReadonlySet<string>, authors: ReadonlyMap<string, readonly Authorship[]>, o: StatusTruthfulnessOptions): string | undefined {
  const evaluated = new Set<string>();
  for (const s of samples) {
    const j = s.data?.['judged'];
    if (Array.isArray(j)) for (const k of j) if (typeof k === 'string' && kinds.has(k)) evaluated.add(k);
  }
  const names = [...kinds].join(', ') || 'the primary kinds';
  if (evaluated.size === 0) {
    return o.actual === undefined
      ? `no ${names} object controls a workload (a Deployment, StatefulSet, Pod, …) whose readiness its claim could be held to; pass \`actual\` to say what ready means for it`
      : `no ${names} object existed while the probe ran`;
  }
  for (const [id, list] of authors) {
    if (evaluated.has(id.slice(0, id.indexOf('\u0000'))) && list.some((a) => a.author.startsWith('controller:'))) return undefined;
  }
  return `the controllers wrote no readiness claim (a Ready or Available condition, status.ready, a readiness phase) on ${[...evaluated].join(', ')}`;
}

function fail(run: RunRecord, o: StatusTruthfulnessOptions, v: Violation | undefined, problem: string | undefined): Verdict {
  if (!v) return { ok: false, summary: problem ?? NAME, explanation: explanation(letFacts(run.trace), [problem ?? '']), evidence: {} };
  const { iv } = v;
  const obj = `${iv.kind} ${iv.key}`;
  const until = iv.open ? `to the end of the run (${fmtTime(iv.end)})` : `until ${fmtTime(iv.end)}`;
  const settle = run.timing.settleStart;
  const lets = letFacts(run.trace, { until: iv.end });
  const then: string[] = [];
  let summary: string;
  switch (v.rule) {
    case 'claim':
      lets.unshift(`at ${fmtTime(iv.start)} ${fmtActor(v.by!.actor)} wrote ${fmtPaths(v.by!.changed)} of ${obj}, claiming it Ready, while it was not actually ready: ${iv.why}`);
      then.push(`the claim stood for ${fmtDuration(iv.end - iv.start)}, ${until}, beyond the allowed lag of ${fmtDuration(o.lagMs)}: the controller reported Ready without evidence that the workload was ready (apply succeeded is not available)`);
      summary = `${obj} reported Ready for ${fmtDuration(iv.end - iv.start)} while not actually ready (${iv.why})`;
      break;
    case 'claim-while-blind':
      lets.unshift(`at ${fmtTime(iv.start)}, while faults acted and after ${fmtFault(v.blind!)}, ${fmtActor(v.by!.actor)} wrote ${fmtPaths(v.by!.changed)} of ${obj}, claiming it Ready, while it was not actually ready: ${iv.why}`);
      then.push(`the claim stood ${until}, beyond ${fmtTime(v.deadline)}, the bound of ${fmtDuration(o.boundMs)} after faults stopped at ${fmtTime(settle)}: the controller never corrected a Ready it claimed without the workload being ready`);
      summary = `${obj} reported Ready while not actually ready, and still did more than ${fmtDuration(o.boundMs)} after faults stopped (${iv.why})`;
      break;
    case 'stale-after-faults':
      lets.unshift(`at ${fmtTime(iv.start)}, after faults stopped, ${obj} stopped being actually ready while its status still said Ready: ${iv.why}`);
      then.push(`the stale claim stood for ${fmtDuration(iv.end - iv.start)}, ${until}, beyond the allowed lag of ${fmtDuration(o.lagMs)}: the controller does not withdraw Ready when the workload stops being ready`);
      summary = `${obj} kept reporting Ready for ${fmtDuration(iv.end - iv.start)} after it stopped being ready (${iv.why})`;
      break;
    case 'stale':
      lets.unshift(`at ${fmtTime(iv.start)}, while faults acted, ${obj} stopped being actually ready while its status said Ready: ${iv.why}`);
      then.push(`the stale claim stood ${until}, beyond ${fmtTime(v.deadline)}, the bound of ${fmtDuration(o.boundMs)} after faults stopped at ${fmtTime(settle)}: the controller never withdrew Ready`);
      summary = `${obj} kept reporting Ready after it stopped being ready, more than ${fmtDuration(o.boundMs)} after faults stopped (${iv.why})`;
      break;
    case 'unreported':
      lets.unshift(`from ${fmtTime(iv.start)} ${obj} was actually ready (${o.actual ? 'by the given definition' : 'every workload it controls, directly or through the objects it controls, was ready'})`);
      then.push(
        `${iv.open ? `its status still did not say Ready at the end of the run (${fmtTime(iv.end)})` : `its status did not say Ready until ${fmtTime(iv.end)}`}, more than ${fmtDuration(o.boundMs)} after ${iv.start >= settle ? 'it became ready' : `faults stopped at ${fmtTime(settle)}`}: the controller does not report readiness it has (its last status: ${lastStatus(run, iv)})`,
      );
      summary = `${obj} was actually ready from ${fmtTime(iv.start)} but did not report Ready ${iv.open ? 'by the end of the run' : `until ${fmtTime(iv.end)}`}`;
      break;
  }
  const lastWrite = [...run.writes].reverse().find((w) => w.kind === iv.kind && w.key === iv.key && w.actor.startsWith('controller:') && w.t <= iv.end && !w.noop && w.error === undefined);
  if (lastWrite) then.push(`the controller last changed ${obj} at ${fmtTime(lastWrite.t)} (${fmtPaths(lastWrite.changed)})`);
  return {
    ok: false,
    summary,
    explanation: explanation(lets, then),
    evidence: {
      object: obj,
      rule: v.rule,
      start: iv.start,
      end: iv.end,
      open: iv.open,
      deadline: v.deadline,
      why: iv.why,
      lagMs: o.lagMs,
      boundMs: o.boundMs,
      claimedBy: v.by ? v.by.actor : null,
    },
  };
}

function lastStatus(run: RunRecord, iv: Interval): string {
  const o = (iv.open ? run.finalObjects : run.settledObjects).find((x) => x.kind === iv.kind && keyOf(x.metadata) === iv.key);
  return o ? JSON.stringify(o.status).slice(0, 160) : 'unknown';
}
