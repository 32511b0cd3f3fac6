import { keyOf, type Json } from '../store/object.js';
import { applyMergePatch } from '../store/merge-patch.js';
import { stableStringify } from '../sim/hash.js';
import { emptyFaultPlan, type FaultEvent } from './fault-plan.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import type { LearnedMasks, RunRecord } from './property.js';
import type { Scenario } from './scenario.js';
import type { World } from './world.js';
import type { FaultModule } from './fault.js';
import { objectOf } from './user-actions.js';

/** The same scenario with no faults: what the reconcilers do when nothing goes wrong. @public */
export function twinScenario(scenario: Scenario): Scenario {
  return { ...scenario, faults: emptyFaultPlan() };
}

/**
 * A benign variation of a fault-free run: things a healthy control plane does differently from
 * one run to the next, none of them a fault. Informer caches are hash maps (list order), watch
 * deliveries of different objects and different informers arrive with different latencies (one
 * object's events stay in order), and a resync may come at any time. A controller's view of its
 * own writes is not held back: that is the stale-cache fault, not a benign timing.
 * @internal
 */
export interface BenignVariation {
  /** Seeds the variation's choices. */
  seed: number;
  /** Extra latency of each watch delivery, drawn from [0, jitterMs] (per object in order). */
  jitterMs: number;
  /** Permute every list result of two or more objects. */
  shuffleLists: boolean;
  /**
   * With `shuffleLists`: draw each permutation but return the list in key order, so the run keeps
   * the timing draws of its shuffled self and differs from it by list order alone (see
   * {@link KEY_ORDER_VARIATIONS}).
   */
  listsInKeyOrder?: boolean;
  /** Re-enqueue every primary object's key at this time (an extra resync), if set. */
  resyncAt?: number;
  /**
   * Run the user's actions on different objects at one instant in the reverse order, and deliver
   * the first events of objects first seen at nearly the same time on different watches in the
   * reverse order (each object's first event holds it back `2 × (50 − rank)` ms; one watch stream
   * stays in resourceVersion order).
   */
  reverse?: boolean;
  /** Deliver each event of an object at least this long after the object's previous one (two writes at one instant seen one at a time). */
  spreadMs?: number;
  /**
   * Deliver the events of the user's changes of existing objects this much later (an informer
   * lagging behind a spec change): a controller acts a while longer on the declaration the user
   * replaced (a shard started for a run the user just shrank, then deleted).
   */
  lateUserChangeMs?: number;
  /** Hold the workers through each of the scenario's {@link busyWindows} (a busy controller). */
  busy?: boolean;
  /** Hold the workers of one controller from `at` for `ms` (a slow controller: one of its decisions comes later; see {@link slowPoints}). */
  slow?: { controller: string; at: number; ms: number; hosted?: boolean; key?: string };
  /** More holds besides `slow`'s, of one key each (or of every key, without one): a controller late at several points of one run (see {@link lagVariations}, {@link idleVariations}). */
  also?: { controller: string; at: number; ms: number; key?: string }[];
  /**
   * Restart a hosted program at `at` (a new incarnation at once) whose first answers, events and
   * timers wait until `at + ms`: a fresh look that lost nothing (see {@link restartPoints}).
   */
  restart?: { controller: string; at: number; ms: number };
  /** Start this hosted program this much later (its timers tick at another phase; see {@link phaseVariations}). */
  startDelay?: { controller: string; ms: number };
  /**
   * Answer one write of a controller this much later: the write (`verb` of `kind` `key`, made at
   * `at`) is applied on time and its reconcile goes on only `ms` later (a slow API response; see
   * {@link pausePoints}).
   */
  pause?: WritePause;
}

/** Where a {@link BenignVariation.pause} holds a reconcile: right after one of its writes. @internal */
export interface WritePause {
  controller: string;
  at: number;
  verb: string;
  kind: string;
  key: string;
  ms: number;
}

/** The longest the `busy` variation keeps a controller's workers from taking a key (virtual ms). */
export const BUSY_MAX_MS = 10_000;

/**
 * A stretch of a fault-free run through which a busy controller never reconciles: from a user
 * action (`from`) to the next one (`until`, at index `action` of the workload), which changes the
 * spec of an existing object of `kind`. @internal
 */
export interface BusyWindow {
  from: number;
  until: number;
  kind: string;
  action: number;
}

/** Whether `kind` is an input of `def`: neither its primary kind nor one it owns. */
function readsOnly(def: ControllerDefinition, kind: string): boolean {
  return def.for !== kind && !def.owns.includes(kind);
}

/**
 * The kinds that are an input of at least one of the scenario's controllers (see
 * {@link busyWindows}); without the definitions, none.
 * @internal
 */
export function inputKinds(defs: readonly ControllerDefinition[] | undefined, s: Scenario): (kind: string) => boolean {
  const names = new Set(s.controllers.map((c) => c.name));
  const mine = (defs ?? []).filter((d) => names.has(d.name) && d.process === undefined);
  return (kind) => mine.some((d) => readsOnly(d, kind));
}

/**
 * Where the `busy` variation holds a controller's workers: before each user action that changes
 * the spec of an existing object of an input kind (`isInput`: for some controller neither its
 * primary kind nor one it owns: a pool it allocates from, a config it reads) — an update, a patch
 * of its spec, an apply to it, not one that sets the spec it has — from the user's previous
 * action, when that came at most {@link BUSY_MAX_MS} before. The world as it was between those two actions is superseded by the user before the
 * controller acts on it: its keys wait (deduplicated) and are reconciled from the cache as it is
 * after the change. Held: the controllers that read the kind without owning it.
 *
 * Why it is a history a healthy control plane produces: nothing bounds how long a key waits in a
 * workqueue before a worker takes it. Workers busy with other keys, a slow API call, client-go's
 * overall token bucket (10 qps, burst 100: the 200th key of a resync waits 10 s) keep it waiting
 * for seconds, and a worker always reads the cache as it is when it starts. The informers are left
 * alone (every event reaches the cache and the handlers, in order, on time) and so are the
 * controller's own writes; nothing is lost, only reconciles start later. What it may hide, and
 * why so little: only the user's own declarations (never what a controller or the environment
 * wrote, whose transitions a controller must not miss for other reasons), only a state the same
 * user replaced within {@link BUSY_MAX_MS}, and only from the controllers that read the changed
 * kind without owning it (the others do not see it superseded). Never a change of a controller's
 * primary object or of one it owns: a level-triggered controller ends as the latest declaration of
 * those says, whatever it saw on the way, so an end that depends on which of its primary's specs
 * it saw is an edge-triggered bug (test/properties/learned-masks.test.ts: an allocator that acts
 * only on the first spec it sees), not a history; an input it only reads, such as a pool's size,
 * may decide a first-come-first-served grant it then keeps (a PersistentVolume, a port, a seat),
 * which is. Who uses it: same-end-state only, and only
 * to accept a run whose objects end exactly as in such a run (`alternatives`), never to mask a
 * path; recovery must not (a revert inside a window would look like no excursion at all).
 * @internal
 */
export function busyWindows(s: Scenario, isInput: (kind: string) => boolean): BusyWindow[] {
  const specs = new Map<string, string>();
  const id = (kind: string, key: string) => `${kind} ${key}`;
  // a generated name is never the key of a later action
  const named = (m: { namespace?: string | undefined; name?: string | undefined }) => (m.name === undefined ? '' : keyOf({ ...(m.namespace !== undefined ? { namespace: m.namespace } : {}), name: m.name }));
  for (const o of s.initialObjects) specs.set(id(o.kind, named(o.metadata)), stableStringify(o.spec ?? {}));
  const ordered = s.workload.map((a, i) => ({ a, i })).sort((x, y) => x.a.at - y.a.at || x.i - y.i);
  const out: BusyWindow[] = [];
  let prevAt: number | undefined;
  for (const { a, i } of ordered) {
    let changed: { kind: string; spec: string } | undefined;
    if (a.type === 'create' || a.type === 'apply') {
      const k = id(a.object.kind, named(a.object.metadata));
      const spec = stableStringify(a.object.spec ?? {});
      if (!specs.has(k)) specs.set(k, spec);
      else if (a.type === 'apply' && a.object.spec !== undefined && specs.get(k) !== spec) changed = { kind: a.object.kind, spec };
      if (changed) specs.set(k, spec);
    } else if (a.type === 'update' || (a.type === 'patch' && a.patch['spec'] !== undefined)) {
      const k = id(a.kind, a.key);
      const cur = specs.get(k);
      if (cur !== undefined) {
        const spec = a.type === 'update' ? stableStringify(a.spec) : stableStringify(applyMergePatch(JSON.parse(cur) as Json, a.patch['spec'] as Json));
        if (spec !== cur) {
          changed = { kind: a.kind, spec };
          specs.set(k, spec);
        }
      }
    } else if (a.type === 'delete') specs.delete(id(a.kind, a.key));
    else if (a.type === 'recreate' && a.object) specs.set(id(a.kind, a.key), stableStringify(a.object.spec ?? {}));
    if (changed && isInput(changed.kind) && prevAt !== undefined && prevAt < a.at && a.at - prevAt <= BUSY_MAX_MS) out.push({ from: prevAt, until: a.at, kind: changed.kind, action: i });
    if (prevAt === undefined || a.at > prevAt) prevAt = a.at;
  }
  return out;
}

/**
 * How much later the `slow` variation lets a timed controller make one of its decisions (virtual
 * ms), geometric up to {@link BUSY_MAX_MS}: a decision that flips when it comes later flips for
 * every delay past its margin (a starting deadline, the next slot), so three lengths cover
 * margins of up to ten seconds.
 */
export const SLOW_HOLDS_MS: readonly number[] = [1000, 3000, BUSY_MAX_MS];

/** At most this many decision points get `slow` variations (evenly spread over those of the twin). */
export const SLOW_MAX_POINTS = 12;

/** Reconciles of one controller that begin this close after a decision point (the events of its own writes) are held with it. */
const SLOW_MERGE_MS = 10;

/**
 * How long after a contending key's decision began a key held alone is let go (that decision's
 * calls and writes done). Why a history a healthy control plane produces: a key's reconcile may
 * wait for seconds while the others go on (its own backoff after a failure, a notification lost
 * until the next relist, a worker busy elsewhere).
 */
const CONTENTION_SLACK_MS = 1000;

/** A decision of a controller in a fault-free run that a delay may move (see {@link slowPoints}): a reconcile that began at `at` and changed something. @internal */
export interface SlowPoint {
  controller: string;
  at: number;
  /**
   * The key reconciled there, when other keys of the controller decided later in the fault
   * window (first come, first served): that key is also held alone until {@link keyUntil}, so
   * each of the others makes its next decision first. Not when the user changed the key's own
   * object meanwhile.
   */
  key?: string;
  /** Until when the key is held alone: the others' next decisions, and {@link CONTENTION_SLACK_MS}. */
  keyUntil?: number;
  /** A hosted program (its decisions are its changing writes, see {@link slowPoints}). */
  hosted?: boolean;
  /**
   * When a user's action made the decision moot, more than {@link BUSY_MAX_MS} after it began (at
   * most {@link OVERTAKEN_MAX_MS}): the key alone is held until just past it (see {@link overtakenPoints}).
   */
  overtakenAt?: number;
}

/**
 * How long after a decision began a user's action may overtake it (virtual ms, see
 * {@link overtakenPoints}): a key whose notification was lost waits until the next relist or
 * event, and a real informer relists after minutes. Bounded by the default fault window.
 */
export const OVERTAKEN_MAX_MS = 30_000;

/** At most this many {@link overtakenPoints} per run. */
const OVERTAKEN_MAX_POINTS = 4;

/**
 * Decisions a user's action overtakes from afar: a key's first changing reconcile of a
 * (non-hosted) controller whose first moot-making action came at most {@link OVERTAKEN_MAX_MS}
 * after it began: the user's deletion of the very object it reconciled (more than
 * {@link BUSY_MAX_MS} after: {@link slowPoints} holds every controller at the sooner ones), or a
 * user's change of an object of a kind the controller reads without owning (a pool it allocates
 * from; however soon: no slow hold covers those). Held there, the key waits until just past that action: the controller
 * never acts on the deleted object's life, or decides on the changed input. Only first decisions:
 * holding a later one for that long would also accept what the controller failed to undo in time
 * (a Machine a cascading pool still held when the user deleted it, machine-pool's cascading twin,
 * which the 10 s slow holds keep caught); the longer bound is for a controller that never acted on
 * the object at all. Why a
 * history a healthy control plane produces: as for {@link slowPoints}, nothing bounds how long a
 * key waits, and a notification lost on its way to the informer is repaired only by the next event
 * of the object or a relist, which a real informer makes after minutes. What it may hide: only the
 * outcome of deciding before or after that action (found by the corpus: payout-transfer, a Payout
 * whose ADDED event was lost and which the user deleted 13.8 s later unseen, where the fault-free
 * run had paid it; slot-allocator, a claim first seen after the user shrank its pool 24 s later,
 * which the fault-free run had bound before). Used as the slow points are: whole objects that end
 * exactly as in such a run, never a mask.
 * @internal
 */
export function overtakenPoints(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): SlowPoint[] {
  const defOf = new Map((defs ?? []).filter((d) => d.process === undefined).map((d) => [d.name, d]));
  if (defOf.size === 0) return [];
  // the user's deletions per object, and changes per kind
  const deletedAt = new Map<string, number[]>();
  const changedAt = new Map<string, number[]>();
  const note = (m: Map<string, number[]>, id: string, t: number) => m.set(id, [...(m.get(id) ?? []), t]);
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true) continue;
    if (e['verb'] === 'delete') note(deletedAt, `${String(e['kind'])} ${String(e['key'])}`, e.t);
    else if (e['verb'] === 'update' || e['verb'] === 'patch' || e['verb'] === 'apply') note(changedAt, String(e['kind']), e.t);
  }
  if (deletedAt.size === 0 && changedAt.size === 0) return [];
  const out: SlowPoint[] = [];
  const decided = new Set<string>();
  for (const c of changingReconciles(run.trace, new Set(defOf.keys()), run.timing.tailStart)) {
    // only a key's first decision: the controller never acted on it before the action (a later one held would undo what it had acted on, as no lost notification does)
    if (decided.has(`${c.controller} ${c.key}`)) continue;
    decided.add(`${c.controller} ${c.key}`);
    const def = defOf.get(c.controller)!;
    const deleted = (deletedAt.get(`${def.for} ${c.key}`) ?? []).filter((t) => t > c.start);
    const inputs = [...changedAt].filter(([kind]) => readsOnly(def, kind)).flatMap(([, ts]) => ts.filter((t) => t > c.start));
    let first: number | undefined;
    for (const t of [...deleted, ...inputs]) if (first === undefined || t < first) first = t;
    // a deletion within BUSY_MAX_MS is the slow points' (slowPoints holds every controller there); an input's change within it is no one else's
    const soonest = first !== undefined && inputs.includes(first) ? 0 : BUSY_MAX_MS;
    if (first === undefined || first - c.start <= soonest || first - c.start > OVERTAKEN_MAX_MS) continue;
    out.push({ controller: c.controller, at: c.start, key: c.key, overtakenAt: first });
    if (out.length >= OVERTAKEN_MAX_POINTS) break;
  }
  return out;
}

/**
 * {@link overtakenPoints} of a hosted program, which has no keys to hold alone: its first decision
 * on each object the user made (its first changing write of it, begun {@link HOSTED_REACTION_MS}
 * before, or when the timer behind it fired) when a user's deletion (any object's: a program is
 * not keyed, and may act on all it lists, as {@link slowPoints} holds it) came more than
 * {@link BUSY_MAX_MS} and at most {@link OVERTAKEN_MAX_MS} after it began. Held there, the whole
 * program waits until just past that deletion (ProcessHandle.hold: its events, responses and
 * timers come late, in order), and first looks at the object with the deletion done. Found by the
 * hunt: host:slot-claimer, seed 921 run 45 (claim-0's ADDED event lost, so the claimer first came
 * to it at claim-1's deletion 11.4 s later and took the slot freed there, where the fault-free run
 * had given it the next one). Only first decisions and only objects the user made, as for
 * {@link overtakenPoints}: a later decision held that long would accept what the program failed to
 * undo in time. Why a history a healthy control plane produces, who uses it: as for
 * {@link overtakenPoints}; what a hold cannot hide: an event the program never hears (the events
 * held come after the hold, so a claimer that frees a slot only on a delete event it heard still
 * frees it here, and its leak stays a difference).
 * @internal
 */
export function hostedOvertakenPoints(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): SlowPoint[] {
  const hosted = new Set((defs ?? []).filter((d) => d.process !== undefined).map((d) => d.name));
  if (hosted.size === 0) return [];
  const deletions: number[] = [];
  // objects the user wrote first (made), and the user's deletions before the quiet tail
  const madeByUser = new Set<string>();
  const written = new Set<string>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['error'] !== undefined || e['noop'] === true) continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    if (!written.has(id)) {
      written.add(id);
      if (e['actor'] === 'user') madeByUser.add(id);
    }
    if (e['actor'] === 'user' && e['verb'] === 'delete') deletions.push(e.t);
  }
  if (deletions.length === 0) return [];
  const out: SlowPoint[] = [];
  const decided = new Set<string>();
  for (const c of changingReconciles(run.trace, hosted, run.timing.tailStart, hosted)) {
    const id = `${c.controller} ${c.key}`;
    if (decided.has(id)) continue;
    decided.add(id);
    if (!madeByUser.has(c.key)) continue;
    let first: number | undefined;
    for (const t of deletions) if (t > c.start && (first === undefined || t < first)) first = t;
    // one within BUSY_MAX_MS is the slow points' (slowPoints holds a program there)
    if (first === undefined || first - c.start <= BUSY_MAX_MS || first - c.start > OVERTAKEN_MAX_MS) continue;
    out.push({ controller: c.controller, at: c.start, hosted: true, overtakenAt: first });
    if (out.length >= OVERTAKEN_MAX_POINTS) break;
  }
  return out;
}

/** At most this many {@link lagPoints} per run (each object's in turn): enough for each step of a short walk. */
const LAG_MAX_POINTS = 6;

/**
 * Decisions a user's change of their own object overtakes, for the kinds the user declared timing
 * dependent (same-end-state's `timingDependent`: a pause that freezes a rollout where it stands):
 * each changing reconcile of a (non-hosted) controller of such a kind, with each change of the
 * reconciled object by the user at most {@link OVERTAKEN_MAX_MS} after it began (at most
 * {@link LAG_MAX_POINTS}, evenly spread). Held there, the key makes no progress until just past
 * that change and next decides on that declaration: where a wave the pause froze stands then is
 * where a slow controller's would (paused-wave: a walk API errors slowed by 14 s; a Wave whose
 * ADDED event was lost until after the pause). Only for declared kinds: for any other controller,
 * an end that depends on when it first saw its object is a bug same-end-state must keep reporting
 * (spec-defaults' twin writes the default of the engine it saw first; batch-fanout's keeps the Jobs
 * of shards it had started before the spec shrank). Why a history a healthy control plane
 * produces: as for {@link overtakenPoints}, nothing bounds how long a key waits, and a burst of
 * changes a busy workqueue coalesces is seen as its latest declaration.
 * @internal
 */
export function lagPoints(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): SlowPoint[] {
  const defOf = new Map((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => [d.name, d]));
  if (defOf.size === 0) return [];
  const changedAt = new Map<string, number[]>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true || !kinds.has(String(e['kind']))) continue;
    // a deletion too: a request the user withdrew before a slow controller came to it was never acted on
    if (e['verb'] !== 'update' && e['verb'] !== 'patch' && e['verb'] !== 'apply' && e['verb'] !== 'delete') continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    const ts = changedAt.get(id);
    if (ts) ts.push(e.t);
    else changedAt.set(id, [e.t]);
  }
  if (changedAt.size === 0) return [];
  const out: SlowPoint[] = [];
  let last: { id: string; start: number } | undefined;
  for (const c of changingReconciles(run.trace, new Set(defOf.keys()), run.timing.tailStart)) {
    const id = `${c.controller} ${c.key}`;
    // one point per reconcile (it may write more than once)
    if (last?.id === id && last.start === c.start) continue;
    last = { id, start: c.start };
    for (const t of changedAt.get(`${defOf.get(c.controller)!.for} ${c.key}`) ?? []) if (t > c.start && t - c.start <= OVERTAKEN_MAX_MS) out.push({ controller: c.controller, at: c.start, key: c.key, overtakenAt: t });
  }
  if (out.length <= LAG_MAX_POINTS) return out;
  // one object's many changes must not crowd out the others' (a story's set changed six times left
  // no point for a generated set first seen after its one change: statefulset-partition, stop 38):
  // per object and user change, the reconciles since the object's previous change that this one
  // overtook, the first first (the controller idle from there until the change: the step a pause
  // then freezes), each group's k-th before anyone's (k+1)-th; then in time order
  const byKey = new Map<string, SlowPoint[]>();
  for (const p of out) {
    const changes = changedAt.get(`${defOf.get(p.controller)!.for} ${p.key ?? ''}`) ?? [];
    const previous = changes.filter((t) => t < p.overtakenAt!).at(-1);
    if (previous !== undefined && p.at <= previous) continue;
    const id = `${p.controller} ${p.key ?? ''} ${p.overtakenAt ?? ''}`;
    const list = byKey.get(id);
    if (list) list.push(p);
    else byKey.set(id, [p]);
  }
  const picked: SlowPoint[] = [];
  // bounded by the longest group too: the groups may hold fewer points than the cap (points the
  // filter above dropped), and the loop must end then (it spun for ever: corpus node-upgrade with
  // its plan declared timing dependent, stop 42)
  let longest = 0;
  for (const list of byKey.values()) longest = Math.max(longest, list.length);
  for (let k = 0; k < longest && picked.length < LAG_MAX_POINTS; k++) {
    for (const list of byKey.values()) {
      if (k < list.length && picked.length < LAG_MAX_POINTS) picked.push(list[k]!);
    }
  }
  return picked.sort((a, b) => a.at - b.at);
}

/** The variations of {@link lagPoints}: each key held alone until just past the change. @internal */
export function lagVariations(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): BenignVariation[] {
  const alone = lagPoints(run, defs, kinds).map((p, i): BenignVariation => ({ seed: 3000 + i, jitterMs: 0, shuffleLists: false, slow: { controller: p.controller, at: p.at, ms: p.overtakenAt! + 1 - Math.max(0, p.at - 1), key: p.key! } }));
  // and late at every change at once: each change seen only when the next one comes. Each delay
  // alone is benign, and a fault-free controller slow at two changes ends where a faulted run slow
  // at both does (a paused wave whose new image was seen only at the pause, and whose step after
  // the unpause waited out until the next pause: corpus paused-wave, story probe)
  const first = firstLookAfterNext(run, defs, kinds).map((h, i): BenignVariation => ({ seed: 3500 + i, jitterMs: 0, shuffleLists: false, slow: h }));
  const late = lateAtEveryChange(run, defs, kinds);
  const withdrawn = withdrawnUnseen(run, defs, kinds);
  return [
    ...alone,
    ...first,
    ...(late.length < 2 ? [] : [{ seed: 3999, jitterMs: 0, shuffleLists: false, slow: late[0]!, also: late.slice(1) }]),
    ...(withdrawn.length < 2 ? [] : [{ seed: 3998, jitterMs: 0, shuffleLists: false, slow: withdrawn[0]!, also: withdrawn.slice(1) }]),
  ];
}

/** A window shorter than this in which the faulty run's controller decided nothing is no idle window ({@link idleWindows}). */
const IDLE_MIN_MS = 500;
/** At most this many {@link idleWindows} per run (the longest). */
const IDLE_MAX_WINDOWS = 3;

/**
 * Where the faulty `run`'s controller of a timing-dependent kind decided nothing while its
 * fault-free `twin` decided: for each changing reconcile the twin began at `t`, the next one of
 * the same controller in `run` at `until` (≥ {@link IDLE_MIN_MS} later), so the twin held from
 * `t` until `until` decides when the faulty run did (windows with one `until` merged, at most
 * {@link IDLE_MAX_WINDOWS}, the longest). Only for the kinds the user declared timing dependent
 * (same-end-state's `timingDependent`): which of several competitors a preempting scheduler
 * places depends on which it sees together, and a scheduler whose watch stalled for 15 s (a
 * coalescing fault), that crashed and waited for its lease, or that backed off from API errors,
 * sees the Pods of those seconds together at its next resync, where the fault-free run placed
 * each as it came (corpus priority-preemption: critical and ingest bound, probe pending, where
 * the twin bound probe and evicted web for ingest).
 *
 * Why a history a healthy control plane produces: a controller's workers may all be busy or
 * stopped for seconds without any fault (a rolling restart of the controller's own Deployment, a
 * node drain that reschedules it, CPU throttling, a long API call); events still reach its cache
 * (nothing is lost) and its keys wait, to be reconciled from the cache as it is at release. Who
 * uses it: as the `slow` variations, same-end-state's alternatives only (an end exactly as such a
 * run's), asked for only when the judgement failed, since it depends on the faulty run.
 * @internal
 */
export function idleWindows(run: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>, pastCutShort = false): { controller: string; at: number; ms: number }[] {
  const names = new Set((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => d.name));
  if (names.size === 0) return [];
  const extend = pastCutShort ? cutShortUntil(run, names) : (_c: string, until: number) => until;
  // per controller, when each changing reconcile (a store write, or a mutating downstream call the
  // service accepted) began; of the faulty run, when it first changed something (`acted`): a
  // reconcile whose calls took seconds (slow downstream answers, timeouts retried within it)
  // decided when it wrote, not when it began (corpus image-mirror: a reconcile begun at 5 s copied
  // at 20 s, after the user had changed the destination at 16.8 s; and its copies ran on to the end
  // while the user deleted the mirror, as a fault-free controller's do when it is busy then)
  const starts = (r: Pick<RunRecord, 'trace' | 'timing'>, acted = false) => {
    const by = new Map<string, number[]>();
    const began = new Map<string, number>();
    for (const c of changingReconciles(r.trace, names, r.timing.tailStart, undefined, true)) {
      const list = by.get(c.controller) ?? [];
      if (began.get(c.controller) !== c.start || list.length === 0) list.push(acted ? c.at : c.start);
      began.set(c.controller, c.start);
      by.set(c.controller, list);
    }
    return by;
  };
  // the reconciles of each changing write, in order: the n-th decision of each run
  const decisions = (r: Pick<RunRecord, 'trace' | 'timing'>, acted = false) => {
    const by = new Map<string, number[]>();
    for (const c of changingReconciles(r.trace, names, r.timing.tailStart, undefined, true)) by.set(c.controller, [...(by.get(c.controller) ?? []), acted ? c.at : c.start]);
    return by;
  };
  const faulty = starts(run, true);
  const faultyDecisions = decisions(run, true);
  const windows = new Map<string, { controller: string; from: number; until: number }>();
  const add = (controller: string, from: number, decided: number) => {
    const until = extend(controller, decided);
    const id = `${controller} ${until}`;
    const w = windows.get(id);
    if (!w) windows.set(id, { controller, from, until });
    else if (from < w.from) w.from = from;
  };
  // the starts of reconciles that ended well: a controller that never decides again (its next look
  // rightly changes nothing, after seconds of API errors) was idle until its first look that worked
  const worked = new Map<string, number[]>();
  for (const w of reconcilesThatWorked(run, names)) worked.set(w.controller, [...(worked.get(w.controller) ?? []), w.start]);
  for (const [controller, ts] of starts(twin)) {
    const mine = faulty.get(controller) ?? [];
    const good = (worked.get(controller) ?? []).sort((a, b) => a - b);
    for (const t of ts) {
      const until = mine.find((x) => x >= t) ?? good.find((x) => x >= t);
      if (until === undefined || until - t < IDLE_MIN_MS) continue;
      add(controller, t, until);
    }
  }
  // a reconcile the crash cut short starts when the fault-free one did but decides less: the n-th
  // decision of the faulted run came seconds after the fault-free run's n-th (a scheduler that bound
  // one Pod at t=0, crashed, and placed the next only after its restart)
  for (const [controller, ts] of decisions(twin)) {
    const mine = faultyDecisions.get(controller) ?? [];
    for (let i = 0; i < ts.length && i < mine.length; i++) {
      if (mine[i]! - ts[i]! >= IDLE_MIN_MS) {
        add(controller, ts[i]!, mine[i]!);
        break;
      }
    }
  }
  // windows carried past cut-short reconciles may overlap: one hold of a controller at a time, so overlapping ones are one
  const merged: { controller: string; from: number; until: number }[] = [];
  for (const w of [...windows.values()].sort((a, b) => a.controller.localeCompare(b.controller) || a.from - b.from)) {
    const last = merged.at(-1);
    if (pastCutShort && last && last.controller === w.controller && w.from <= last.until) last.until = Math.max(last.until, w.until);
    else merged.push({ ...w });
  }
  return merged
    .sort((a, b) => b.until - b.from - (a.until - a.from) || a.from - b.from)
    .slice(0, IDLE_MAX_WINDOWS)
    .sort((a, b) => a.from - b.from)
    .map((w) => ({ controller: w.controller, at: w.from, ms: w.until - Math.max(0, w.from - 1) }));
}

/**
 * For {@link idleWindows} carried past cut-short reconciles: a decision of the faulty run dated at
 * `until` (the first changing write of its reconcile) whose reconciles dated there all ended in an
 * error or never ended (an API error after their first writes, a crash) is no decision the
 * controller finished: the window runs on to the controller's first reconcile from then on that
 * ended well (done, or requeueAfter). Found by the guided hunt (seed 301): corpus
 * cluster-placement, whose placement controller created the PlacementDecision at 6 s and whose
 * every write of the choice failed until 30 s, when cluster-a was back (the fault-free run had
 * moved web off cluster-a at 6 s, and sticky decisions kept it off); corpus priority-preemption,
 * whose scheduler bound api at 7.7 s and failed on its next binding, bound critical at 20.8 s and
 * failed again, and whose first walk of the queue that ended well, at 30 s, bound batch in the room
 * left, where the fault-free run had bound batch at once and evicted it for critical. A fault-free
 * controller whose workers were held until that look ends the same way; the end must still be
 * exactly such a run's (whole objects).
 */
function cutShortUntil(run: Pick<RunRecord, 'trace' | 'timing'>, names: ReadonlySet<string>): (controller: string, until: number) => number {
  const idOf = (w: { controller: string; key: string; n: number }) => `${w.controller}\u0000${w.key}\u0000${w.n}`;
  // the reconciles that ended otherwise than in an error (a requeue it asked for is no cut)
  const ended = new Set<string>();
  for (const e of run.trace) if (e.type === 'reconcile:end' && e['result'] !== 'error' && names.has(String(e['controller']))) ended.add(`${String(e['controller'])}\u0000${String(e['key'])}\u0000${String(e['n'])}`);
  const good = new Map<string, number[]>();
  for (const w of reconcilesThatWorked(run, names)) good.set(w.controller, [...(good.get(w.controller) ?? []), w.start]);
  // per controller and time of a reconcile's first changing write: whether every reconcile dated there was cut short
  const cut = new Map<string, boolean>();
  const seen = new Set<string>();
  for (const w of reconcileWrites(run, names)) {
    const id = idOf(w);
    if (seen.has(id)) continue;
    seen.add(id);
    const at = `${w.controller}\u0000${w.t}`;
    cut.set(at, (cut.get(at) ?? true) && !ended.has(id));
  }
  return (controller, until) => {
    if (cut.get(`${controller}\u0000${until}`) !== true) return until;
    return (good.get(controller) ?? []).filter((t) => t >= until).sort((a, b) => a - b)[0] ?? until;
  };
}

/**
 * The variations of {@link idleWindows} (and, when they differ, of those carried past cut-short
 * reconciles), and of {@link idleKeyWindows}: all of them at once, and each alone when there are several. @internal
 */
export function idleVariations(run: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): BenignVariation[] {
  const out: BenignVariation[] = [];
  const idle = idleWindows(run, twin, defs, kinds);
  const past = idleWindows(run, twin, defs, kinds, true);
  const sets: [readonly { controller: string; at: number; ms: number; key?: string }[], number][] = [[idle, 5000], [JSON.stringify(past) === JSON.stringify(idle) ? [] : past, 5050], [idleKeyWindows(run, twin, defs, kinds), 5100]];
  for (const [ws, seed] of sets) {
    if (ws.length === 0) continue;
    out.push({ seed, jitterMs: 0, shuffleLists: false, slow: ws[0]!, ...(ws.length > 1 ? { also: ws.slice(1) } : {}) });
    if (ws.length > 1) for (let i = 0; i < ws.length; i++) out.push({ seed: seed + 1 + i, jitterMs: 0, shuffleLists: false, slow: ws[i]! });
  }
  return out;
}

/**
 * A write of the controller's own leader-election Lease (src/runtime/leader-election.ts): its
 * elector renews it on a timer, also while a slow reconcile is open, and that is no decision.
 */
function leaseRenewal(e: RunRecord['trace'][number], actor: string): boolean {
  return e['kind'] === 'Lease' && e['key'] === `kube-system/${actor.slice('controller:'.length, actor.lastIndexOf('/'))}-leader`;
}

/** A write that changed something, made inside a reconcile of a (non-hosted) controller before the quiet tail. */
interface ReconcileWrite {
  controller: string;
  /** The key reconciled, and when (and which, `n`) that reconcile began. */
  key: string;
  start: number;
  n: number;
  t: number;
  verb: string;
  kind: string;
  object: string;
  changed: string;
}

/**
 * Each write that changed something by one of `controllers` before the quiet tail, with the
 * reconcile it belongs to (per replica, the last one begun and not ended; a crash ends them all:
 * a crashed reconcile never ends in the trace, and the restarted process's writes are its own).
 */
function reconcileWrites(run: Pick<RunRecord, 'trace' | 'timing'>, controllers: ReadonlySet<string>): ReconcileWrite[] {
  const open = new Map<string, { key: string; n: number; t: number }[]>();
  const out: ReconcileWrite[] = [];
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type === 'reconcile:start' || e.type === 'reconcile:end' || e.type === 'controller:crash') {
      const controller = String(e['controller']);
      if (!controllers.has(controller)) continue;
      const actor = `controller:${controller}/${String(e['replica'] ?? 0)}`;
      let spans = open.get(actor);
      if (!spans) open.set(actor, (spans = []));
      if (e.type === 'controller:crash') spans.length = 0;
      else if (e.type === 'reconcile:start') spans.push({ key: String(e['key']), n: Number(e['n']), t: e.t });
      else {
        const i = spans.findIndex((x) => x.n === e['n'] && x.key === e['key']);
        if (i >= 0) spans.splice(i, 1);
      }
      continue;
    }
    if (e.type !== 'store:write' || e['error'] !== undefined || e['noop'] === true) continue;
    const actor = String(e['actor']);
    const span = open.get(actor)?.at(-1);
    if (!span || leaseRenewal(e, actor)) continue;
    out.push({ controller: actor.slice('controller:'.length, actor.lastIndexOf('/')), key: span.key, start: span.t, n: span.n, t: e.t, verb: String(e['verb']), kind: String(e['kind']), object: String(e['key']), changed: JSON.stringify(e['changed'] ?? []) });
  }
  return out;
}

/** The same write: same verb of the same object, changing the same fields. */
const sameWrite = (a: ReconcileWrite, b: ReconcileWrite) => a.verb === b.verb && a.kind === b.kind && a.object === b.object && a.changed === b.changed;

/**
 * Where the faulty `run`'s controller of a timing-dependent kind was cut short, or late, in the
 * middle of what its fault-free `base` run did at once: per controller, the first of its writes
 * where the two runs part (another write, or the same one later), when the faulty run's write
 * there came later than the base run's and both runs had made every write before it alike. The
 * base run's reconcile is paused right after the last write the two share, until the faulty run's
 * next write (at most {@link OVERTAKEN_MAX_MS}): then it goes on from a fresh look, as the faulty
 * run's controller did. (A scheduler bound one Pod of its walk of the queue and crashed; restarted
 * a second later, it found a higher-priority Pod created meanwhile and evicted the Pod it had just
 * bound, where the fault-free run had bound the whole queue at once: corpus priority-preemption,
 * systematic mode's crash after the 8th write. An API error on the second binding, retried after
 * its backoff, makes the same history.)
 *
 * Why a history a healthy control plane produces: every write is an API call, and an answer that
 * takes a second (a busy API server, etcd latency, client-side throttling) is ordinary; a
 * controller whose decisions are one at a time (kube-scheduler binds one Pod per scheduling cycle)
 * sees the world change between two of them. Only for the kinds the user declared timing
 * dependent; who uses it: same-end-state's alternatives (whole objects that end exactly as in
 * such a run), asked for only when the judgement failed, since it depends on the faulty run.
 * @internal
 */
export function pausePoints(run: Pick<RunRecord, 'trace' | 'timing'>, base: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): WritePause[] {
  const names = [...new Set((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => d.name))].sort();
  if (names.length === 0) return [];
  const mine = reconcileWrites(run, new Set(names));
  const theirs = reconcileWrites(base, new Set(names));
  const out: WritePause[] = [];
  for (const controller of names) {
    const f = mine.filter((w) => w.controller === controller);
    const b = theirs.filter((w) => w.controller === controller);
    let i = 0;
    while (i < b.length && i < f.length && sameWrite(b[i]!, f[i]!) && b[i]!.t === f[i]!.t) i++;
    if (i === 0 || i >= b.length || i >= f.length) continue;
    const prev = b[i - 1]!;
    // a pause inside one reconcile, between two of its writes (a hold at a reconcile's start is the idle windows')
    if (b[i]!.n !== prev.n || b[i]!.start !== prev.start || b[i]!.key !== prev.key) continue;
    const until = f[i]!.t;
    // the faulty run's next write came later than the base run's: lateness, not another choice at the same moment
    if (until <= b[i]!.t || until - prev.t > OVERTAKEN_MAX_MS) continue;
    out.push({ controller, at: prev.t, verb: prev.verb, kind: prev.kind, key: prev.object, ms: until - prev.t });
  }
  return out;
}

/** A changing write of a hosted program (one of `names`) before the quiet tail. */
interface ProgramWrite {
  controller: string;
  t: number;
  verb: string;
  kind: string;
  object: string;
  changed: string;
}

function programWrites(run: Pick<RunRecord, 'trace' | 'timing'>, names: ReadonlySet<string>): ProgramWrite[] {
  const out: ProgramWrite[] = [];
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['error'] !== undefined || e['noop'] === true) continue;
    const actor = String(e['actor']);
    const c = controllerOfActor(actor);
    if (c === undefined || !names.has(c) || leaseRenewal(e, actor)) continue;
    out.push({ controller: c, t: e.t, verb: String(e['verb']), kind: String(e['kind']), object: String(e['key']), changed: JSON.stringify(e['changed'] ?? []) });
  }
  return out;
}

/**
 * {@link pausePoints} of a hosted program of a timing-dependent kind (its `for`), which a pause
 * cannot mirror: a program's loop over what it listed goes on, after a pause, from the look it took
 * before, where a crash makes it look again. Per program, the first of its writes where the faulty
 * `run` and its fault-free `base` part, when the two made every write before it alike and at the
 * same moments, the base run made it right after the last of those (within
 * {@link HOSTED_REACTION_MS}: one burst, such as one sync's grants), and the faulty run's program
 * crashed between the two and came back before its next write (at most {@link OVERTAKEN_MAX_MS}
 * after). The base run's program is restarted a millisecond after that last shared write, and its new
 * incarnation's answers, events and timers wait until the faulty run's came back: it takes its
 * fresh look then, as the faulty run's did, but lost nothing meanwhile (it listed at once, so a
 * watch resumed from that list still delivers what happened in between: a claimer that frees a
 * slot only on the delete event it hears still frees it here, and its leak stays a difference).
 * Found by the team's F-1b (host:slot-claimer): a crash between two grants of one sync, the
 * program back after a deletion, gave the second Claim the freed slot; no hold of a fault-free run
 * splits a sync.
 *
 * Why a history a healthy control plane produces: a program's Pod is replaced at any moment (a
 * rollout, a drain, an eviction), and a new incarnation's first answers may be slow; what it cannot
 * produce is a lost notification, so none is. What it may hide: for the declared kinds only, what a
 * fresh look at that moment changes, including what the program kept only in memory (a restart
 * loses it: same-end-state no longer tells a crash that lost memory from a slow restart, for
 * programs whose kind is declared; the other properties judge as before). Who uses it:
 * same-end-state's alternatives, asked for only when the judgement failed.
 * @internal
 */
export function restartPoints(run: Pick<RunRecord, 'trace' | 'timing'>, base: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number }[] {
  const names = [...new Set((defs ?? []).filter((d) => d.process !== undefined && kinds.has(d.for)).map((d) => d.name))].sort();
  if (names.length === 0) return [];
  const mine = programWrites(run, new Set(names));
  const theirs = programWrites(base, new Set(names));
  const same = (a: ProgramWrite, b: ProgramWrite) => a.verb === b.verb && a.kind === b.kind && a.object === b.object && a.changed === b.changed && a.t === b.t;
  const out: { controller: string; at: number; ms: number }[] = [];
  for (const controller of names) {
    const f = mine.filter((w) => w.controller === controller);
    const b = theirs.filter((w) => w.controller === controller);
    let i = 0;
    while (i < b.length && i < f.length && same(b[i]!, f[i]!)) i++;
    if (i === 0 || i >= b.length || i >= f.length) continue;
    const prev = b[i - 1]!;
    if (b[i]!.t - prev.t > HOSTED_REACTION_MS || f[i]!.t <= b[i]!.t) continue;
    // the faulty run's program crashed after that write, and came back before its next one
    let crashed: number | undefined;
    let back: number | undefined;
    for (const e of run.trace) {
      if (e.t < prev.t || e.t > f[i]!.t || String(e['controller']) !== controller) continue;
      if (e.type === 'controller:crash' && crashed === undefined) crashed = e.t;
      else if (e.type === 'controller:start' && crashed !== undefined && back === undefined) back = e.t;
    }
    const at = prev.t + 1;
    if (back === undefined || back <= at || back - at > OVERTAKEN_MAX_MS || b[i]!.t <= at) continue;
    out.push({ controller, at, ms: back - at });
  }
  return out;
}

/**
 * Per key of a controller of a timing-dependent kind: the first of its reconciles where the
 * faulty `run` decided later or otherwise than its fault-free `base` run (other writes, or none
 * where the base run wrote), when the two had decided alike on that key before; the key is held
 * in the base run from that reconcile's start until the faulty run made the same decision, or,
 * when it decided otherwise, until its next reconcile of the key that worked or changed
 * something (at most {@link IDLE_MAX_WINDOWS} keys, the earliest). After the same decision made
 * later, the key's next decisions pair up again and are held likewise, up to the one where the
 * runs part (at most {@link DIVERGED_MAX_PER_KEY} windows per key). Requests first seen a quarter
 * of a second or two seconds late (reordering, a lagging list) are retried on other beats, and
 * which of them takes a budget's last disruption follows. The decision the
 * faulty run made there in a world a fault had changed (a budget whose status was a quarter of a
 * second behind its spec, so the eviction was refused for a generation not yet observed) is one
 * the base run never makes, and its next attempt came seconds later: a fault-free run whose key
 * waited in the workqueue until then decides when the faulty run decided again (corpus
 * disruption-budget, seed 202: drain-web-0 refused and tried again 2 s later, after evict-web-1
 * took the budget's one disruption, where the fault-free run had granted drain-web-0). Why a
 * history a healthy control plane produces, and who uses it: as {@link idleKeyWindows}.
 * @internal
 */
export function divergedKeyWindows(run: Pick<RunRecord, 'trace' | 'timing'>, base: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number; key: string }[] {
  const names = new Set((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => d.name));
  if (names.size === 0) return [];
  // per controller and key, its reconciles that changed something, in order, each with its writes
  const decisions = (r: Pick<RunRecord, 'trace' | 'timing'>) => {
    const by = new Map<string, { start: number; n: number; writes: ReconcileWrite[] }[]>();
    for (const w of reconcileWrites(r, names)) {
      const id = `${w.controller}\u0000${w.key}`;
      const list = by.get(id) ?? [];
      const last = list.at(-1);
      if (last && last.n === w.n && last.start === w.start) last.writes.push(w);
      else list.push({ start: w.start, n: w.n, writes: [w] });
      by.set(id, list);
    }
    return by;
  };
  const same = (a: { writes: ReconcileWrite[] }, b: { writes: ReconcileWrite[] }) => a.writes.length === b.writes.length && a.writes.every((w, i) => sameWrite(w, b.writes[i]!));
  const faulty = decisions(run);
  const good = new Map<string, number[]>();
  for (const [id, list] of faulty) good.set(id, list.map((d) => d.start));
  for (const w of reconcilesThatWorked(run, names)) good.set(`${w.controller}\u0000${w.key}`, [...(good.get(`${w.controller}\u0000${w.key}`) ?? []), w.start]);
  const perKey: { controller: string; at: number; ms: number; key: string }[][] = [];
  for (const [id, list] of decisions(base)) {
    const mine = faulty.get(id) ?? [];
    const [controller, key] = id.split('\u0000') as [string, string];
    const windows: { controller: string; at: number; ms: number; key: string }[] = [];
    for (let j = 0; j < list.length && windows.length < DIVERGED_MAX_PER_KEY; j++) {
      const from = list[j]!.start;
      const other = mine[j];
      if (other !== undefined && same(list[j]!, other) && other.start === from) continue;
      // the faulty run's decision there came no earlier: held until it came when it came later (the
      // same decision or another); when it came at once and was another, until the key's next attempt after it
      if (other !== undefined && other.start < from) break;
      const alike = other !== undefined && same(list[j]!, other);
      // a decision cut short (its first writes made, the rest refused: an outage answering its status
      // write with 504s) is finished by the key's next decision: held until then (corpus
      // cluster-placement, stop 45: a PlacementDecision created at 6.0 s whose decisions were written at 28.0 s)
      const cut = other !== undefined && !alike && other.writes.length < list[j]!.writes.length && other.writes.every((w, i) => sameWrite(w, list[j]!.writes[i]!));
      const finished = cut ? mine[j + 1] : undefined;
      const until = finished !== undefined ? finished.writes[0]!.t : other !== undefined && (other.start > from || alike) ? other.writes[0]!.t : (good.get(id) ?? []).filter((t) => t > (other?.start ?? from)).sort((a, b) => a - b)[0];
      if (until === undefined || until <= from || until - from > OVERTAKEN_MAX_MS) break;
      windows.push({ controller, at: from, ms: until - Math.max(0, from - 1), key });
      // the same decision later: the two runs' next decisions of the key pair up again (a request
      // refused on later beats, then granted a beat later than fault-free, or refused for good once
      // others took the disruptions first: corpus disruption-budget, seed 202 unshrunk); after
      // another decision they no longer do
      if (!alike) break;
    }
    if (windows.length > 0) perKey.push(windows);
  }
  return perKey
    .sort((a, b) => a[0]!.at - b[0]!.at)
    .slice(0, IDLE_MAX_WINDOWS)
    .flat()
    .sort((a, b) => a.at - b.at);
}

/** At most this many {@link divergedKeyWindows} per key: a request refused on a few beats before the one that counts. */
const DIVERGED_MAX_PER_KEY = 4;

/** At most this many {@link behindAtChangeWindows} per run (the earliest). */
const BEHIND_MAX_WINDOWS = 4;

/**
 * Per key of a controller of a timing-dependent kind and per change the user made to the key's
 * object in the faulty `run`: where the key's progress stood in `run` when that change came,
 * carried to its fault-free `base` run. The base run's writes for the key before the change are
 * paired, in order, with the same writes of the faulty run made before it; from the reconcile of
 * the first one the faulty run had not made by then (made only after the change, or never), the key is held
 * in the base run until just past the change, so that it next decides on the new declaration from
 * where the faulty run stood. The faulty run itself shows that the controller was that far behind
 * (at most {@link OVERTAKEN_MAX_MS}; at most {@link BEHIND_MAX_WINDOWS}).
 *
 * Why it is needed beside {@link divergedKeyWindows}: a controller slowed at every step (crash
 * loops, backoff) is late by a little at each of many decisions, and pairing them one by one runs
 * out of windows long before the step the user's change froze (corpus statefulset-partition,
 * hunt seed 2 run 83: seven crash-restarts slowed db-1's rollout so that db-1-0 was deleted at
 * 27.1 s and made again after the user's `partition: 3` of 27.6 s, from the current revision, where
 * the fault-free run had finished the rollout at 19.2 s). Why a history a healthy control plane
 * produces: as for {@link lagPoints} (nothing bounds how long a key waits in a workqueue); this
 * picks, of those holds, the one the faulty run shows. Only for the kinds the user declared timing
 * dependent (where a rollout stood when its user paused or re-partitioned it is their design),
 * paired by what the key's reconciles wrote (not the status of the key's own object, a report of
 * progress that crashes split and counters vary); and, `by: 'calls'`, for the controllers that
 * decide by the clock ({@link respecWindows}: which slots a cron had posted when its user lowered
 * the runs), paired by their accepted mutating downstream calls only. A call made is history no
 * reconcile takes back; an undeclared controller's writes, frozen where a slow walk stood, are
 * not: a paced wave that a pause froze behind the fault-free run is still reported unless its kind
 * is declared (test/properties/same-end-state.test.ts, which the first version of this, pairing
 * writes there too, let through). What it may hide: only the outcome of deciding after that change rather than
 * before it; a controller that breaks the new declaration (a Pod below the partition made on the
 * update revision) or miscounts after a fault (a count of fired slots taken from a status write a
 * fault refused) ends otherwise than the held fault-free run and is still reported. Who uses it:
 * as {@link divergedKeyWindows}. By calls, the user's deletion of the object counts as a change too,
 * only where the faulty run reconciled the key from the hold's start until the deletion and every
 * one of those reconciles failed: its controller had no chance to decide before the object went
 * (corpus lease-cron, hunt seed 307 run 94: 503s from the update of 22.2 s to the deletion of 28.8 s
 * kept slots 2-4 from being fired); a controller that stopped deciding after a fault reconciles
 * without failing and is still reported (test/e2e/lease-cron-regressions.test.ts).
 * @internal
 */
export function behindAtChangeWindows(run: Pick<RunRecord, 'trace' | 'timing'>, base: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>, by: 'writes' | 'calls' = 'writes'): { controller: string; at: number; ms: number; key: string }[] {
  const kindOf = new Map((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => [d.name, d.for]));
  if (kindOf.size === 0) return [];
  // the user's changes per object in the faulty run (as its controller met them); by calls, its deletion
  // too, kept below only where every reconcile of the key since the hold's start had failed
  const changedAt = new Map<string, number[]>();
  const deletedAt = new Set<string>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true || !kinds.has(String(e['kind']))) continue;
    const deletion = by === 'calls' && e['verb'] === 'delete';
    if (e['verb'] !== 'update' && e['verb'] !== 'patch' && e['verb'] !== 'apply' && !deletion) continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    changedAt.set(id, [...(changedAt.get(id) ?? []), e.t]);
    if (deletion) deletedAt.add(`${id} ${e.t}`);
  }
  if (changedAt.size === 0) return [];
  // what each key's reconciles did to the world, in order: their writes, but for the status of the
  // key's own object (a report of progress, written again at every step and split by crashes otherwise)
  // (or, `by: 'calls'`, only its accepted mutating calls to downstream services: a report posted cannot be taken back)
  const acts = (r: Pick<RunRecord, 'trace' | 'timing'>) => {
    const out = new Map<string, ReconcileWrite[]>();
    const add = (w: ReconcileWrite) => out.set(`${w.controller}\u0000${w.key}`, [...(out.get(`${w.controller}\u0000${w.key}`) ?? []), w]);
    if (by === 'calls') {
      for (const c of changingReconciles(r.trace, new Set(kindOf.keys()), r.timing.tailStart, new Set(), true)) {
        if (c.write.kind === 'downstream') add({ controller: c.controller, key: c.key, start: c.start, n: 0, t: c.at, verb: c.write.verb, kind: 'downstream', object: '', changed: '' });
      }
      return out;
    }
    for (const w of reconcileWrites(r, new Set(kindOf.keys()))) {
      if ((w.verb === 'updateStatus' || w.verb === 'patchStatus') && w.kind === kindOf.get(w.controller) && w.object === w.key) continue;
      add(w);
    }
    return out;
  };
  const faulty = acts(run);
  const out: { controller: string; at: number; ms: number; key: string }[] = [];
  for (const [id, list] of acts(base)) {
    const [controller, key] = id.split('\u0000') as [string, string];
    const mine = faulty.get(id) ?? [];
    for (const u of changedAt.get(`${kindOf.get(controller)!} ${key}`) ?? []) {
      // pair the base run's writes before the change with the faulty run's, in order; the first without a
      // partner made before the change is where the faulty run's key stood when the change came
      let i = 0;
      let ahead: number | undefined;
      for (const b of list) {
        if (b.t >= u) break;
        let m = i;
        while (m < mine.length && mine[m]!.t < u && !sameWrite(b, mine[m]!)) m++;
        if (m < mine.length && mine[m]!.t < u) {
          i = m + 1;
          continue;
        }
        ahead = b.start;
        break;
      }
      if (ahead === undefined || u - ahead > OVERTAKEN_MAX_MS) continue;
      // past the user's deletion only when the faulty run's controller never had a reconcile of the key that
      // worked from there on (all refused: API errors, their backoff): it could not decide, as a fault-free
      // key waiting in the workqueue until its object went (corpus lease-cron, hunt seed 307 run 94); a
      // controller that stopped deciding after a fault still reconciles the key without acting, and is reported
      if (deletedAt.has(`${kindOf.get(controller)!} ${key} ${u}`) && !onlyFailedBetween(run, controller, key, ahead, u)) continue;
      const w = { controller, at: ahead, ms: u + 1 - Math.max(0, ahead - 1), key };
      if (!out.some((x) => x.controller === w.controller && x.key === w.key && x.at === w.at && x.ms === w.ms)) out.push(w);
    }
  }
  return out
    .sort((a, b) => a.at - b.at)
    .slice(0, BEHIND_MAX_WINDOWS);
}

/** Whether `controller` reconciled `key` in `run` from `from` until `until`, and every one of those reconciles failed. */
function onlyFailedBetween(run: Pick<RunRecord, 'trace'>, controller: string, key: string, from: number, until: number): boolean {
  const begun = new Set<string>();
  let failed = 0;
  for (const e of run.trace) {
    if (e.t >= until) break;
    if ((e.type !== 'reconcile:start' && e.type !== 'reconcile:end') || e['controller'] !== controller || e['key'] !== key) continue;
    const id = `${String(e['replica'] ?? 0)}\u0000${String(e['n'])}`;
    if (e.type === 'reconcile:start') {
      if (e.t >= from) begun.add(id);
    } else if (begun.has(id)) {
      if (e['result'] !== 'error') return false;
      failed++;
    }
  }
  return failed > 0;
}

/**
 * The variations a faulty `run` suggests for its fault-free `base` run beyond {@link idleVariations}:
 * each {@link pausePoints} pause, and the {@link divergedKeyWindows} holds: each key's first, all
 * at once and each alone; and every window, all at once and each key's alone; and the
 * {@link behindAtChangeWindows}, all at once and each alone.
 * @internal
 */
export function lateVariations(run: Pick<RunRecord, 'trace' | 'timing'>, base: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): BenignVariation[] {
  const out: BenignVariation[] = pausePoints(run, base, defs, kinds).map((p, i) => ({ seed: 5200 + i, jitterMs: 0, shuffleLists: false, pause: p }));
  for (const [i, r] of restartPoints(run, base, defs, kinds).entries()) out.push({ seed: 5400 + i, jitterMs: 0, shuffleLists: false, restart: r });
  const all = divergedKeyWindows(run, base, defs, kinds);
  const keyOfWindow = (w: { controller: string; key: string }) => `${w.controller}\u0000${w.key}`;
  const keys = [...new Set(all.map(keyOfWindow))];
  const held = (ws: typeof all, seed: number): BenignVariation => ({ seed, jitterMs: 0, shuffleLists: false, slow: ws[0]!, ...(ws.length > 1 ? { also: ws.slice(1) } : {}) });
  // each key's first window: all at once, and each alone
  const ws = keys.map((k) => all.find((w) => keyOfWindow(w) === k)!);
  if (ws.length > 0) out.push(held(ws, 5300));
  if (ws.length > 1) for (let i = 0; i < ws.length; i++) out.push(held([ws[i]!], 5301 + i));
  // and with the windows past the first (the same decisions made later, to the one that parts): all at once, and each key alone
  if (all.length > ws.length) {
    out.push(held(all, 5310));
    if (keys.length > 1) {
      for (const [i, k] of keys.entries()) {
        const mine = all.filter((w) => keyOfWindow(w) === k);
        if (mine.length > 1) out.push(held(mine, 5311 + i));
      }
    }
  }
  // and each key held through all its windows, from the first's start to the last's end, all keys at once:
  // holding one key moves the others' decisions to moments no window of theirs covers (corpus dns-sync,
  // guided hunt seeds 491-492: sync-1 held, sync-2 took the name at the Service's creation, between its windows)
  const spans = keys.flatMap((k) => {
    const mine = all.filter((w) => keyOfWindow(w) === k);
    const first = mine[0]!;
    let end = 0;
    for (const w of mine) end = Math.max(end, Math.max(0, w.at - 1) + w.ms);
    return end - first.at > OVERTAKEN_MAX_MS ? [] : [{ controller: first.controller, at: first.at, ms: end - Math.max(0, first.at - 1), key: first.key }];
  });
  if (spans.length > 1 && JSON.stringify(spans) !== JSON.stringify(ws)) out.push(held(spans.sort((a, b) => a.at - b.at), 5330));
  // and the faulty run's progress at each of the user's changes: all at once, and each alone
  const behind = behindAtChangeWindows(run, base, defs, kinds);
  if (behind.length > 0) out.push(held(behind, 5320));
  if (behind.length > 1) for (let i = 0; i < behind.length; i++) out.push(held([behind[i]!], 5321 + i));
  return out;
}

/**
 * Where a faulty `run`'s controller that decides by the clock (it ended a reconcile of the twin
 * with `requeueAfter`: a cron, a deadline) made a decision of a key later than its fault-free
 * `twin` did, past a change the user made meanwhile to that key's own object: the
 * {@link divergedKeyWindows} of the twin for those controllers' kinds, each key's first only; the
 * {@link behindAtChangeWindows} by downstream calls (how many calls the faulty run's key had made
 * when the user changed its object: corpus lease-cron, scratch/twin46, slots posted late one by
 * one, the last after the user lowered the runs or switched the report); and,
 * per key, from the reconcile of the twin's first accepted mutating downstream call the faulty run
 * made later (a report posted) until that call in the faulty run (a claim written before an outage
 * decided nothing yet: corpus lease-cron, hunt seed 307 run 60); each kept when the user changed
 * the key's object inside it. Held there, the twin's key decides when the
 * faulty run's did, with the spec of that moment (corpus lease-cron, scratch/lease44: a schedule
 * whose ADDED event was lost was first seen 13.2 s later, at the user's update of it, and fired
 * all its slots with the updated report, where the fault-free run had fired three with the
 * earlier one; the 10 s {@link slowPoints} holds end 0.2 s before that update).
 *
 * Why a history a healthy control plane produces: as for {@link slowPoints} (a key waits in a
 * workqueue, a notification is lost until the next event of the object), and the faulty run itself
 * shows how long (at most {@link OVERTAKEN_MAX_MS}). What it may hide: only what deciding after
 * that change of the object rather than before it changes, for a controller that reads the clock;
 * an end no fault-free run of such a hold reaches (a slot never fired, one fired twice) is still
 * reported. Who uses it: same-end-state's alternatives (whole objects that end exactly as in such
 * a run), asked for only when the judgement failed, since it depends on the faulty run.
 * @internal
 */
export function respecWindows(run: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): { controller: string; at: number; ms: number; key: string }[] {
  const timed = new Set<string>();
  for (const e of twin.trace) if (e.type === 'reconcile:end' && e['result'] === 'requeueAfter') timed.add(String(e['controller']));
  const mine = (defs ?? []).filter((d) => d.process === undefined && timed.has(d.name));
  if (mine.length === 0) return [];
  const kindOf = new Map(mine.map((d) => [d.name, d.for]));
  // per object, when the user changed it (not its deletion: slowPoints and overtakenPoints hold past those)
  const changes = new Map<string, number[]>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true || e['verb'] === 'delete') continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    changes.set(id, [...(changes.get(id) ?? []), e.t]);
  }
  const deletions = new Map<string, number[]>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['verb'] !== 'delete') continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    deletions.set(id, [...(deletions.get(id) ?? []), e.t]);
  }
  const seen = new Set<string>();
  const out: { controller: string; at: number; ms: number; key: string }[] = [];
  const keep = (w: { controller: string; at: number; ms: number; key: string }, pastDeletion = false) => {
    const release = Math.max(0, w.at - 1) + w.ms;
    const id = `${kindOf.get(w.controller) ?? ''} ${w.key}`;
    if ([...(changes.get(id) ?? []), ...(pastDeletion ? (deletions.get(id) ?? []) : [])].some((t) => t > w.at && t < release)) out.push(w);
  };
  for (const w of divergedKeyWindows(run, twin, mine, new Set(mine.map((d) => d.for)))) {
    const id = `${w.controller}\u0000${w.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    keep(w);
  }
  // where the key stood when the user changed its object (slots fired late one by one, the last after the change),
  // or deleted it after every reconcile of it had failed since (behindAtChangeWindows checks that)
  for (const w of behindAtChangeWindows(run, twin, mine, new Set(mine.map((d) => d.for)), 'calls')) {
    if (!out.some((x) => x.controller === w.controller && x.key === w.key && x.at === w.at && x.ms === w.ms)) keep(w, true);
  }
  // the same by the key's calls to downstream services (a report posted): a reconcile whose claim was written but whose
  // call failed (an outage, a lost answer) decided nothing yet; the call that took is the decision
  const calls = (r: Pick<RunRecord, 'trace' | 'timing'>) => {
    const by = new Map<string, { start: number; at: number }[]>();
    for (const c of changingReconciles(r.trace, new Set(kindOf.keys()), r.timing.tailStart, new Set(), true)) {
      if (c.write.kind !== 'downstream') continue;
      const id = `${c.controller}\u0000${c.key}`;
      by.set(id, [...(by.get(id) ?? []), { start: c.start, at: c.at }]);
    }
    return by;
  };
  const faulty = calls(run);
  for (const [id, list] of calls(twin)) {
    const theirs = faulty.get(id) ?? [];
    const j = list.findIndex((c, i) => theirs[i] === undefined || theirs[i]!.at !== c.at);
    const other = j < 0 ? undefined : theirs[j];
    if (other === undefined || other.at <= list[j]!.start || other.at - list[j]!.start > OVERTAKEN_MAX_MS) continue;
    const [controller, key] = id.split('\u0000') as [string, string];
    const from = list[j]!.start;
    const w = { controller, at: from, ms: other.at + 1 - Math.max(0, from - 1), key };
    if (!out.some((x) => x.controller === w.controller && x.key === w.key && x.at === w.at && x.ms === w.ms)) keep(w);
  }
  return out;
}

/** The {@link respecWindows} of `run`: all at once, and each alone. @internal */
export function respecVariations(run: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): BenignVariation[] {
  const ws = respecWindows(run, twin, defs);
  if (ws.length === 0) return [];
  const out: BenignVariation[] = [{ seed: 5400, jitterMs: 0, shuffleLists: false, slow: ws[0]!, ...(ws.length > 1 ? { also: ws.slice(1) } : {}) }];
  if (ws.length > 1) for (const [i, w] of ws.entries()) out.push({ seed: 5401 + i, jitterMs: 0, shuffleLists: false, slow: w });
  return out;
}

/**
 * Like {@link idleWindows}, per key: where the fault-free run's controller changed something for
 * a key of a timing-dependent kind and the faulted run's did nothing for that key for seconds (its
 * reconciles of it all failed: API errors and their backoff), the key held from then until the
 * faulted run's first reconcile of it that worked or changed something. The controller's other
 * keys go on (a placement for another app decided meanwhile keeps the controller from looking idle
 * as a whole). A key waiting in a busy workqueue for seconds is a healthy control plane's timing.
 * And where the user deleted a key's object after every reconcile of it since its last one that
 * worked had failed ({@link refusedUntilWithdrawn}): the key held from that last good look until
 * just past the deletion, so the fault-free run, held at the starts as the faulted run was, stops
 * where the faulted run's key stood.
 * @internal
 */
export function idleKeyWindows(run: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number; key: string }[] {
  const names = new Set((defs ?? []).filter((d) => d.process === undefined && kinds.has(d.for)).map((d) => d.name));
  if (names.size === 0) return [];
  // per controller and key, the starts of the faulted run's reconciles that worked (done, requeueAfter) or changed something
  const good = new Map<string, number[]>();
  const push = (id: string, t: number) => good.set(id, [...(good.get(id) ?? []), t]);
  for (const c of changingReconciles(run.trace, names, run.timing.tailStart)) push(`${c.controller}\u0000${c.key}`, c.start);
  for (const w of reconcilesThatWorked(run, names)) push(`${w.controller}\u0000${w.key}`, w.start);
  const windows = new Map<string, { controller: string; key: string; from: number; until: number }>();
  for (const c of changingReconciles(twin.trace, names, twin.timing.tailStart)) {
    const id = `${c.controller}\u0000${c.key}`;
    const until = (good.get(id) ?? []).filter((x) => x >= c.start).sort((a, b) => a - b)[0];
    if (until === undefined || until - c.start < IDLE_MIN_MS) continue;
    const w = windows.get(`${id}\u0000${until}`);
    if (!w) windows.set(`${id}\u0000${until}`, { controller: c.controller, key: c.key, from: c.start, until });
    else if (c.start < w.from) w.from = c.start;
  }
  for (const r of refusedUntilWithdrawn(run, names, kinds, defs)) {
    const id = `${r.controller}\u0000${r.key}\u0000${r.until}`;
    const w = windows.get(id);
    if (!w) windows.set(id, r);
    else if (r.from < w.from) w.from = r.from;
  }
  return [...windows.values()]
    .sort((a, b) => b.until - b.from - (a.until - a.from) || a.from - b.from)
    .slice(0, IDLE_MAX_WINDOWS)
    .sort((a, b) => a.from - b.from)
    .map((w) => ({ controller: w.controller, at: w.from, ms: w.until - Math.max(0, w.from - 1), key: w.key }));
}

/**
 * Per key of `controllers` (of the timing-dependent `kinds`) whose object the user deleted in the
 * faulted `run`: when every reconcile of the key between its last one that worked (done, or
 * requeueAfter) and the deletion failed (at least one; no more than {@link OVERTAKEN_MAX_MS} from
 * that last good look to the deletion, at least {@link IDLE_MIN_MS}), the key from that look
 * (`from`) until just past the deletion (`until`). Its controller could not decide anything for the
 * key in between (corpus image-mirror, hunt seed 731 run 11: downstream resets failed every pass
 * from 13.8 s, so the retry of a failed copy never started before the user deleted the mirror at
 * 20.4 s with retainOnDelete, which keeps what was copied by then; the fault-free run had retried at
 * 8.6 s). Why a history a healthy control plane produces: the key waiting in the workqueue from its
 * last look until the deletion (a busy worker, a slow API call) decides nothing in between either;
 * what the failed reconciles did is not reproduced, so a controller that breaks something on an
 * error still ends otherwise than the held fault-free run.
 */
function refusedUntilWithdrawn(run: Pick<RunRecord, 'trace' | 'timing'>, controllers: ReadonlySet<string>, kinds: ReadonlySet<string>, defs: readonly ControllerDefinition[] | undefined): { controller: string; key: string; from: number; until: number }[] {
  const kindOf = new Map((defs ?? []).filter((d) => controllers.has(d.name) && kinds.has(d.for)).map((d) => [d.name, d.for]));
  const deleted = new Map<string, number[]>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['verb'] !== 'delete' || e['error'] !== undefined || e['noop'] === true) continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    deleted.set(id, [...(deleted.get(id) ?? []), e.t]);
  }
  if (deleted.size === 0) return [];
  // per controller and key, its reconciles in order of their start, with whether each ended well
  const spans = new Map<string, { start: number; ok: boolean | undefined }[]>();
  const open = new Map<string, { start: number; ok: boolean | undefined }>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'reconcile:start' && e.type !== 'reconcile:end') continue;
    const controller = String(e['controller']);
    if (!kindOf.has(controller)) continue;
    const id = `${controller}\u0000${String(e['key'])}`;
    const n = `${id}\u0000${String(e['replica'] ?? 0)}\u0000${String(e['n'])}`;
    if (e.type === 'reconcile:start') {
      const span = { start: e.t, ok: undefined };
      open.set(n, span);
      spans.set(id, [...(spans.get(id) ?? []), span]);
    } else {
      const span = open.get(n);
      if (span) span.ok = e['result'] === 'done' || e['result'] === 'requeueAfter';
      open.delete(n);
    }
  }
  const out: { controller: string; key: string; from: number; until: number }[] = [];
  for (const [id, list] of spans) {
    const [controller, key] = id.split('\u0000') as [string, string];
    for (const u of deleted.get(`${kindOf.get(controller)!} ${key}`) ?? []) {
      const before = list.filter((x) => x.start < u);
      const last = before.findLastIndex((x) => x.ok === true);
      if (last < 0) continue;
      const since = before.slice(last + 1);
      const from = before[last]!.start;
      if (since.length === 0 || !since.every((x) => x.ok === false) || u - from < IDLE_MIN_MS || u - from > OVERTAKEN_MAX_MS) continue;
      out.push({ controller, key, from, until: u + 1 });
    }
  }
  return out;
}

/** The reconciles of `controllers` before the quiet tail that ended well (done, or requeueAfter), with when each began. */
function reconcilesThatWorked(run: Pick<RunRecord, 'trace' | 'timing'>, controllers: ReadonlySet<string>): { controller: string; key: string; start: number }[] {
  const out: { controller: string; key: string; start: number }[] = [];
  const begun = new Map<string, number>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'reconcile:start' && e.type !== 'reconcile:end') continue;
    const controller = String(e['controller']);
    if (!controllers.has(controller)) continue;
    const id = `${controller}\u0000${String(e['replica'] ?? 0)}\u0000${String(e['key'])}\u0000${String(e['n'])}`;
    if (e.type === 'reconcile:start') begun.set(id, e.t);
    else if ((e['result'] === 'done' || e['result'] === 'requeueAfter') && begun.has(id)) out.push({ controller, key: String(e['key']), start: begun.get(id)! });
  }
  return out;
}

/** How long past a competing object's creation {@link firstLookAfterNext} holds the first one: its event arrives and its first reconcile runs first. */
const FIRST_LOOK_MARGIN_MS = 5;

/**
 * Holds that make a controller of a timing-dependent kind look at an object the user created only
 * after the user created the next object of that kind (at most {@link OVERTAKEN_MAX_MS} later,
 * at most {@link LAG_MAX_POINTS} of them, evenly spread): which of two competitors a controller
 * decides on first is timing, not state. A preempting scheduler that first sees a low-priority Pod
 * after a critical one was created binds the critical one, and the other stays pending, where the
 * fault-free run bound it and then evicted it (corpus priority-preemption, ~1% of hunt runs).
 */
function firstLookAfterNext(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number; key: string }[] {
  const byKind = new Map<string, string[]>();
  for (const d of defs ?? []) if (d.process === undefined && kinds.has(d.for)) byKind.set(d.for, [...(byKind.get(d.for) ?? []), d.name]);
  const created = new Map<string, { key: string; t: number }[]>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['verb'] !== 'create' || e['error'] !== undefined || !byKind.has(String(e['kind']))) continue;
    const list = created.get(String(e['kind'])) ?? [];
    list.push({ key: String(e['key']), t: e.t });
    created.set(String(e['kind']), list);
  }
  const out: { controller: string; at: number; ms: number; key: string }[] = [];
  for (const [kind, list] of created) {
    for (let i = 0; i + 1 < list.length; i++) {
      const [a, b] = [list[i]!, list[i + 1]!];
      if (b.t <= a.t || b.t - a.t > OVERTAKEN_MAX_MS || a.key === b.key) continue;
      for (const controller of byKind.get(kind)!) out.push({ controller, at: a.t + 1, ms: b.t + FIRST_LOOK_MARGIN_MS - a.t, key: a.key });
    }
  }
  out.sort((x, y) => x.at - y.at);
  return out.length <= LAG_MAX_POINTS ? out : Array.from({ length: LAG_MAX_POINTS }, (_, i) => out[Math.floor((i * out.length) / LAG_MAX_POINTS)]!);
}

/**
 * Holds that make each controller of a timing-dependent kind see each object the user withdrew
 * only at its withdrawal: from the user's last write of it before the deletion (its creation or
 * its latest change, at most {@link OVERTAKEN_MAX_MS} before) until just past the deletion, every
 * such object at once. Each alone is a lag point; together they are a fault-free controller slow
 * at each of them, which ends as one whose cache was behind the whole time (corpus
 * disruption-budget, stop 40: a lost Ready event kept the budget's count low, two requests for
 * web-2 stayed denied until the user withdrew both, and drain-web-0 took the disruption the
 * fault-free run gave web-2).
 */
function withdrawnUnseen(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number; key: string }[] {
  const byKind = new Map<string, string[]>();
  for (const d of defs ?? []) if (d.process === undefined && kinds.has(d.for)) byKind.set(d.for, [...(byKind.get(d.for) ?? []), d.name]);
  const lastWrite = new Map<string, number>();
  const out: { controller: string; at: number; ms: number; key: string }[] = [];
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true || !byKind.has(String(e['kind']))) continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    const verb = e['verb'];
    if (verb === 'create' || verb === 'update' || verb === 'patch' || verb === 'apply') lastWrite.set(id, e.t);
    else if (verb === 'delete') {
      const from = lastWrite.get(id);
      lastWrite.delete(id);
      if (from === undefined || e.t - from > OVERTAKEN_MAX_MS) continue;
      for (const controller of byKind.get(String(e['kind']))!) out.push({ controller, at: from + 1, ms: e.t + 1 - from, key: String(e['key']) });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * Holds that make each controller of a timing-dependent kind see each user change of an object
 * only when the user's next change of it comes (at most {@link OVERTAKEN_MAX_MS} later).
 */
function lateAtEveryChange(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined, kinds: ReadonlySet<string>): { controller: string; at: number; ms: number; key: string }[] {
  const byKind = new Map<string, string[]>();
  for (const d of defs ?? []) if (d.process === undefined && kinds.has(d.for)) byKind.set(d.for, [...(byKind.get(d.for) ?? []), d.name]);
  const changes = new Map<string, { kind: string; key: string; at: number[] }>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type !== 'store:write' || e['actor'] !== 'user' || e['error'] !== undefined || e['noop'] === true || !byKind.has(String(e['kind']))) continue;
    if (e['verb'] !== 'update' && e['verb'] !== 'patch' && e['verb'] !== 'apply') continue;
    const id = `${String(e['kind'])} ${String(e['key'])}`;
    const c = changes.get(id) ?? { kind: String(e['kind']), key: String(e['key']), at: [] };
    c.at.push(e.t);
    changes.set(id, c);
  }
  const out: { controller: string; at: number; ms: number; key: string }[] = [];
  for (const c of changes.values()) {
    for (let i = 0; i + 1 < c.at.length; i++) {
      const [from, to] = [c.at[i]!, c.at[i + 1]!];
      if (to - from > OVERTAKEN_MAX_MS) continue;
      for (const controller of byKind.get(c.kind)!) out.push({ controller, at: from + 1, ms: to + 1 - from, key: c.key });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * How long before a hosted program's changing write the event that started it may have arrived
 * (a write made in answer to an event follows a request or two of ~10 ms): the hold begins then.
 */
const HOSTED_REACTION_MS = 50;

/**
 * Where the `slow` variation delays a controller: the start of each reconcile (before the quiet
 * tail, whose state is what the differential properties compare) that wrote a change, of every
 * controller that decides by the clock — one that ended a reconcile with `requeueAfter` (it
 * sleeps until a time it chose: a slot, a deadline, a poll). A hosted program has no reconciles:
 * it decides by the clock when one of its own schedules wrote (a firing of its `setInterval` or
 * second-long `setTimeout`, src/host/host-context.ts TimerCause), and each of its changing writes
 * is a decision, begun when its timer fired (or {@link HOSTED_REACTION_MS} before it, for one
 * that answered an event); the hold then delays what would reach the process (ProcessHandle.hold).
 * A controller that never set a timer (a hosted program too, whose decisions are then its changing
 * writes) is delayed only at the decisions a user's deletion
 * overtakes: each of its changing reconciles that began at most {@link BUSY_MAX_MS} before a
 * user deleted (or recreated) an object, or asked to delete one the run had that was gone already
 * (NotFound: a slower controller's finalizer would still have held it, and a second delete, in the
 * foreground, cascades to what it still owns: machine-pool, hunt seed 864 run 1); and at its evictions the user makes moot: a reconcile
 * that deleted an object neither of the reconciled kind nor of one it owns (a drained node's
 * Pods, someone else's), when the user changed the reconciled object within {@link BUSY_MAX_MS}
 * after (the cordon lifted). An eviction is irreversible, so whether it happened depends on when
 * the controller came to it; a write to its own object or what it owns is not a point, since a
 * level-triggered controller ends as its object's latest declaration says whenever it acted (an
 * edge-triggered one must still fail). Its other decisions do not read the clock, or not in a
 * way the run shows. A point of a controller that decides by the clock also holds its key alone
 * when other keys of it decided later in the fault window (first come, first served: two syncs
 * publishing one DNS name, two claims racing for one slot): the key waits until each of the
 * others has made its next decision, unless the user changed its own object meanwhile (then the
 * wait would hide a declaration, not reorder two). Per controller, a reconcile that begins within 10 ms of
 * the last point (the events of its own writes, another key's slot at the same instant) is held
 * with it rather than apart; at most {@link SLOW_MAX_POINTS}, evenly spread.
 *
 * Why a history a healthy control plane produces: nothing bounds how long a key waits in a
 * workqueue (see {@link BUSY_MAX_MS}), nor how long a reconcile takes before it reads the clock
 * (a slow API call, a worker busy elsewhere). A controller that decides by the clock (a slot
 * missed past its starting deadline, the spec of the moment a slot starts, a Forbid wait that
 * outlives the deadline) decides otherwise when it decides later, and a fault that costs it a
 * second (a 503 and its backoff, a lost event repaired by a resync, a slow Pod start that keeps
 * the previous run going) makes it decide later too: the end it reaches is one a slow fault-free
 * run reaches. A deletion overtakes a decision that comes later: the garbage collector cascades
 * along the ownerReferences of the moment, so an object someone else made that a controller
 * adopts (a ReplicaSet's orphaned Pods, a pool's Machines) is collected with the owner when the
 * adoption came first and outlives it when the deletion did (found by the corpus case
 * machine-pool: a crash-restart delayed an adoption past the pool's deletion). Who uses it: same-end-state (whole objects that end exactly as in one of these
 * runs, `alternatives`) and no-extra-destructive-actions (the most creates and deletes one of
 * them made); never a mask of a path, never recovery.
 * @internal
 */
export function slowPoints(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): SlowPoint[] {
  const hosted = new Set((defs ?? []).filter((d) => d.process !== undefined).map((d) => d.name));
  const timed = new Set<string>();
  for (const e of run.trace) {
    if (e.type === 'reconcile:end' && e['result'] === 'requeueAfter') timed.add(String(e['controller']));
    else if (hosted.size > 0 && e.type === 'store:write' && e['fire'] !== undefined) {
      const c = controllerOfActor(String(e['actor']));
      if (c !== undefined && hosted.has(c)) timed.add(c);
    }
  }
  // the user's deletions (a recreate's too) and changes before the quiet tail: untimed controllers are delayed only past these
  const deletions: number[] = [];
  // per object, when the user changed it (`changes`), or wrote it at all, deletions included (`touched`)
  const changes = new Map<string, number[]>();
  const touched = new Map<string, number[]>();
  const note = (m: Map<string, number[]>, id: string, t: number) => {
    const ts = m.get(id);
    if (ts) ts.push(t);
    else m.set(id, [t]);
  };
  const untimed = new Set<string>();
  // objects written before: a user's deletion of one that is gone already (NotFound) is one a slower
  // controller's finalizer had not yet let go, so it overtakes that controller's decision too
  const existed = new Set<string>();
  for (const e of run.trace) {
    if (e.t >= run.timing.tailStart) break;
    if (e.type === 'store:write' && e['error'] === undefined && e['noop'] !== true) existed.add(`${String(e['kind'])} ${String(e['key'])}`);
    if (e.type === 'store:write' && e['actor'] === 'user' && e['verb'] === 'delete' && e['error'] === 'NotFound' && existed.has(`${String(e['kind'])} ${String(e['key'])}`)) deletions.push(e.t);
    else if (e.type === 'store:write' && e['actor'] === 'user' && e['error'] === undefined && e['noop'] !== true) {
      const id = `${String(e['kind'])} ${String(e['key'])}`;
      note(touched, id, e.t);
      if (e['verb'] === 'delete') deletions.push(e.t);
      else note(changes, id, e.t);
    } else if (e.type === 'reconcile:start' && !timed.has(String(e['controller']))) untimed.add(String(e['controller']));
    else if (hosted.size > 0 && e.type === 'store:write' && e['error'] === undefined && e['noop'] !== true) {
      // a hosted program has no reconciles: one that wrote is a controller too, timed or not (an
      // untimed one was never delayed: a hosted slot claimer that saw a deletion first took the freed
      // slot, where the fault-free run, a second quicker, took the next one: red team round 10 F-1)
      const c = controllerOfActor(String(e['actor']));
      if (c !== undefined && hosted.has(c)) untimed.add(c);
    }
  }
  for (const c of timed) untimed.delete(c);
  if (deletions.length === 0 && changes.size === 0) untimed.clear();
  if (timed.size === 0 && untimed.size === 0) return [];
  const within = (ts: readonly number[] | undefined, start: number) => (ts ?? []).some((d) => d > start && d - start <= BUSY_MAX_MS);
  const defOf = new Map((defs ?? []).map((d) => [d.name, d]));
  // an eviction: a delete of an object that is neither of the reconciled kind nor one the controller owns
  const evicts = (c: { controller: string; write: { verb: string; kind: string } }) => {
    const d = defOf.get(c.controller);
    return d !== undefined && c.write.verb === 'delete' && c.write.kind !== d.for && !d.owns.includes(c.write.kind);
  };
  const overtaken = (c: { controller: string; key: string; start: number; write: { verb: string; kind: string } }) =>
    within(deletions, c.start) || (evicts(c) && within(changes.get(`${defOf.get(c.controller)!.for} ${c.key}`), c.start));
  const seen = new Map<string, number>();
  const all = [...changingReconciles(run.trace, new Set([...timed, ...untimed]), run.timing.tailStart, hosted)];
  const kept: typeof all = [];
  // another key of the same timed controller decided later: which of them goes first may decide the end (first come, first served)
  const contender = (c: { controller: string; key: string; start: number }): { key: string; until: number } | undefined => {
    if (!timed.has(c.controller) || hosted.has(c.controller)) return undefined;
    // held until every other key has made its next decision: this one goes last
    const next = new Map<string, number>();
    for (const x of all) if (x.controller === c.controller && x.key !== c.key && x.start >= c.start && !next.has(x.key)) next.set(x.key, x.start);
    if (next.size === 0) return undefined;
    let last = c.start;
    for (const t of next.values()) if (t > last) last = t;
    const until = last + CONTENTION_SLACK_MS;
    // held past a change of its own object, it would decide on a declaration it never saw: that is not a reordering
    const own = touched.get(`${defOf.get(c.controller)?.for ?? ''} ${c.key}`) ?? [];
    return own.some((t) => t > c.start && t <= until) ? undefined : { key: c.key, until };
  };
  for (const c of all) {
    if (untimed.has(c.controller) && !overtaken(c)) continue;
    // a reconcile within SLOW_MERGE_MS of the last point kept (the events of that one's own writes) waits in its hold too
    const prev = seen.get(c.controller);
    if (prev !== undefined && c.start - prev <= SLOW_MERGE_MS) continue;
    seen.set(c.controller, c.start);
    kept.push(c);
  }
  const chosen = kept.length <= SLOW_MAX_POINTS ? kept : Array.from({ length: SLOW_MAX_POINTS }, (_, i) => kept[Math.floor((i * kept.length) / SLOW_MAX_POINTS)]!);
  return chosen.map((c): SlowPoint => {
    if (hosted.has(c.controller)) return { controller: c.controller, at: c.start, hosted: true };
    const rival = contender(c);
    return { controller: c.controller, at: c.start, ...(rival ? { key: rival.key, keyUntil: rival.until } : {}) };
  });
}

/** `web` of `controller:web/0`. */
function controllerOfActor(actor: string): string | undefined {
  return actor.startsWith('controller:') ? actor.slice('controller:'.length, actor.lastIndexOf('/')) : undefined;
}

/**
 * Each write that changed something by one of `controllers` before `until`, with the reconcile it
 * belongs to (per process, the last one begun and not ended: one worker per key, few at a time).
 * A hosted program's (one of `hosted`) is its own decision: keyed by the object written, begun
 * when the timer behind it fired, else {@link HOSTED_REACTION_MS} before it.
 */
function* changingReconciles(trace: RunRecord['trace'], controllers: ReadonlySet<string>, until: number, hosted: ReadonlySet<string> = new Set(), downstream = false): Generator<{ controller: string; key: string; start: number; at: number; write: { verb: string; kind: string } }> {
  const open = new Map<string, { key: string; n: unknown; t: number }[]>();
  for (const e of trace) {
    if (e.t >= until) return;
    if (downstream && e.type === 'downstream:request') {
      // a mutating call the service accepted (it is traced when its answer came)
      const status = Number(e['status']);
      if (e['mutating'] !== true || status < 200 || status >= 300) continue;
      const raw = String(e['actor']);
      const actor = raw.startsWith('controller:') ? raw : `controller:${raw}`;
      const span = open.get(actor)?.at(-1);
      if (span) yield { controller: actor.slice('controller:'.length, actor.lastIndexOf('/')), key: span.key, start: span.t, at: e.t, write: { verb: String(e['method']), kind: 'downstream' } };
      continue;
    }
    if (e.type === 'reconcile:start' || e.type === 'reconcile:end') {
      const controller = String(e['controller']);
      if (!controllers.has(controller)) continue;
      const actor = `controller:${controller}/${String(e['replica'] ?? 0)}`;
      let spans = open.get(actor);
      if (!spans) open.set(actor, (spans = []));
      if (e.type === 'reconcile:start') spans.push({ key: String(e['key']), n: e['n'], t: e.t });
      else {
        const i = spans.findIndex((x) => x.n === e['n'] && x.key === e['key']);
        if (i >= 0) spans.splice(i, 1);
      }
      continue;
    }
    if (e.type !== 'store:write' || e['error'] !== undefined || e['noop'] === true) continue;
    const actor = String(e['actor']);
    if (hosted.size > 0) {
      const c = controllerOfActor(actor);
      if (c !== undefined && hosted.has(c)) {
        if (controllers.has(c)) yield { controller: c, key: `${String(e['kind'])} ${String(e['key'])}`, start: typeof e['firedAt'] === 'number' ? e['firedAt'] : Math.max(0, e.t - HOSTED_REACTION_MS), at: e.t, write: { verb: String(e['verb']), kind: String(e['kind']) } };
        continue;
      }
    }
    const span = open.get(actor)?.at(-1);
    if (!span || leaseRenewal(e, actor)) continue;
    yield { controller: actor.slice('controller:'.length, actor.lastIndexOf('/')), key: span.key, start: span.t, at: e.t, write: { verb: String(e['verb']), kind: String(e['kind']) } };
  }
}

/**
 * Whether a `slow` run is a destination a correct controller reaches: once its hold ends, the held
 * controller goes on deciding. Every key it changed after that in the fault-free run (a later
 * slot started, a finished Job recorded) it changes after that here too. A controller that stops
 * for good after one late decision (it waits forever on a slot missed past its deadline) ends
 * there because of a bug a delay exposes, which no later slot repairs: its run teaches nothing.
 * @internal
 */
export function keepsDeciding(slow: Pick<RunRecord, 'trace' | 'timing'>, twin: Pick<RunRecord, 'trace' | 'timing'>, v: { controller: string; at: number; ms: number; hosted?: boolean; key?: string }): boolean {
  const release = Math.max(0, v.at - 1) + v.ms;
  // a hold of one key: that key is the one whose decision came late; the controller's other keys went
  // on, and decide as the world the held key left them (a request the held eviction left the budget
  // to was granted at once, where the fault-free run granted it only after a change of the budget:
  // corpus disruption-budget, swarm seed 502 run 15)
  const later = (r: Pick<RunRecord, 'trace' | 'timing'>) => {
    const keys = new Set<string>();
    for (const c of changingReconciles(r.trace, new Set([v.controller]), r.timing.end, v.hosted ? new Set([v.controller]) : undefined)) if (c.start > release && (v.key === undefined || c.key === v.key)) keys.add(c.key);
    return keys;
  };
  const mine = later(slow);
  // a key whose object is gone in the held run has nothing left to decide (a mirror deleted before
  // its controller ever came to it never got the finalizer whose cleanup the fault-free run did)
  let gone: Set<string> | undefined;
  for (const k of later(twin)) {
    if (mine.has(k)) continue;
    if (!gone) {
      gone = new Set();
      for (const e of slow.trace) if (e.type === 'store:write' && e['removed'] === true && e['error'] === undefined) gone.add(String(e['key']));
    }
    if (!gone.has(k)) return false;
  }
  return true;
}

/**
 * The `slow` variations of a fault-free run: each decision point, held for each of
 * {@link SLOW_HOLDS_MS} (and a contended key alone, see {@link SlowPoint.key}); the {@link overtakenPoints}
 * and {@link hostedOvertakenPoints}, each held until just past the action that overtook it; and
 * {@link LATE_VARIATION} when the user changed an existing object before the quiet tail.
 * @internal
 */
export function slowVariations(run: Pick<RunRecord, 'trace' | 'timing'>, defs: readonly ControllerDefinition[] | undefined): BenignVariation[] {
  const points = slowPoints(run, defs);
  const whole = points.flatMap((p, i) => SLOW_HOLDS_MS.map((ms, j) => ({ seed: 100 + i * SLOW_HOLDS_MS.length + j, jitterMs: 0, shuffleLists: false, slow: { controller: p.controller, at: p.at, ms, ...(p.hosted ? { hosted: true } : {}) } })));
  // a contended key held alone: the keys it raced go first
  const alone = points.flatMap((p, i): BenignVariation[] => {
    const { key, keyUntil } = p;
    return key === undefined || keyUntil === undefined ? [] : [{ seed: 1000 + i, jitterMs: 0, shuffleLists: false, slow: { controller: p.controller, at: p.at, ms: keyUntil - Math.max(0, p.at - 1), key } }];
  });
  // a decision a user's action overtook from afar: the key waits until just past it
  const overtaken = overtakenPoints(run, defs).map((p, i): BenignVariation => ({ seed: 2000 + i, jitterMs: 0, shuffleLists: false, slow: { controller: p.controller, at: p.at, ms: p.overtakenAt! + 1 - Math.max(0, p.at - 1), key: p.key! } }));
  // a hosted program's first look at an object a user's deletion overtook from afar: the whole program waits until just past it
  const hostedOvertaken = hostedOvertakenPoints(run, defs).map((p, i): BenignVariation => ({ seed: 2100 + i, jitterMs: 0, shuffleLists: false, slow: { controller: p.controller, at: p.at, ms: p.overtakenAt! + 1 - Math.max(0, p.at - 1), hosted: true } }));
  // the user changed an existing object before the quiet tail: the controller may have seen it late
  const changed = run.trace.some((e) => e.t < run.timing.tailStart && e.type === 'store:write' && e['actor'] === 'user' && e['error'] === undefined && e['noop'] !== true && (e['verb'] === 'update' || e['verb'] === 'patch' || e['verb'] === 'apply'));
  return [...whole, ...alone, ...overtaken, ...hostedOvertaken, ...everyOvertaken(run, points), ...(changed ? [LATE_VARIATION] : [])];
}

/**
 * A hosted program that sets no timer held at every one of its points at once (a deletion overtook
 * each), for each of {@link SLOW_HOLDS_MS}. Each hold alone is benign, and a program slow at two
 * decisions ends where a faulted run late at both does (host:slot-claimer, hunt seed 865 run 1: a
 * crash kept it from Claim c until after a's deletion, and watch errors from claim-1 until after
 * claim-0's, so both took a freed slot). A reconciler has the per-key holds of its declared
 * timing-dependent kinds for this (lagVariations, idleVariations); a program declares no kinds.
 */
function everyOvertaken(run: Pick<RunRecord, 'trace'>, points: readonly SlowPoint[]): BenignVariation[] {
  const byClock = new Set<string>();
  for (const e of run.trace) if (e.type === 'store:write' && e['fire'] !== undefined) byClock.add(controllerOfActor(String(e['actor'])) ?? '');
  const out: BenignVariation[] = [];
  for (const controller of [...new Set(points.filter((p) => p.hosted === true && !byClock.has(p.controller)).map((p) => p.controller))].sort()) {
    const mine = points.filter((p) => p.controller === controller);
    if (mine.length < 2) continue;
    for (const ms of SLOW_HOLDS_MS) out.push({ seed: 1500 + out.length, jitterMs: 0, shuffleLists: false, slow: { controller, at: mine[0]!.at, ms, hosted: true }, also: mine.slice(1).map((p) => ({ controller, at: p.at, ms })) });
  }
  return out;
}

/** At most this many phase variations per run (one per distinct phase a faulty run's program started at). */
export const PHASE_MAX_VARIATIONS = 3;

/**
 * The `phase` variations a faulty run suggests for the fault-free `twin`: each hosted program whose
 * own schedule wrote in the twin (a timer of period P: the shortest delay of the timers whose
 * firings wrote) and that started again in `run` at a time t > 0 (a second replica, a restart),
 * started δ = t mod P later in the twin, so its timers tick where the later incarnation's did.
 *
 * Why a history a healthy control plane produces: when a process starts is up to the node it runs
 * on (an image pull, a slow start, a rescheduled Pod); a program whose work depends on the phase
 * of its own timer (a scheduler that checks every second and never runs a slot more than its
 * deadline late) reaches a slot one phase misses, and a second replica or a restarted one simply
 * ticks at its own phase. Who uses it: as the `slow` variations (same-end-state's alternatives,
 * no-extra-destructive-actions' most creates and deletes of benign runs), only when a property
 * failed and learns, since it depends on the faulty run.
 * @internal
 */
export function phaseVariations(run: Pick<RunRecord, 'trace'>, twin: Pick<RunRecord, 'trace'>, defs: readonly ControllerDefinition[] | undefined): BenignVariation[] {
  const hosted = new Set((defs ?? []).filter((d) => d.process !== undefined).map((d) => d.name));
  if (hosted.size === 0) return [];
  // per hosted program, the shortest delay of a timer whose firing wrote in the twin
  const periods = new Map<string, number>();
  for (const e of twin.trace) {
    if (e.type !== 'store:write' || typeof e['every'] !== 'number' || e['every'] <= 0) continue;
    const c = controllerOfActor(String(e['actor']));
    if (c === undefined || !hosted.has(c)) continue;
    periods.set(c, Math.min(periods.get(c) ?? Infinity, e['every']));
  }
  const out: BenignVariation[] = [];
  for (const [controller, period] of [...periods].sort((a, b) => a[0].localeCompare(b[0]))) {
    const phases = new Set<number>();
    for (const e of run.trace) if (e.type === 'controller:start' && e['controller'] === controller && e.t > 0 && e.t % period !== 0) phases.add(e.t % period);
    for (const ms of [...phases].sort((a, b) => a - b).slice(0, PHASE_MAX_VARIATIONS)) out.push({ seed: 200 + out.length, jitterMs: 0, shuffleLists: false, startDelay: { controller, ms } });
  }
  return out;
}

/**
 * The fault-free `scenario` with the user's intent as it took effect in the faulty `run`: an
 * action whose first attempt the API server refused (an `api-error` on the user's write) and a
 * retry later answered (accepted, or refused for a reason of the API server's own: a NotFound,
 * the object gone by then) happens at that retry's time, and the user's later actions on the same
 * object no earlier (they waited behind it, as in the run). An action the run's user sent once
 * (`retry: false`) into a fault that refused it, unapplied, is left out: it never took effect.
 * Undefined when no action was late or left out.
 * (A TTL extension that a 429 held back 5 s, past the TTL: the Job was deleted on time and the
 * retry found it gone, as a fault-free patch sent then would: corpus ttl-after-finished, stop 37.)
 *
 * At one instant, the actions keep the order in which the run's user sent them: first those due
 * then (scheduled before the run began, in the order the user gave them), then the retries
 * accepted then (scheduled during the run), in the order the run answered them, each followed by
 * the actions on its object that waited behind it. So what failed in the run because of a late
 * action fails in this run for the same reason, by the API server's own answer, with nothing
 * guessed: a Service created in a namespace whose create a 500 held back, sent at the very
 * instant the create's retry was accepted but before it, is refused NotFound here too, never
 * retried, and the world has no Service in either run (corpus reference-grant: an HTTPRoute whose
 * backend the Service is, by name, resolves to BackendNotFound in both).
 *
 * Why a history a healthy control plane produces: when the user's change reaches the API server is
 * up to the user's tool (kubectl run a second later, a GitOps sync on its next pass); a controller
 * that decides by time (a grace period that ends, a deadline) acts on whatever spec was accepted
 * then, and no correct controller can know of a write that failed and will be retried (corpus
 * graceful-scaledown, stop 35: a drained member deleted 0.5 s before the user's retried scale-up
 * was accepted, and made again); nor can it act on a declaration that never took effect, nor on
 * one the API server refused because of it. Who uses it: as a `slow` variation
 * (no-extra-destructive-actions' most creates and deletes of benign runs, same-end-state's
 * whole-object alternatives), only when a property failed and learns, since it depends on the
 * faulty run. What it may hide: only ends the fault-free control plane reaches under the user's
 * intent as the run's API server accepted it; a refusal a controller caused (a wrong delete
 * answered NotFound) is not moved or left out, so the fault-free run here accepts that action.
 * @internal
 */
export function userAcceptedLate(run: Pick<RunRecord, 'trace'>, scenario: Scenario): Scenario | undefined {
  const attempts: { e: RunRecord['trace'][number]; pos: number }[] = [];
  run.trace.forEach((e, pos) => {
    if (e.type === 'user:action') attempts.push({ e, pos });
  });
  const faults = run.trace.filter((e) => e.type === 'fault:inject' && e['actor'] === 'user');
  // an unnumbered attempt (a single one, `retry: false`) is the first
  const injected = (e: RunRecord['trace'][number]) => faults.find((f) => f.t === e.t && f['key'] === e['key'] && f['action'] === e['action'] && f['attempt'] === (e['attempt'] ?? 1));
  const workload = scenario.workload.map((a) => ({ ...a }));
  // per action moved: where the run answered it (the trace position of the accepted retry, or of its object's leader's)
  const movedAt = new Map<number, number>();
  const dropped = new Set<number>();
  workload.forEach((a, i) => {
    if (a.type === 'deleteOwned') return;
    const id = objectOf(a);
    const of = (e: RunRecord['trace'][number]) => e['action'] === a.type && `${String(e['kind'])} ${String(e['key'])}` === id;
    if (a.retry === false) {
      // sent once, into a fault that refused it unapplied: the run's user never declared it
      const only = attempts.find(({ e }) => e.t === a.at && of(e) && e['attempt'] === undefined);
      const f = only && only.e['error'] !== undefined ? injected(only.e) : undefined;
      if (f !== undefined && f['applied'] !== true) dropped.add(i);
      return;
    }
    if (!attempts.some(({ e }) => e.t === a.at && of(e) && e['attempt'] === 1 && e['error'] !== undefined)) return;
    // the first retry the API server answered for itself: accepted, or refused for a reason of its
    // own (a NotFound because the object was gone by then: the fault-free user sent then is refused too)
    const accepted = attempts.find(({ e }) => e.t > a.at && of(e) && typeof e['attempt'] === 'number' && e['attempt'] > 1 && (e['error'] === undefined || !injected(e)));
    if (accepted === undefined) return;
    for (let j = i; j < workload.length; j++) {
      const b = workload[j]!;
      // the actions on the object that waited behind it (one due at that very instant waited too)
      if (j === i || (b.type !== 'deleteOwned' && objectOf(b) === id && b.at <= accepted.e.t)) {
        workload[j] = { ...b, at: Math.max(b.at, accepted.e.t) };
        movedAt.set(j, accepted.pos);
      }
    }
  });
  if (movedAt.size === 0 && dropped.size === 0) return undefined;
  // at one instant: the actions due then in the order the user gave them, then the retries in the order the run answered them
  const key = (i: number) => [workload[i]!.at, movedAt.has(i) ? 1 : 0, movedAt.get(i) ?? 0, i] as const;
  const order = workload.map((_, i) => i).filter((i) => !dropped.has(i));
  order.sort((x, y) => {
    const a = key(x);
    const b = key(y);
    return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
  });
  return { ...scenario, workload: order.map((i) => workload[i]!) };
}

/** Who wrote each resource version (`store:write` actors), read from the trace as it grows. */
function writersOf(world: World): (rv: string | undefined) => string | undefined {
  const byRv = new Map<string, string>();
  let seen = 0;
  return (rv) => {
    if (rv === undefined) return undefined;
    const entries = world.trace.entries;
    for (; seen < entries.length; seen++) {
      const e = entries[seen]!;
      if (e.type === 'store:write' && e['rv'] !== undefined) byRv.set(String(e['rv']), String(e['actor']));
    }
    return byRv.get(rv);
  };
}

/** The variations learned masks come from: a light and a heavy one. @internal */
export const BENIGN_VARIATIONS: readonly BenignVariation[] = [
  { seed: 1, jitterMs: 5, shuffleLists: true, reverse: true },
  { seed: 2, jitterMs: 700, shuffleLists: true, resyncAt: 0.5 },
  { seed: 3, jitterMs: 300, shuffleLists: true, spreadMs: 50 },
];

/**
 * {@link BENIGN_VARIATIONS} with lists in key order, index for index: the same timing draws
 * (jitter, reverse, resync, spread), no permutation. What a shuffled variation makes beyond all
 * of these and the twin comes from list order alone, which a correct controller never relies on
 * (the list-order fault's contract): a property that must not learn that as path-dependence
 * asks for them ({@link TwinRunner.keyOrderOf}).
 * @internal
 */
export const KEY_ORDER_VARIATIONS: readonly BenignVariation[] = BENIGN_VARIATIONS.map((v) => ({ ...v, listsInKeyOrder: true }));

/**
 * The `late` variation: the user's changes of existing objects seen 3 s late. Used as the slow
 * ones are (whole-object alternatives, counts of creates and deletes), never to learn masks: a
 * controller that acted a while longer on a declaration the user replaced (a shard started for a
 * run the user had just shrunk, then deleted) ends where that history ends, not on another path.
 * @internal
 */
export const LATE_VARIATION: BenignVariation = { seed: 5, jitterMs: 0, shuffleLists: false, lateUserChangeMs: 3000 };

/** The `busy` variation: no other change (the informers on time, lists in store order). @internal */
export const BUSY_VARIATION: BenignVariation = { seed: 4, jitterMs: 0, shuffleLists: false, busy: true };

/**
 * Installs a variation in a world (seams act in the fault window only, like faults). `resyncAt`
 * below 1 is a fraction of the fault window.
 * @internal
 */
export function installVariation(world: World, v: BenignVariation, faultWindowMs: number): () => void {
  const rng = world.rng.fork(`benign:${v.seed}`);
  // per watch stream (controller/replica/kind): when each object's last event is delivered
  const lastAt = new Map<string, Map<string, number>>();
  const ranks = new Map<string, number>();
  const writers = writersOf(world);
  const uninstall = world.seams.install({
    onWatchEvent(i) {
      const stream = `${i.controller}/${i.replica}/${i.kind}`;
      let objects = lastAt.get(stream);
      if (!objects) lastAt.set(stream, (objects = new Map()));
      const obj = keyOf(i.event.object.metadata);
      // a controller sees what it wrote itself on time: a stale view of its own writes is the
      // stale-cache fault family, which a buggy controller fails fault-free too (it would learn
      // its own bug as path-dependence); its inputs may come at any legal time
      // (and a watch stream being ordered, whatever waits before its write on the stream comes now too)
      const writer = writers(i.event.object.metadata.resourceVersion);
      if (writer !== undefined && writer.startsWith(`controller:${i.controller}/`)) {
        for (const [o, at] of objects) if (at > i.t) objects.set(o, i.t);
        return { type: 'prompt' };
      }
      let hold = v.jitterMs > 0 ? rng.int(0, v.jitterMs) : 0;
      if (v.lateUserChangeMs !== undefined && writer === 'user' && i.event.type === 'MODIFIED') hold += v.lateUserChangeMs;
      if (v.reverse) {
        if (!objects.has(obj)) ranks.set(stream, (ranks.get(stream) ?? 0) + 1);
        hold += 2 * Math.max(0, 50 - (ranks.get(stream) ?? 0));
      }
      const prev = objects.get(obj);
      const at = Math.max(prev === undefined ? 0 : prev + (v.spreadMs ?? 0), i.t + hold);
      objects.set(obj, at);
      return at > i.t ? { type: 'delay', ms: at - i.t } : undefined;
    },
    onList(i) {
      if (!v.shuffleLists || i.count < 2) return undefined;
      const seed = rng.int(1, 1_000_000);
      return v.listsInKeyOrder === true ? undefined : { type: 'shuffle', seed };
    },
  });
  if (v.busy) holdThroughWindows(world, busyWindows(world.scenario, () => true).filter((w) => w.until < faultWindowMs));
  if (v.slow) holdFor(world, v.slow);
  for (const h of v.also ?? []) holdFor(world, h);
  if (v.restart) restartAt(world, v.restart);
  if (v.startDelay) world.startDelays.set(v.startDelay.controller, v.startDelay.ms);
  if (v.pause) pauseAfter(world, v.pause);
  if (v.resyncAt !== undefined) {
    const at = v.resyncAt < 1 ? Math.round(v.resyncAt * faultWindowMs) : v.resyncAt;
    world.kernel.at(at, () => {
      for (const m of world.managers) for (const inst of m.live()) for (const obj of world.store.peekAll(inst.def.for)) inst.enqueue(keyOf(obj.metadata));
    });
  }
  return uninstall;
}

/**
 * Holds the workers of every controller watching the window's kind from its start until the
 * user's superseding change has reached their caches (one watch latency, and a millisecond for
 * the handlers), then lets them take the keys that waited.
 */
function holdThroughWindows(world: World, windows: readonly BusyWindow[]): void {
  for (const w of windows) {
    world.kernel.at(w.from, () => {
      const held = world.managers.flatMap((m) => m.live()).filter((inst) => inst.watches(w.kind) && readsOnly(inst.def, w.kind));
      for (const inst of held) inst.hold(true);
      world.kernel.at(w.until + world.options.watchLatencyMs + 1, () => {
        for (const inst of held) inst.hold(false);
      });
    });
  }
}

/**
 * Holds the workers of one controller (every replica alive then) from a millisecond before `at`,
 * so that the reconcile that began at `at` in the fault-free run waits, for `ms`; then lets them
 * take the keys that waited (reconciled from the cache as it is then). A hosted program's hold
 * delays its timers, responses and watch events instead (ProcessHandle.hold).
 */
function holdFor(world: World, slow: { controller: string; at: number; ms: number; key?: string }): void {
  world.kernel.at(Math.max(0, slow.at - 1), () => {
    const held = world.managers.flatMap((m) => m.live()).filter((inst) => inst.def.name === slow.controller);
    if (slow.key !== undefined) {
      for (const inst of held) inst.holdKey(slow.key, Math.max(0, slow.at - 1) + slow.ms);
      return;
    }
    for (const inst of held) inst.hold(true);
    world.kernel.at(Math.max(0, slow.at - 1) + slow.ms, () => {
      for (const inst of held) inst.hold(false);
    });
  });
}

/**
 * Restarts every live replica of a hosted program at `at` (the new incarnation starts at once) and
 * holds the new ones until `at + ms`: what they asked for at start (their lists) is answered from
 * the world of that moment, late, so a watch resumed from such a list still hears what happened
 * meanwhile (see {@link restartPoints}).
 */
function restartAt(world: World, r: { controller: string; at: number; ms: number }): void {
  world.kernel.at(r.at, () => {
    const mine = world.managers.filter((m) => m.def.name === r.controller && m.def.process !== undefined);
    for (const m of mine) for (const inst of m.live()) inst.crash('restarted (a benign variation: a restart that lost nothing)', 0);
    // after the restart the crash scheduled at this instant: the new incarnations wait
    world.kernel.after(0, () => {
      const held = mine.flatMap((m) => m.live());
      for (const inst of held) inst.hold(true);
      world.kernel.at(r.at + r.ms, () => {
        for (const inst of held) inst.hold(false);
      });
    });
  });
}

/** The client methods that write (a Scale write is recorded as an update or patch of its object). */
const WRITE_METHODS = ['create', 'update', 'updateStatus', 'patch', 'patchStatus', 'delete', 'updateScale', 'patchScale'] as const;

/**
 * Answers the controller's write of {@link WritePause} `ms` late: every live instance's client
 * (from a millisecond before the write) parks the reconcile on the virtual clock right after that
 * write is applied (the store, the trace and the informers see it on time), once.
 */
function pauseAfter(world: World, p: WritePause): void {
  world.kernel.at(Math.max(0, p.at - 1), () => {
    let done = false;
    const actor = `controller:${p.controller}/`;
    const matches = () => {
      const entries = world.trace.entries;
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i]!;
        if (e.type !== 'store:write') continue;
        return e.t === p.at && String(e['actor']).startsWith(actor) && e['error'] === undefined && e['verb'] === p.verb && e['kind'] === p.kind && e['key'] === p.key;
      }
      return false;
    };
    for (const inst of world.managers.flatMap((m) => m.live()).filter((x) => x.def.name === p.controller)) {
      const client = inst.client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const m of WRITE_METHODS) {
        const orig = client[m];
        if (typeof orig !== 'function') continue;
        client[m] = async (...args: unknown[]) => {
          const r = await orig.apply(client, args);
          if (!done && world.kernel.now() === p.at && matches()) {
            done = true;
            await world.kernel.sleep(undefined, p.ms);
          }
          return r;
        };
      }
    }
  });
}

/**
 * The shape of a scenario, for caching what benign runs teach: controllers, environment, objects
 * and the sequence of actions, without their times, the seed or the faults.
 * @internal
 */
export function scenarioShape(s: Scenario, isInput: (kind: string) => boolean = () => false): string {
  const ordered = s.workload.map((a, i) => ({ a, i })).sort((x, y) => x.a.at - y.a.at || x.i - y.i);
  const workload = ordered.map(({ a }) => {
      const { at: _at, ...rest } = a;
      return rest;
    });
  // which changes a busy controller may not have acted on before: alternatives learned from them hold only there
  const busy = busyWindows(s, isInput).map((w) => ordered.findIndex((x) => x.i === w.action));
  return stableStringify({ controllers: s.controllers, environment: s.environment ?? [], initialObjects: s.initialObjects, workload, options: s.options ?? {}, ...(busy.length > 0 ? { busy } : {}) });
}

/** A least-recently-used map. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }
  set(key: string, v: V): void {
    this.map.set(key, v);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

/**
 * Runs and remembers fault-free twins and their benign variations. Shrinking mostly changes the
 * fault plan and keeps the workload, so the same twin is asked for again and again; a small cache
 * keyed by the twin scenario's JSON makes those free.
 * @internal
 */
export class TwinRunner {
  private readonly cache: Lru<Promise<RunRecord>>;
  private readonly benign: Lru<Promise<RunRecord[]>>;
  private readonly busy: Lru<Promise<RunRecord[]>>;
  private readonly slow: Lru<Promise<RunRecord[]>>;
  private readonly lag: Lru<Promise<RunRecord[]>>;
  private readonly keyOrder: Lru<Promise<RunRecord[]>>;
  /** Benign simulations run. */
  benignSimulations = 0;

  constructor(
    private readonly run: (scenario: Scenario) => Promise<RunRecord>,
    capacity = 32,
    private readonly runVariation?: (scenario: Scenario, v: BenignVariation) => Promise<RunRecord>,
  ) {
    this.cache = new Lru(capacity);
    this.benign = new Lru(capacity);
    this.busy = new Lru(capacity);
    this.slow = new Lru(capacity);
    this.lag = new Lru(capacity);
    this.keyOrder = new Lru(capacity);
  }

  /** The twin run of `scenario` (the scenario itself when it has no faults: it is its own twin). */
  twinOf(scenario: Scenario, run?: RunRecord): Promise<RunRecord> {
    if (run && scenario.faults.events.length === 0 && scenario.faults.background.length === 0) return Promise.resolve(run);
    return this.memo(this.cache, twinScenario(scenario), () => this.run(twinScenario(scenario)));
  }

  /** Keeps a twin run made without the cache (see `rememberTwin` of the scenario runner's judge) as the twin of `scenario`. */
  keep(scenario: Scenario, twin: RunRecord): void {
    if (scenario.faults.events.length === 0 && scenario.faults.background.length === 0) return;
    this.cache.set(stableStringify(twinScenario(scenario)), Promise.resolve(twin));
  }

  /** The benign variations of the fault-free run of `scenario` (without that run itself). */
  variationsOf(scenario: Scenario): Promise<RunRecord[]> {
    return this.memoVariations(this.benign, scenario, BENIGN_VARIATIONS);
  }

  /**
   * The fault-free run of `scenario` under the `busy` variation, when it has {@link busyWindows}
   * (else none): asked for only by the properties that accept its end states (same-end-state).
   */
  busyOf(scenario: Scenario, isInput: (kind: string) => boolean): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    const twin = twinScenario(scenario);
    if (!runVariation || busyWindows(twin, isInput).length === 0) return Promise.resolve([]);
    return this.memo(this.busy, twin, async () => {
      this.benignSimulations++;
      return [await runVariation(twin, BUSY_VARIATION)];
    });
  }

  /**
   * The fault-free run `twin` (of the scenario's twin) under each `slow` variation (see
   * {@link slowVariations}) in which the held controller {@link keepsDeciding} (the late one
   * always): asked for only by the properties that accept their end states or counts.
   */
  slowOf(twin: RunRecord, defs: readonly ControllerDefinition[] | undefined): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    const variations = runVariation ? slowVariations(twin, defs) : [];
    if (!runVariation || variations.length === 0) return Promise.resolve([]);
    const scenario = twinScenario(twin.scenario);
    return this.memo(this.slow, scenario, () => this.runDeciding(twin, scenario, variations, runVariation));
  }

  /** `scenario` under each of `variations`, keeping the runs whose held controller {@link keepsDeciding}. */
  private async runDeciding(twin: RunRecord, scenario: Scenario, variations: readonly BenignVariation[], runVariation: (scenario: Scenario, v: BenignVariation) => Promise<RunRecord>): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    for (const v of variations) {
      this.benignSimulations++;
      const r = await runVariation(scenario, v);
      // a controller that stops deciding after one late decision is a bug a delay exposed, not a destination
      if (v.slow ? keepsDeciding(r, twin, v.slow) : true) out.push(r);
    }
    return out;
  }

  /**
   * The fault-free run `twin` under each {@link lagVariations} of the timing-dependent `kinds` in
   * which the held controller {@link keepsDeciding}: asked for only by properties configured with such kinds.
   */
  lagOf(twin: RunRecord, defs: readonly ControllerDefinition[] | undefined, kinds: readonly string[]): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    const variations = runVariation && kinds.length > 0 ? lagVariations(twin, defs, new Set(kinds)) : [];
    if (!runVariation || variations.length === 0) return Promise.resolve([]);
    const scenario = twinScenario(twin.scenario);
    return this.memo(this.lag, scenario, () => this.runDeciding(twin, scenario, variations, runVariation), [...kinds].sort().join(','));
  }

  /**
   * The fault-free run `twin` under each {@link respecVariations} of `run` (for every kind) and
   * each {@link idleVariations} of `run` for the timing-dependent
   * `kinds` in which the held controller {@link keepsDeciding}; and the {@link lateVariations} of
   * `run`, of the fault-free control plane in a world as slow as the run's when faults that slow
   * the world (`slowKinds`) acted in it (see {@link worldOf}; else of `twin`): a controller late by
   * a quarter of a second in a world whose Pods came up late is only both at once. Not cached:
   * they depend on the faulty run.
   */
  async idleOf(twin: RunRecord, run: RunRecord, defs: readonly ControllerDefinition[] | undefined, kinds: readonly string[], slowKinds: ReadonlySet<string> = new Set()): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    if (!runVariation) return [];
    // a clock-driven decision the faulty run made after a change of its object (any kind: no declaration needed)
    const respec = respecVariations(run, twin, defs);
    const later = respec.length === 0 ? [] : await this.runDeciding(twin, twinScenario(twin.scenario), respec, runVariation);
    if (kinds.length === 0) return later;
    const declared = new Set(kinds);
    const idle = idleVariations(run, twin, defs, declared);
    const out = [...later, ...(idle.length === 0 ? [] : await this.runDeciding(twin, twinScenario(twin.scenario), idle, runVariation))];
    const world = worldScenario(run, slowKinds);
    let base = twin;
    let scenario = twinScenario(twin.scenario);
    if (world !== undefined && world !== run.scenario) {
      this.benignSimulations++;
      base = await runVariation(world, WORLD_VARIATION);
      scenario = world;
    }
    const late = world === run.scenario ? [] : lateVariations(run, base, defs, declared);
    return late.length === 0 ? out : [...out, ...(await this.runDeciding(base, scenario, late, runVariation))];
  }

  /** The fault-free run of `twin`'s scenario with the user's actions when `run` accepted them ({@link userAcceptedLate}; not cached: it depends on the faulty run). */
  async acceptedOf(twin: RunRecord, run: RunRecord): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    const scenario = runVariation ? userAcceptedLate(run, twinScenario(twin.scenario)) : undefined;
    if (!runVariation || scenario === undefined) return [];
    this.benignSimulations++;
    return [await runVariation(scenario, { seed: 400, jitterMs: 0, shuffleLists: false })];
  }

  /**
   * The fault-free control plane in a world as slow as `run`'s: the run's scenario whose faults
   * are only those that slow the world (`slowKinds`, the modules marked
   * {@link FaultModule.slowsTheWorld}), pinned to the objects they acted on in the run (an `nth`
   * counts objects in the order the environment met them, which the run's other faults changed);
   * `run` itself when those are all it has. Not cached: it depends on the faulty run. None when no
   * such fault acted.
   */
  async worldOf(run: RunRecord, slowKinds: ReadonlySet<string>): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    if (!runVariation) return [];
    const world = worldScenario(run, slowKinds);
    if (world === undefined) return [];
    if (world === run.scenario) return [run];
    this.benignSimulations++;
    return [await runVariation(world, WORLD_VARIATION)];
  }

  /** The fault-free run `twin` under each {@link phaseVariations} `run` suggests (not cached: they depend on the faulty run). */
  async phaseOf(twin: RunRecord, run: RunRecord, defs: readonly ControllerDefinition[] | undefined): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    const variations = runVariation ? phaseVariations(run, twin, defs) : [];
    if (!runVariation || variations.length === 0) return [];
    return this.runEach(runVariation, twinScenario(twin.scenario), variations);
  }

  /**
   * The fault-free run of `scenario` under each of {@link KEY_ORDER_VARIATIONS} (index for index
   * with {@link variationsOf}): asked for only by the properties that tell list order from timing.
   */
  keyOrderOf(scenario: Scenario): Promise<RunRecord[]> {
    return this.memoVariations(this.keyOrder, scenario, KEY_ORDER_VARIATIONS);
  }

  /** The fault-free run of `scenario` under each of `variations`, once per scenario (`cache`). */
  private memoVariations(cache: Lru<Promise<RunRecord[]>>, scenario: Scenario, variations: readonly BenignVariation[]): Promise<RunRecord[]> {
    const runVariation = this.runVariation;
    if (!runVariation) return Promise.resolve([]);
    const twin = twinScenario(scenario);
    return this.memo(cache, twin, () => this.runEach(runVariation, twin, variations));
  }

  /** Runs `scenario` under each variation in turn, counting them as benign simulations. */
  private async runEach(runVariation: (scenario: Scenario, v: BenignVariation) => Promise<RunRecord>, scenario: Scenario, variations: readonly BenignVariation[]): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    for (const v of variations) {
      this.benignSimulations++;
      out.push(await runVariation(scenario, v));
    }
    return out;
  }

  private memo<V>(cache: Lru<Promise<V>>, s: Scenario, make: () => Promise<V>, also = ''): Promise<V> {
    const key = also === '' ? stableStringify(s) : `${also} ${stableStringify(s)}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const p = make();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
    return p;
  }
}

/** The variation a slow world runs under: none (see {@link TwinRunner.worldOf}). */
const WORLD_VARIATION: BenignVariation = { seed: 401, jitterMs: 0, shuffleLists: false };

/**
 * The scenario of the fault-free control plane in a world as slow as `run`'s (see
 * {@link TwinRunner.worldOf}): `run`'s own scenario when faults that slow the world
 * (`slowKinds`) are all it has, else its scenario with only those, pinned to the objects they
 * acted on; undefined when none acted.
 * @internal
 */
export function worldScenario(run: RunRecord, slowKinds: ReadonlySet<string>): Scenario | undefined {
  if (slowKinds.size === 0) return undefined;
  const { events, background } = run.scenario.faults;
  if (events.every((e) => slowKinds.has(e.kind)) && background.every((b) => b.rate === 0 || slowKinds.has(b.kind))) {
    return events.length > 0 || background.some((b) => b.rate > 0) ? run.scenario : undefined;
  }
  const pinned = new Map<string, FaultEvent>();
  for (const e of run.trace) {
    if (e.type !== 'fault:inject' || typeof e['kind'] !== 'string' || !slowKinds.has(e['kind']) || typeof e['key'] !== 'string') continue;
    const delayMs = e['delayMs'];
    const id = `${e['kind']}\u0000${e['key']}\u0000${String(delayMs)}`;
    if (!pinned.has(id)) pinned.set(id, { kind: e['kind'], target: e['key'], ...(typeof delayMs === 'number' ? { params: { delayMs } } : {}) });
  }
  if (pinned.size === 0) return undefined;
  return { ...run.scenario, faults: { events: [...pinned.values()], background: [] } };
}

/**
 * Learned masks per property and scenario shape, merged over every scenario of that shape that
 * needed them (a mask learned once for a workload holds for the same workload at other times).
 * @internal
 */
export class LearnedCache {
  private readonly byKey = new Map<string, LearnedMasks>();
  /** Properties that learned masks for some shape (for the others a look-up needs no shape). */
  private readonly learners = new Set<string>();

  /** Whether `property` learned masks for any shape yet. */
  learnedFor(property: string): boolean {
    return this.learners.has(property);
  }

  get(property: string, shape: string): LearnedMasks | undefined {
    return this.byKey.get(`${property}\u0000${shape}`);
  }

  /** Merges `masks` into those of the shape and returns the merged masks. */
  add(property: string, shape: string, masks: LearnedMasks): LearnedMasks {
    const key = `${property}\u0000${shape}`;
    const cur = this.byKey.get(key) ?? {};
    const out: LearnedMasks = { ...cur };
    for (const [name, list] of Object.entries(masks)) out[name] = [...new Set([...(out[name] ?? []), ...list])].sort();
    this.byKey.set(key, out);
    this.learners.add(property);
    return out;
  }

  /** Every learned mask, per property (for the check result). */
  summary(): { property: string; masks: string[] }[] {
    const per = new Map<string, Set<string>>();
    for (const [key, masks] of this.byKey) {
      const property = key.slice(0, key.indexOf('\u0000'));
      let set = per.get(property);
      if (!set) per.set(property, (set = new Set()));
      for (const [name, list] of Object.entries(masks)) for (const m of list) set.add(name === 'paths' ? m : name === 'alternatives' ? `${m.slice(0, m.indexOf('\u0000'))} (ends as in a fault-free run of a busy or slow controller)` : name === 'pacedFields' ? `${m.split('\u0000').slice(0, 2).join(': ')} (as in a fault-free run whose timing-dependent controller came later)` : `${m} (${name})`);
    }
    return [...per].map(([property, set]) => ({ property, masks: [...set].sort() })).filter((x) => x.masks.length > 0);
  }
}
