import type { ProbeResult, ProbeSample, RunRecord } from '../../src/harness/property.js';
import type { WorldView } from '../../src/harness/world.js';
import type { JsonObject, StoredObject } from '../../src/store/object.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { isRecord } from './json.js';
import { electionWrites, leftOut } from './election.js';
import { keyOfObject } from './primary.js';
import { byScheduledWork, firedBy, scheduledWork, type ScheduledSpan } from './scheduled.js';
import { primaryKindOf, timelineOf, type ProgramSpan, type ReconcileSpan, type Timeline } from './timeline.js';

/**
 * The default convergence judgement: Anvil's Eventually Stable Reconciliation, in three parts.
 * (a) *declared*: only primary objects that exist with the spec the user last declared (same
 * uid, not being deleted, the user's last action on them accepted) carry an obligation; (b)
 * *quiet*: no controller writes, no reconcile errors, no immediate requeues (resyncs and
 * requeueAfter that write nothing are quiet); (c) *reported*: where the controller reports
 * `status.observedGeneration` (or a condition's `observedGeneration`) for a kind, it equals
 * `metadata.generation`. A user predicate replaces (c).
 * @internal
 */

/** Actors whose creates and spec writes declare desired state: the user, and the recreation fault (`kubectl delete && kubectl apply`). */
const DECLARING = new Set(['user', 'environment:recreation']);

/** Objects kept per probe sample (a world of a million objects must not make samples huge). */
const MAX_SAMPLED = 100;

/** One primary object as the probe saw it when it was not fully reported. */
export interface SampledObject {
  kind: string;
  key: string;
  uid: string;
  generation: number;
  /** `status.observedGeneration`, null when absent. */
  observedGeneration: number | null;
  /** Types of conditions whose `observedGeneration` is set and differs from the generation. */
  staleConditions: string[];
  /** The object reports an observedGeneration somewhere (status or a condition). */
  reported: boolean;
  /** `status.replicas 2 ≠ spec.replicas 3`: same-named spec and status fields that disagree (for explanations). */
  mismatches: string[];
}

function reportedGeneration(o: StoredObject): { reported: boolean; og: number | null; staleConditions: string[] } {
  const status = isRecord(o.status) ? o.status : {};
  const og = typeof status['observedGeneration'] === 'number' ? status['observedGeneration'] : null;
  const staleConditions: string[] = [];
  let reported = og !== null;
  const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
  for (const c of conditions) {
    if (!isRecord(c) || typeof c['observedGeneration'] !== 'number') continue;
    reported = true;
    if (c['observedGeneration'] !== o.metadata.generation) staleConditions.push(String(c['type'] ?? '?'));
  }
  return { reported, og, staleConditions };
}

function mismatches(o: StoredObject): string[] {
  const out: string[] = [];
  if (!isRecord(o.spec) || !isRecord(o.status)) return out;
  for (const [k, v] of Object.entries(o.spec)) {
    if (!(k in o.status)) continue;
    const s = (o.status as Record<string, unknown>)[k];
    if (JSON.stringify(s) !== JSON.stringify(v)) out.push(`status.${k} ${JSON.stringify(s)} ≠ spec.${k} ${JSON.stringify(v)}`);
  }
  return out;
}

/** The objects among these (not being deleted) that do not report a generation equal to theirs, and the kinds that report one. */
export function sampleObjects(objects: Iterable<StoredObject>): { objects: SampledObject[]; reporting: string[]; more: number } {
  const out: SampledObject[] = [];
  const reporting = new Set<string>();
  let more = 0;
  for (const o of objects) {
    if (o.metadata.deletionTimestamp !== undefined) continue;
    const r = reportedGeneration(o);
    if (r.reported) reporting.add(o.kind);
    if (r.reported && (r.og === null || r.og === o.metadata.generation) && r.staleConditions.length === 0) continue;
    if (out.length >= MAX_SAMPLED) {
      more++;
      continue;
    }
    out.push({ kind: o.kind, key: keyOfObject(o), uid: o.metadata.uid, generation: o.metadata.generation, observedGeneration: r.og, staleConditions: r.staleConditions, reported: r.reported, mismatches: mismatches(o) });
  }
  return { objects: out, reporting: [...reporting].sort(), more };
}

/**
 * The default convergence probe over a world view: the primary objects that do not (yet) report
 * their generation, as data for the judge, which decides which of them carry an obligation.
 * `ok` is the strict reading (every primary object reports its generation). Without the primary
 * kinds (a harness that passes no probe context), objects of any kind that report one count.
 */
export function esrProbe(kinds: readonly string[] | undefined): (view: WorldView) => ProbeResult {
  // the objects of the last sample and what was made of them: the view's objects are immutable
  // snapshots, so the same snapshots in the same order give the same result (most samples see a
  // world that did not change since the one before; they share the result's data)
  let last: { objs: StoredObject[]; result: ProbeResult } | undefined;
  return (view) => {
    if (kinds && last && unchanged(view, kinds, last.objs)) return last.result;
    const objs: StoredObject[] = [];
    // no spread: a kind may hold a million objects (more than a call's arguments)
    if (kinds) for (const k of kinds) for (const o of view.list(k)) objs.push(o);
    else for (const k of view.kinds()) for (const o of view.list(k)) if (reportedGeneration(o).reported) objs.push(o);
    if (last && sameObjects(last.objs, objs)) return last.result;
    const s = sampleObjects(objs);
    const data: JsonObject = { objects: s.objects as unknown as JsonObject[], reporting: s.reporting, ...(s.more > 0 ? { more: s.more } : {}) };
    const result: ProbeResult = s.objects.length === 0 && s.more === 0 ? { ok: true, data } : { ok: false, data };
    last = { objs, result };
    return result;
  };
}

/** Whether the view's objects of `kinds` are exactly the snapshots `before`, in order (no list of them built). */
function unchanged(view: WorldView, kinds: readonly string[], before: readonly StoredObject[]): boolean {
  let i = 0;
  for (const k of kinds) for (const o of view.list(k)) if (before[i++] !== o) return false;
  return i === before.length;
}

function sameObjects(a: readonly StoredObject[], b: readonly StoredObject[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The sampled objects of a probe sample (empty for samples of a user predicate). */
export function sampledOf(s: ProbeSample): SampledObject[] {
  const objs = s.data?.['objects'];
  return Array.isArray(objs) ? (objs as unknown as SampledObject[]) : [];
}

/** Kinds that report an observedGeneration anywhere in these runs (probe samples and end states). */
export function reportingKinds(runs: readonly (RunRecord | undefined)[], probe: string): Set<string> {
  const out = new Set<string>();
  for (const run of runs) if (run) for (const k of reportingKindsOf(run, probe)) out.add(k);
  return out;
}

/** Per run and probe, the kinds that report an observedGeneration (several properties ask, of the run and of its twin). */
const reportingCache = new WeakMap<RunRecord, Map<string, ReadonlySet<string>>>();

function reportingKindsOf(run: RunRecord, probe: string): ReadonlySet<string> {
  let byProbe = reportingCache.get(run);
  if (!byProbe) reportingCache.set(run, (byProbe = new Map()));
  const hit = byProbe.get(probe);
  if (hit) return hit;
  const out = new Set<string>();
  for (const s of run.probes[probe] ?? []) {
    const r = s.data?.['reporting'];
    if (Array.isArray(r)) for (const k of r) out.add(String(k));
  }
  // as sampleObjects' `reporting`: kinds of objects not being deleted that report a generation
  for (const objects of [run.settledObjects, run.finalObjects]) for (const o of objects) if (o.metadata.deletionTimestamp === undefined && !out.has(o.kind) && reportedGeneration(o).reported) out.add(o.kind);
  byProbe.set(probe, out);
  return out;
}

/** Why an object carries no obligation at some time. */
export type NoObligation =
  | { why: 'not-accepted'; action: string; error: string; t: number }
  | { why: 'not-declared' }
  | { why: 'deleted'; t: number }
  | { why: 'spec-changed'; actor: string; t: number };

interface KeyState {
  uid: string | undefined;
  deletedAt: number | undefined;
  specBy: { actor: string; t: number } | undefined;
  failed: { action: string; error: string; t: number } | undefined;
}

/** (a): who declared what, per primary object key, replayed along the trace. */
export class Declarations {
  private readonly states = new Map<string, KeyState>();
  private i = 0;
  private tail = false;
  private readonly kinds: Set<string>;

  constructor(
    private readonly trace: readonly TraceEntry[],
    kinds: readonly string[],
  ) {
    this.kinds = new Set(kinds);
  }

  /** Replays trace entries up to and including time `t` (calls must come in time order). */
  advanceTo(t: number): this {
    for (; this.i < this.trace.length && this.trace[this.i]!.t <= t; this.i++) this.apply(this.trace[this.i]!);
    return this;
  }

  private state(kind: string, key: string): KeyState {
    const id = `${kind} ${key}`;
    let s = this.states.get(id);
    if (!s) this.states.set(id, (s = { uid: undefined, deletedAt: undefined, specBy: undefined, failed: undefined }));
    return s;
  }

  private apply(e: TraceEntry): void {
    if (e.type === 'run:phase' && e['phase'] === 'tail') this.tail = true;
    const kind = typeof e['kind'] === 'string' ? e['kind'] : '';
    if (e.type === 'user:action') {
      // the tail's re-applied specs are the harness's probes, not the user's intent
      if (this.tail || !this.kinds.has(kind)) return;
      const s = this.state(kind, String(e['key'] ?? ''));
      s.failed = typeof e['error'] === 'string' ? { action: String(e['action'] ?? 'action'), error: e['error'], t: e.t } : undefined;
      return;
    }
    if (e.type !== 'store:write' || !this.kinds.has(kind) || typeof e['error'] === 'string') return;
    const actor = String(e['actor'] ?? '');
    const s = this.state(kind, String(e['key'] ?? ''));
    const uid = typeof e['uid'] === 'string' ? e['uid'] : undefined;
    if (e['removed'] === true) {
      if (uid === s.uid) s.uid = undefined;
      return;
    }
    if (DECLARING.has(actor)) {
      if (e['verb'] === 'create') {
        s.uid = uid;
        s.deletedAt = undefined;
        s.specBy = undefined;
      } else if (e['markedForDeletion'] === true || e['verb'] === 'delete') {
        if (uid === s.uid) s.deletedAt = e.t;
      } else if (uid === s.uid && desiredStateChanged(e)) s.specBy = undefined;
      return;
    }
    if (uid !== undefined && uid === s.uid && e['noop'] !== true && desiredStateChanged(e)) s.specBy = { actor, t: e.t };
  }

  /** Whether the object (by its uid) carries an obligation now, or why not. */
  obligation(kind: string, key: string, uid: string): true | NoObligation {
    const s = this.states.get(`${kind} ${key}`);
    if (s?.failed) return { why: 'not-accepted', ...s.failed };
    if (!s || s.uid === undefined || s.uid !== uid) return { why: 'not-declared' };
    if (s.deletedAt !== undefined) return { why: 'deleted', t: s.deletedAt };
    if (s.specBy) return { why: 'spec-changed', ...s.specBy };
    return true;
  }

  /** Whether the object of this key the user declared exists now with the declared spec (its uid unknown to the caller). */
  declared(kind: string, key: string): boolean {
    const s = this.states.get(`${kind} ${key}`);
    return s !== undefined && s.uid !== undefined && s.deletedAt === undefined && s.specBy === undefined && s.failed === undefined;
  }

  /** Keys whose last user action (so far) failed: the user's desired state was never accepted. */
  notAccepted(): { kind: string; key: string; action: string; error: string; t: number }[] {
    const out: { kind: string; key: string; action: string; error: string; t: number }[] = [];
    for (const [id, s] of this.states) {
      if (!s.failed) continue;
      const sp = id.indexOf(' ');
      out.push({ kind: id.slice(0, sp), key: id.slice(sp + 1), ...s.failed });
    }
    return out.sort((a, b) => a.t - b.t);
  }
}

/** A write that changes desired state: anything outside metadata and status (spec, and top-level fields such as a Secret's data). */
function desiredStateChanged(e: TraceEntry): boolean {
  const changed = Array.isArray(e['changed']) ? (e['changed'] as unknown[]).map(String) : [];
  return changed.some((p) => !(p === 'metadata' || p.startsWith('metadata.') || p === 'status' || p.startsWith('status.')));
}

/** One thing that keeps the world from being quiet. */
export interface Noise {
  t: number;
  what: 'write' | 'error' | 'requeue';
  actor: string;
  /** `Kind key` of a write, the reconcile key otherwise. */
  object: string;
  /** Fields a write changed, or the error. */
  detail: string;
}

/**
 * (b): everything that breaks quiet in a run, in time order: controller writes that changed
 * something (kinds in `ignoreKinds` and Lease renewals at an elector's pace aside), reconciles that
 * failed, and immediate requeues. With `scheduledFrom`, the writes of scheduled work from then on
 * are not noise (see `scheduled.ts`: a reconcile the controller's own `requeueAfter` timer started
 * on a world at a fixed point, and what follows from it, such as recording the Job it started
 * finishing): a schedule whose period is shorter than `stableFor` checks moves the world on
 * purpose, as idempotence and no-hot-loop already judge it; a reconcile that feeds itself, a poll
 * that writes every time, or a timer that only stamps its own object, is still noise.
 */
export function noiseOf(run: RunRecord, ignoreKinds: readonly string[], scheduledFrom?: number): Noise[] {
  const tl = timelineOf(run);
  const ignore = new Set(ignoreKinds);
  // a copy: scheduledWork's set is shared by every property that asks (and stamps are noise only here)
  const scheduled = scheduledFrom === undefined ? undefined : new Set(scheduledWork(tl, scheduledFrom, { catchingUp: true, election: electionWrites(run) }));
  if (scheduled) for (const s of stamps(run, tl, scheduled)) scheduled.delete(s);
  const out: Noise[] = [];
  for (const w of tl.writes) {
    if (!w.actor.startsWith('controller:') || w.error !== undefined || w.noop || leftOut(run, ignore, w)) continue;
    if (scheduled && byScheduledWork(w, scheduled)) continue;
    out.push({ t: w.t, what: 'write', actor: w.actor, object: `${w.kind} ${w.key}`, detail: w.removed ? 'removed it' : w.verb === 'create' ? 'created it' : w.changed.join(', ') || w.verb });
  }
  for (const r of tl.reconciles) {
    if (r.end === undefined || (r.result !== 'error' && r.result !== 'requeue')) continue;
    out.push({ t: r.end, what: r.result === 'error' ? 'error' : 'requeue', actor: r.actor, object: r.key, detail: r.error ?? '' });
  }
  return out.sort((a, b) => a.t - b.t);
}

/**
 * The scheduled reconciles (see {@link noiseOf}) that a timer started and that changed nothing
 * but their own object: a poll that stamps its status (`lastPolledAt`) every few seconds moves
 * nothing in the world, and stays noise; a slot's reconcile makes its Job, and the reactions to
 * the Job running and finishing are started by the environment, not by a timer. A hosted
 * program's schedule firing is a stamp when all it changed was objects of its primary kind that
 * it neither created nor removed.
 */
function stamps(run: RunRecord, tl: Timeline, scheduled: ReadonlySet<ScheduledSpan>): (ReconcileSpan | ProgramSpan)[] {
  const own = new Map<ReconcileSpan | ProgramSpan, boolean>();
  for (const w of tl.writes) {
    const r = w.reconcile ?? w.program;
    // a Lease renewal at an elector's pace (the runtime's lands in whichever reconcile is running) is no change of the reconcile's
    if (!r || !scheduled.has(r) || w.noop || w.error !== undefined || (w.kind === 'Lease' && electionWrites(run).has(w.index))) continue;
    const primary = w.kind === primaryKindOf(run, r.actor);
    const mine = 'key' in r ? w.key === r.key && primary : primary && w.verb !== 'create' && !w.removed;
    own.set(r, (own.get(r) ?? true) && mine);
  }
  const prev = new Map<string, ReconcileSpan>();
  const out: (ReconcileSpan | ProgramSpan)[] = [];
  for (const span of tl.reconciles) {
    const k = `${span.actor}\u0000${span.key}`;
    const p = prev.get(k);
    prev.set(k, span);
    if (own.get(span) === true && p !== undefined && firedBy(p, span)) out.push(span);
  }
  for (const span of tl.programSpans) if (own.get(span) === true) out.push(span);
  return out;
}

/**
 * Retries still owed at time `t`: keys whose last finished reconcile (per controller process)
 * failed or asked for an immediate requeue, so the rate-limited queue will run them again. Under
 * exponential backoff a failing key goes seconds without noise between retries; while its object
 * is one the user declared, the controller is not done with it. A crash empties the process's
 * queue.
 */
export class PendingRetries {
  private readonly ends: { t: number; actor: string; key: string; pending: Noise | undefined; crash: boolean }[] = [];
  private i = 0;
  private readonly owed = new Map<string, Map<string, Noise>>();

  constructor(run: RunRecord) {
    const tl = timelineOf(run);
    for (const r of tl.reconciles) {
      if (r.end === undefined || r.result === 'crashed' || r.result === 'stopped') continue;
      const pending = r.result === 'error' || r.result === 'requeue' ? { t: r.end, what: r.result === 'error' ? ('error' as const) : ('requeue' as const), actor: r.actor, object: r.key, detail: r.error ?? '' } : undefined;
      this.ends.push({ t: r.end, actor: r.actor, key: r.key, pending, crash: false });
    }
    // a crash empties the process's queue; a stopped replica, or one that lost the Lease, runs none of it
    for (const c of tl.crashes) this.ends.push({ t: c.t, actor: `controller:${String(c['controller'])}/${Number(c['replica'] ?? 0)}`, key: '', pending: undefined, crash: true });
    for (const e of run.trace) {
      if (e.type === 'controller:stop') this.ends.push({ t: e.t, actor: `controller:${String(e['controller'])}/${Number(e['replica'] ?? 0)}`, key: '', pending: undefined, crash: true });
      else if (e.type === 'controller:leader' && e['leader'] === false) this.ends.push({ t: e.t, actor: `controller:${String(e['identity']).replace(/-(\d+)$/, '/$1')}`, key: '', pending: undefined, crash: true });
    }
    this.ends.sort((a, b) => a.t - b.t);
  }

  /** The retries owed at `t` (calls must come in time order), for keys `keep` accepts. */
  at(t: number, keep: (actor: string, key: string) => boolean = () => true): Noise[] {
    for (; this.i < this.ends.length && this.ends[this.i]!.t <= t; this.i++) {
      const e = this.ends[this.i]!;
      if (e.crash) {
        this.owed.delete(e.actor);
        continue;
      }
      let m = this.owed.get(e.actor);
      if (!m) this.owed.set(e.actor, (m = new Map()));
      if (e.pending) m.set(e.key, e.pending);
      else m.delete(e.key);
    }
    const out: Noise[] = [];
    for (const m of this.owed.values()) for (const n of m.values()) if (keep(n.actor, n.object)) out.push(n);
    return out;
  }
}

/** Noise in the interval (from, to]. */
export function noiseIn(noise: readonly Noise[], from: number, to: number): Noise[] {
  let lo = 0;
  let hi = noise.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (noise[mid]!.t <= from) lo = mid + 1;
    else hi = mid;
  }
  const out: Noise[] = [];
  for (let i = lo; i < noise.length && noise[i]!.t <= to; i++) out.push(noise[i]!);
  return out;
}

/** One sample judged by (a) and (c): the objects that carry an obligation and fail it. */
export interface StateVerdict {
  ok: boolean;
  failing: SampledObject[];
  /** Sampled objects let off, and why (for explanations). */
  excused: { object: SampledObject; why: NoObligation }[];
}

/** (a)+(c) on one sample of the default probe. */
export function judgeState(s: ProbeSample, declarations: Declarations, reporting: ReadonlySet<string>): StateVerdict {
  declarations.advanceTo(s.t);
  const failing: SampledObject[] = [];
  const excused: StateVerdict['excused'] = [];
  for (const o of sampledOf(s)) {
    if (!o.reported && !reporting.has(o.kind)) continue; // (c): this kind does not report a generation
    const ob = declarations.obligation(o.kind, o.key, o.uid);
    if (ob === true) failing.push(o);
    else excused.push({ object: o, why: ob });
  }
  return { ok: failing.length === 0 && !(s.data?.['more'] !== undefined && Number(s.data['more']) > 0), failing, excused };
}

/** One object that fails (c), in words. */
export function fmtSampled(u: SampledObject): string {
  const og = u.observedGeneration === null ? 'unset' : String(u.observedGeneration);
  const conds = u.staleConditions.length > 0 ? `, conditions ${u.staleConditions.join(', ')} observed another generation` : '';
  return `${u.kind} ${u.key} has status.observedGeneration ${og} ≠ generation ${u.generation}${conds}${u.mismatches.length ? ` (${u.mismatches.join(', ')})` : ''}`;
}
