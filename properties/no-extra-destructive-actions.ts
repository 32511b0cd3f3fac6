import { defineProperty, nothingToJudge, type RunRecord, type Verdict } from '../src/harness/property.js';
import { NAMESPACE_CONTROLLER_ACTOR } from '../src/store/namespace-lifecycle.js';
import { explanation, fmtActor, fmtList, fmtTime, letFacts, plural } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { firedKinds, RECORD_KINDS, skipped, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { timelineOf, type TimelineWrite } from './_internals/timeline.js';
import { aliasUids, uidAliases } from './_internals/normalize.js';
import { groupBy } from './_internals/windows.js';
import { fmtLearned } from './_internals/masks.js';
import { replacements, transientContents, type Replacement } from './_internals/replacements.js';
import { DEFAULT_HISTORY, historyOf, historyProblem, type HistorySelector } from './_internals/history.js';
import { changesTemplate, podsDeleted, TEMPLATE_KINDS, templatePaths, unansweredWrites } from './_internals/template-changes.js';

/** Options of {@link noExtraDestructiveActions}. @public */
export interface NoExtraDestructiveActionsOptions {
  /** Fault kinds after which the comparison is skipped: they change the world itself. @defaultValue ['drift', 'recreation', 'environment-pod-eviction', 'environment-crash-looping-pod'] */
  skipUnderFaults: string[];
  /** Extra creates or deletes per object allowed beyond the fault-free twin's. @defaultValue 0 */
  slack: number;
  /** Kinds left out: leader-election Leases, and core/v1 Events (a best-effort record: one recorded twice destroys nothing). @defaultValue ['Lease', 'Event'] */
  ignoreKinds: string[];
  /** Objects whose creates and deletes are not counted, as `Kind namespace/name` with `*` wildcards (`Job default/web-*`); external resources as `service/collection/id` (`storage.example/buckets/*`). @defaultValue [] */
  masks: string[];
  /** Count only objects on whose creates and deletes benign variations of the fault-free twin agree. @defaultValue true */
  learn: boolean;
  /**
   * Objects that record history (revisions kept for rollback), not counted: which of them exist
   * depends on which declarations the controller happened to observe, so one made for a spec the
   * user reverted, and pruned, destroyed nothing (same-end-state leaves them out the same way and
   * holds them to their `limit`). A selector with `labels` or `type` matches the objects still
   * there at the end; one naming only a kind, every object of it.
   * @defaultValue [{ kind: 'ControllerRevision' }, { kind: 'Secret', type: 'helm.sh/release.v1', labels: ['name'] }]
   */
  history: HistorySelector[];
  /**
   * Workload kinds whose Pod-template changes (`spec.template`) count as destructive actions on
   * them: each makes the environment replace the workload's Pods (a Deployment rolls every Pod
   * over to a new ReplicaSet, a StatefulSet or DaemonSet deletes and recreates each one), so a
   * restart made for nothing, on a view of the world already replaced, destroys as much as
   * deleting the Pods would. Per object, changes of its template by controllers under faults do
   * not exceed the fault-free twin's. Add custom workloads whose `spec.template` is a Pod
   * template (`Rollout`, `CloneSet`); `[]` turns template counting off.
   * @defaultValue ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']
   */
  templateKinds: string[];
}

/** Generated-name suffixes (the store's 5 characters) are ignored, so generated objects compare by prefix. */
const GENERATED = /-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

function objectId(w: TimelineWrite, aliases: ReadonlyMap<string, string>): string {
  return `${w.kind} ${aliasUids(w.key.replace(GENERATED, '-*'), aliases)}`;
}

const GC = 'environment:garbage-collector';

/** `Job default/web-*` as a regular expression over object ids. */
function globOf(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

/**
 * Creates made for an owner that was already gone or going: the reconcile's primary object had
 * been removed from the store, or marked for deletion (and not created again), when the
 * reconcile created the object, and the garbage collector removed it (for its dangling owner, or
 * as a dependent of an owner deleted in the foreground, which the collector deletes again when
 * made meanwhile), or the namespace controller with the namespace the collector removed. A cache
 * that has not yet seen a deletion makes every informer-based controller do this; nothing is
 * destroyed, and the collector, not the controller, cleans up. (A controller that keeps making
 * dependents for a terminating owner holds a foreground deletion up: deletion-completes says so.)
 */
function stillborn(run: RunRecord, writes: readonly TimelineWrite[]): Set<TimelineWrite> {
  // removed by the collector, or with its namespace (a Role in the Namespace the controller created for the gone owner)
  const collected = new Set(writes.filter((w) => (w.actor === GC || w.actor === NAMESPACE_CONTROLLER_ACTOR) && w.removed && w.uid !== undefined).map((w) => w.uid!));
  const out = new Set<TimelineWrite>();
  for (const w of writes) {
    if (w.verb !== 'create' || w.uid === undefined || !collected.has(w.uid)) continue;
    if (ownerGone(run, writes, w)) out.add(w);
  }
  return out;
}

/** Whether the primary object of the reconcile that made `w` had been removed, or marked for deletion (and not created again), before `w`. */
function ownerGone(run: RunRecord, writes: readonly TimelineWrite[], w: TimelineWrite): boolean {
  if (!w.reconcile) return false;
  const primary = run.primaryKinds[run.controllers.indexOf(w.reconcile.controller)];
  if (primary === undefined) return false;
  let gone = false;
  for (const x of writes) {
    if (x.index >= w.index) break;
    if (x.kind !== primary || x.key !== w.reconcile.key || x.error !== undefined) continue;
    if (x.removed || x.markedForDeletion) gone = true;
    else if (x.verb === 'create') gone = false;
  }
  return gone;
}

/**
 * Deletes of dependents the cascade was removing anyway: the reconcile's primary object had been
 * removed or marked for deletion before the delete, and in the fault-free run the garbage
 * collector (or the namespace controller) removed this object. A controller acting on the spec a
 * user wrote a moment before deleting the object (a scale-down and the delete at one instant, the
 * delete's event a millisecond behind) trims a child its owner no longer needs, which the
 * collector removes milliseconds later in the fault-free run: nothing is destroyed that the
 * cascade would have kept (rt45 FA-1). Under an orphaning delete the collector removes nothing,
 * so such a delete still counts.
 */
function doomedDeletes(run: RunRecord, deletes: readonly TimelineWrite[], collectedInTwin: boolean): number {
  if (!collectedInTwin) return 0;
  const writes = timelineOf(run).writes;
  return deletes.filter((w) => ownerGone(run, writes, w)).length;
}

/** The objects the garbage collector or the namespace controller removed in `run`, by object id. */
function collectedIds(run: RunRecord): Set<string> {
  const aliases = uidAliases(run.writes);
  return new Set(timelineOf(run).writes.filter((w) => (w.actor === GC || w.actor === NAMESPACE_CONTROLLER_ACTOR) && w.removed).map((w) => objectId(w, aliases)));
}

/**
 * Whether an action was decided on a view of the world read live: every read of the reconcile
 * that made it, up to the action, went to the API server (no cache, no injected fault). An object
 * the fault-free run never made, created and deleted only on such views, exists because of which
 * states the controller happened to see when it was triggered (two spec changes a coalesced event
 * turned into one: a migration Job per transition), not because it acted on a wrong view.
 */
function onLiveView(run: RunRecord, w: Pick<TimelineWrite, 'reconcile' | 'index'>): boolean {
  const r = w.reconcile;
  if (!r) return false;
  let reads = 0;
  for (let i = r.startIndex + 1; i < w.index; i++) {
    const e = run.trace[i]!;
    if (e.type !== 'store:read' || e['actor'] !== r.actor) continue;
    if (e['cached'] !== false || e['fault'] !== undefined) return false;
    reads++;
  }
  return reads > 0;
}

/**
 * uids of objects a controller created without learning it: the API server applied the create
 * but the answer was lost (an api-error timeout or reset with `applied`). The controller saw a
 * failure and rightly tries again; with a generated name (which no create can repeat
 * idempotently) that makes one more, and it deletes the surplus once it sees it, as
 * kube-controller-manager's ReplicaSet controller does. Like an object drift made, it was put in
 * the world behind the controller's back: one create and one delete per such object are not extra.
 */
function unacknowledged(run: RunRecord): Set<string> {
  const out = new Set<string>();
  const trace = run.trace;
  for (let i = 0; i < trace.length; i++) {
    const f = trace[i]!;
    if (f.type !== 'fault:inject' || f['kind'] !== 'api-error' || f['applied'] !== true || f['verb'] !== 'create') continue;
    // the store's record of the applied write comes right after the decision, in the same instant
    for (let j = i + 1; j < trace.length && trace[j]!.t === f.t; j++) {
      const w = trace[j]!;
      if (w.type !== 'store:write' || w['actor'] !== f['actor']) continue;
      if (w['verb'] === 'create' && w['error'] === undefined && typeof w['uid'] === 'string') out.add(w['uid']);
      break;
    }
  }
  return out;
}

/**
 * uids of Pods the environment held back, with until when: a Pod whose start a slow rollout
 * delayed (until the delay ran out), or whose readiness never-ready blocked (until faults
 * stopped). A controller that deletes such a Pod meanwhile answers the world the fault made, not a
 * wrong view of it: a rolling update replaces an unavailable Pod first (the DaemonSet and
 * Deployment controllers both do), where the fault-free run's Pod was Ready and waited its turn.
 */
function heldBack(run: RunRecord, writes: readonly TimelineWrite[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of run.trace) {
    if (f.type !== 'fault:inject' || f['objectKind'] !== 'Pod' || typeof f['key'] !== 'string') continue;
    let until: number;
    if (f['kind'] === 'environment-slow-rollout' && f['step'] === 'pod:start' && typeof f['delayMs'] === 'number') until = f.t + f['delayMs'];
    else if (f['kind'] === 'environment-pod-never-ready') until = run.timing.settleStart;
    else continue;
    // the Pod of that name at the time: the last one created before
    let uid: string | undefined;
    for (const w of writes) {
      if (w.t > f.t) break;
      if (w.verb === 'create' && w.kind === 'Pod' && w.key === f['key'] && w.error === undefined && w.uid !== undefined) uid = w.uid;
    }
    if (uid !== undefined) out.set(uid, Math.max(out.get(uid) ?? 0, until));
  }
  return out;
}

interface Tally {
  creates: TimelineWrite[];
  deletes: TimelineWrite[];
  /**
   * Creates of objects the controller never learned it made (see {@link unacknowledged}), and
   * deletes of Pods the environment held back (see {@link heldBack}): each allows one create and
   * one delete (the surplus trimmed; the held-back Pod replaced).
   */
  unacknowledged: number;
  /** Changes of its Pod template (see {@link NoExtraDestructiveActionsOptions.templateKinds}): each replaces its Pods. */
  restarts: TimelineWrite[];
  /** Of those, the ones the API server applied while their answer was lost: the controller rightly asked again. */
  unansweredRestarts: number;
}

/** Whether a write is of an object that records history (see {@link NoExtraDestructiveActionsOptions.history}). */
function historyWrite(run: RunRecord, history: readonly HistorySelector[]): (w: TimelineWrite) => boolean {
  if (history.length === 0) return () => false;
  const byKind = new Set(history.filter((h) => h.labels === undefined && h.type === undefined).map((h) => h.kind));
  const kept = new Set(run.finalObjects.filter((o) => historyOf(o, history) !== undefined).map((o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`));
  return (w) => byKind.has(w.kind) || kept.has(`${w.kind} ${w.key}`);
}

function tally(run: RunRecord, ignore: Set<string>, history: readonly HistorySelector[], templateKinds: ReadonlySet<string>): Map<string, Tally> {
  const all = timelineOf(run).writes;
  const isHistory = historyWrite(run, history);
  const ghost = stillborn(run, all);
  const unacked = unacknowledged(run);
  const held = heldBack(run, all);
  const ws = all.filter((w) => w.actor.startsWith('controller:') && w.error === undefined && !ignore.has(w.kind) && !ghost.has(w) && !isHistory(w) && (w.verb === 'create' || (w.verb === 'delete' && !w.noop)));
  const out = new Map<string, Tally>();
  // a name holding a uid compares by whose uid it is: uids follow creation order, which faults change
  const aliases = uidAliases(run.writes);
  for (const [id, xs] of groupBy(ws, (w) => objectId(w, aliases))) {
    const creates = xs.filter((w) => w.verb === 'create');
    const deletes = xs.filter((w) => w.verb === 'delete');
    const replaced = deletes.filter((w) => w.uid !== undefined && w.t <= (held.get(w.uid) ?? -1)).length;
    out.set(id, { creates, deletes, unacknowledged: creates.filter((w) => w.uid !== undefined && unacked.has(w.uid)).length + replaced, restarts: [], unansweredRestarts: 0 });
  }
  if (templateKinds.size === 0) return out;
  const restarts = all.filter((w) => w.actor.startsWith('controller:') && !ignore.has(w.kind) && changesTemplate(w, templateKinds) && !isHistory(w));
  if (restarts.length === 0) return out;
  const unanswered = unansweredWrites(run);
  for (const [id, xs] of groupBy(restarts, (w) => objectId(w, aliases))) {
    let t = out.get(id);
    if (!t) out.set(id, (t = { creates: [], deletes: [], unacknowledged: 0, restarts: [], unansweredRestarts: 0 }));
    t.restarts = xs;
    t.unansweredRestarts = xs.filter((w) => unanswered.has(w.index)).length;
  }
  return out;
}

/** The group {@link orderOnly} counts external resources' replacements in. */
const EXTERNAL = '(external resources)';

/** The kind of an object id (`Member default/db-0` → `Member`). */
function kindOf(id: string): string {
  return id.slice(0, id.indexOf(' '));
}

/** Destructive actions of one tallied run per kind: creates, deletes and Pod-template changes (and replacements, under {@link EXTERNAL}). */
function destructionByKind(t: ReadonlyMap<string, Tally>, replaced: ReadonlyMap<string, readonly unknown[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, x] of t) out.set(kindOf(id), (out.get(kindOf(id)) ?? 0) + x.creates.length + x.deletes.length + x.restarts.length);
  let n = 0;
  for (const list of replaced.values()) n += list.length;
  if (n > 0) out.set(EXTERNAL, n);
  return out;
}

/**
 * Which benign runs a count may be learned from, per kind: all of them, except a run that
 * shuffled its lists (`tallies[1..shuffled]`, the twin's variations) for a kind of which it made
 * more destructive actions than any run with lists in key order (the twin, the slow runs, the
 * variations' key-order copies: the same timing draws). A correct controller never relies on list
 * order (the list-order fault's contract): a permutation may change which objects it acts on (one
 * of interchangeable members removed), never how many. More than that is list-order dependence: a
 * controller that keeps `list()[0]` deletes the seed member and makes it again, in the shuffled
 * fault-free run as under the list-order fault; learned from there, it would be forgiven wherever
 * it shows.
 */
function orderOnly(tallies: readonly ReadonlyMap<string, Tally>[], replaced: readonly ReadonlyMap<string, readonly unknown[]>[], shuffled: number): (run: number, kind: string) => boolean {
  if (shuffled === 0) return () => true;
  const by = tallies.map((t, i) => destructionByKind(t, replaced[i]!));
  const inKeyOrder = new Map<string, number>();
  by.forEach((m, i) => {
    if (i >= 1 && i <= shuffled) return;
    for (const [k, n] of m) inKeyOrder.set(k, Math.max(inKeyOrder.get(k) ?? 0, n));
  });
  return (run, kind) => run < 1 || run > shuffled || (by[run]!.get(kind) ?? 0) <= (inKeyOrder.get(kind) ?? 0);
}

/**
 * No extra destructive actions (SPEC §5): per object, the creates and deletes controllers make
 * under faults do not exceed those of the fault-free twin. Catches a transient wrong delete (or
 * a duplicate create) that is later repaired, so the end state alone looks fine: acting on a
 * stale cache, on a lost event, or twice after a crash. A create made for an owner that was
 * already deleted, which the garbage collector removed at once, does not count: it destroys
 * nothing, and every cache-based controller makes it while its cache lags behind a deletion. Nor
 * does an object the fault-free run never made when every action on it was decided on reads that
 * went to the API server: it belongs to another legal path (two spec changes seen as one), not to
 * a wrong view of the world. Nor does a delete of a dependent made after its owner was deleted,
 * which the collector removes in the fault-free run: the cascade was destroying it anyway (an
 * orphaning delete keeps it, and such a delete counts). Nor do one create and one delete per object the API server made for
 * a create whose answer was lost: the controller rightly tried again, and trimmed the surplus.
 * Nor do one delete and one create per Pod the environment held back (a slow rollout delaying its
 * start, never-ready blocking its readiness) that a controller replaced meanwhile: a rolling
 * update replaces an unavailable Pod first, an answer to the world the fault made. Nor, more
 * generally, what the fault-free control plane does in a world as slow as the run's (the faults
 * marked `slowsTheWorld`, pinned to the objects they held back): an EndpointSlice deleted when the
 * last Ready Pod went while the next was still starting, and made again when it became Ready.
 * Benign runs with lists in another order teach which objects of a kind a controller may act on,
 * not how many (see `orderOnly`): relying on list order is the bug the list-order fault exposes.
 *
 * A change of a workload's Pod template counts too (Deployment, StatefulSet, DaemonSet,
 * ReplicaSet, Job: `templateKinds`): it destroys every Pod of the workload as surely as deleting
 * them, since the environment replaces each one (a rollout restart), though the controller wrote
 * no delete. A restart decided on a cache behind the API server goes onto a state already
 * replaced and is followed by another: the same end state, every Pod replaced once more. Per
 * workload, more template changes by controllers than in the fault-free twin fail, unless the
 * change was decided on reads that all went to the API server (another legal path), or the API
 * server applied one while its answer was lost (the controller rightly asked again).
 *
 * External resources of fake services count too, by replacement: a reconcile that deletes the
 * only resource with some content and creates one alike (see `replacements`) destroyed what the
 * first one held, a bucket's data, although the end state converges. More of those than in the
 * fault-free twin fail, unless the reconcile decided on reads that all went to the API server (a
 * credential rotated because the Secret that should hold it was never written is another legal
 * path, not a wrong view).
 * @example properties.noExtraDestructiveActions({ slack: 1 })
 * @public
 */
export const noExtraDestructiveActions = defineProperty<NoExtraDestructiveActionsOptions>({
  name: 'no-extra-destructive-actions',
  description: 'per object, controller creates and deletes (and Pod-template changes of workloads, which replace their Pods) under faults do not exceed those of the fault-free twin',
  defaults: { skipUnderFaults: [...WORLD_CHANGING_FAULTS], slack: 0, ignoreKinds: [...RECORD_KINDS], masks: [], learn: true, history: [...DEFAULT_HISTORY], templateKinds: [...TEMPLATE_KINDS] },
  needsTwin: true,
  validate: (o) =>
    !(o.slack >= 0)
      ? `slack must be ≥ 0, got ${String(o.slack)}`
      : !Array.isArray(o.masks) || o.masks.some((m) => typeof m !== 'string' || m === '')
        ? 'masks must be an array of object patterns such as "Job default/web-*"'
        : !Array.isArray(o.templateKinds) || o.templateKinds.some((k) => typeof k !== 'string' || k === '')
          ? 'templateKinds must be an array of workload kinds such as "Deployment" (or [] to count no template change)'
          : historyProblem(o.history),
  learnsFromSlow: true,
  learnsFromKeyOrder: true,
  learn: (benign, o) => {
    if (!o.learn) return {};
    const ignore = new Set(o.ignoreKinds);
    // a slow controller's runs too: a slot missed past its deadline makes its Job no more, and keeps the previous one
    // and the fault-free control plane's in a world as slow as the run's (Pods never Ready while faults act leave a Service none to route to)
    // and the twin's variations with lists in key order (their timing without the permutations)
    const benignRuns = [...benign.twin, ...(benign.slow ?? []), ...(benign.world ?? []), ...(benign.keyOrder ?? [])];
    const kinds = new Set(o.templateKinds);
    const tallies = benignRuns.map((r) => tally(r, ignore, o.history, kinds));
    const replaced = benignRuns.map((r) => replacements(r, uidAliases(r.writes)));
    // the variations that shuffle lists (the twin's, when their key-order copies were given) teach less: see orderOnly
    const shuffled = benign.keyOrder === undefined ? 0 : benign.twin.length - 1;
    const learnable = orderOnly(tallies, replaced, shuffled);
    const ids = new Set(tallies.flatMap((t) => [...t.keys()]));
    const count = (t: ReturnType<typeof tally>, id: string) => [t.get(id)?.creates.length ?? 0, t.get(id)?.deletes.length ?? 0] as const;
    // where benign runs disagree, the most any of them made is what a fault-free run may make
    const out: string[] = [];
    for (const id of [...ids].sort()) {
      const counts = tallies.filter((_, i) => learnable(i, kindOf(id))).map((t) => count(t, id));
      if (new Set(counts.map((c) => c.join('/'))).size < 2) continue;
      out.push(`${id}: up to ${counts.reduce((m, c) => Math.max(m, c[0]), 0)} creates and ${counts.reduce((m, c) => Math.max(m, c[1]), 0)} deletes`);
    }
    for (const id of [...ids].sort()) {
      const counts = tallies.filter((_, i) => learnable(i, kindOf(id))).map((t) => t.get(id)?.restarts.length ?? 0);
      if (new Set(counts).size < 2) continue;
      out.push(`${id}: up to ${counts.reduce((m, c) => Math.max(m, c), 0)} Pod-template changes`);
    }
    for (const content of [...new Set(replaced.flatMap((m) => [...m.keys()]))].sort()) {
      const counts = replaced.filter((_, i) => learnable(i, EXTERNAL)).map((m) => m.get(content)?.length ?? 0);
      if (new Set(counts).size < 2) continue;
      out.push(`${content}: up to ${counts.reduce((m, c) => Math.max(m, c), 0)} replacements`);
    }
    return { counts: out };
  },
  judge: (run, o, twin, _extras, learned): Verdict => {
    if (!twin) return nothingToJudge('no fault-free twin run was given');
    const changed = firedKinds(run, o.skipUnderFaults);
    if (changed.length > 0) return skipped(changed);
    const ignore = new Set(o.ignoreKinds);
    const kinds = new Set(o.templateKinds);
    const mine = tally(run, ignore, o.history, kinds);
    const theirs = tally(twin, ignore, o.history, kinds);
    const benignMax = new Map<string, [number, number]>();
    const benignReplaced = new Map<string, number>();
    const benignRestarts = new Map<string, number>();
    for (const e of learned?.['counts'] ?? []) {
      const m = /^(.*): up to (\d+) creates and (\d+) deletes$/.exec(e);
      if (m) benignMax.set(m[1]!, [Number(m[2]), Number(m[3])]);
      const r = /^(.*): up to (\d+) replacements$/.exec(e);
      if (r) benignReplaced.set(r[1]!, Number(r[2]));
      const t = /^(.*): up to (\d+) Pod-template changes$/.exec(e);
      if (t) benignRestarts.set(t[1]!, Number(t[2]));
    }
    const userMasks = o.masks.map(globOf);
    let collected: Set<string> | undefined;
    for (const [id, { creates, deletes, unacknowledged: unacked }] of mine) {
      if (userMasks.some((re) => re.test(id))) continue;
      const base = theirs.get(id) ?? { creates: [], deletes: [] };
      const [maxCreates, maxDeletes] = benignMax.get(id) ?? [0, 0];
      let extraDeletes = deletes.length - Math.max(base.deletes.length, maxDeletes) - unacked;
      if (extraDeletes > o.slack) extraDeletes -= doomedDeletes(run, deletes, (collected ??= collectedIds(twin)).has(id));
      const extraCreates = creates.length - Math.max(base.creates.length, maxCreates) - unacked;
      if (extraDeletes <= o.slack && extraCreates <= o.slack) continue;
      const acts = [...creates, ...deletes].sort((a, b) => a.index - b.index);
      // a new object of a legal path, not a repeat: the twin never made it, and every action on it read the world live
      if (base.creates.length + base.deletes.length + maxCreates + maxDeletes === 0 && acts.every((w) => onLiveView(run, w))) continue;
      const first = acts.find((w) => w.verb === (extraDeletes > o.slack ? 'delete' : 'create')) ?? acts[0]!;
      const then = [
        `${fmtList([...new Set(acts.map((w) => fmtActor(w.actor)))], 2)} made ${plural(creates.length, 'create')} and ${plural(deletes.length, 'delete')} of ${id} (${acts.map((w) => `${w.verb} at ${fmtTime(w.t)}`).join(', ')}), against ${plural(base.creates.length, 'create')} and ${plural(base.deletes.length, 'delete')} in the fault-free run`,
      ];
      if (first.reconcile) then.push(`the extra ${first.verb} came from the ${fmtReconcile(first.reconcile)}`);
      const note = fmtLearned(learned);
      if (note) then.push(`${note}: that many are allowed`);
      then.push(extraDeletes > o.slack ? 'a destructive action was taken on a wrong view of the world: re-read live state (or use preconditions) before deleting' : 'a create was repeated: use deterministic names or look the object up before creating');
      return {
        ok: false,
        summary: `extra destructive actions on ${id}: ${plural(creates.length, 'create')} and ${plural(deletes.length, 'delete')} under faults, ${base.creates.length} and ${base.deletes.length} without`,
        explanation: explanation(letFacts(run.trace, { until: acts.at(-1)!.t }), then),
        evidence: { object: id, creates: creates.length, deletes: deletes.length, twinCreates: base.creates.length, twinDeletes: base.deletes.length, actions: acts.map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, key: w.key })) },
      };
    }
    // workloads whose Pods were replaced for nothing: their template changed more often than without faults
    for (const [id, { restarts, unansweredRestarts }] of mine) {
      if (restarts.length === 0 || userMasks.some((re) => re.test(id))) continue;
      const base = theirs.get(id)?.restarts ?? [];
      // a change decided on reads that all went to the API server is another legal path (as for a resource replaced, below)
      const counted = restarts.filter((w) => !onLiveView(run, w));
      if (counted.length - Math.max(base.length, benignRestarts.get(id) ?? 0) - unansweredRestarts <= o.slack) continue;
      return restartVerdict(run, twin, id, restarts, base, learned);
    }
    // external resources destroyed and made again
    const theirsReplaced = replacements(twin, uidAliases(twin.writes));
    // what the fault-free run only ever made and removed within one reconcile (a lock row) holds nothing to lose
    const transient = transientContents(twin, uidAliases(twin.writes));
    for (const [content, all] of replacements(run, uidAliases(run.writes))) {
      if (transient.has(content)) continue;
      const base = theirsReplaced.get(content)?.length ?? 0;
      // a replacement decided on reads that all went to the API server is another legal path (a key rotated because the Secret that should hold it was never written), not a wrong view
      const list = all.filter((x) => x.deleteRequest === undefined || !onLiveView(run, x.deleteRequest));
      if (list.length - Math.max(base, benignReplaced.get(content) ?? 0) <= o.slack) continue;
      if (userMasks.some((re) => re.test(content) || list.some((x) => re.test(`${x.where}/${x.deleted}`)))) continue;
      return replacedVerdict(run, content, list, base, learned);
    }
    return { ok: true };
  },
});

/** The verdict for an external resource destroyed and made again more often than without faults. */
function replacedVerdict(run: RunRecord, content: string, list: readonly Replacement[], base: number, learned: Parameters<typeof fmtLearned>[0]): Verdict {
  const x = list[list.length - 1 - Math.min(base, list.length - 1)]!;
  const del = x.deleteRequest;
  const create = x.createRequest;
  const what = content.slice(content.indexOf(' ') + 1);
  const then = [
    `${del ? `${fmtActor(del.actor)} deleted` : 'a DELETE removed'} ${x.where}/${x.deleted}${del ? ` at ${fmtTime(del.t)}` : ''}, the only resource there with its content (${what.length > 160 ? `${what.slice(0, 160)}…` : what}), and ${create ? `${fmtActor(create.actor)} created` : 'a create made'} an alike one (${x.where}/${x.recreated})${create ? ` at ${fmtTime(create.t)}` : ''}: ${plural(list.length, 'such replacement')} under faults, against ${base} in the fault-free run`,
  ];
  if (del?.reconcile) then.push(`the delete came from the ${fmtReconcile(del.reconcile)}`);
  const note = fmtLearned(learned);
  if (note) then.push(`${note}: that many are allowed`);
  then.push('an external resource was destroyed and made again: the end state converges, but what the first one held (data, an address, its history) is gone. Decide a replacement on live state (re-read the object and the resource before deleting), never on a cached or remembered view');
  return {
    ok: false,
    summary: `extra destructive actions on ${x.where}: a resource destroyed and made again ${plural(list.length, 'time')} under faults, ${base} without`,
    explanation: explanation(letFacts(run.trace, { until: (create ?? del)?.t ?? run.timing.end }), then),
    evidence: { object: `${x.where}/${x.deleted}`, content: what, replacements: list.length, twinReplacements: base, actions: list.map((r) => ({ deleted: r.deleted, recreated: r.recreated, deletedAt: r.deleteRequest?.t ?? null, createdAt: r.createRequest?.t ?? null, actor: r.deleteRequest?.actor ?? null })) },
  };
}

/** What the reconcile that made a write read, up to the write, from its informer cache (`ConfigMap default/settings`, `the Pod list`). */
function cachedReads(run: RunRecord, w: TimelineWrite): string[] {
  const r = w.reconcile;
  if (!r) return [];
  const out = new Set<string>();
  for (let i = r.startIndex + 1; i < w.index; i++) {
    const e = run.trace[i]!;
    if (e.type !== 'store:read' || e['actor'] !== r.actor || e['cached'] === false) continue;
    out.add(typeof e['key'] === 'string' ? `${String(e['kind'])} ${e['key']}` : `the ${String(e['kind'])} list`);
  }
  return [...out];
}

/**
 * The changes of a run the fault-free run has no counterpart for: each of the fault-free run's
 * changes, in order, is paired with the first change of the run not yet paired that came at the
 * same time or later (or, when none did, the next one), and the rest are left.
 */
function beyond(restarts: readonly TimelineWrite[], base: readonly TimelineWrite[]): TimelineWrite[] {
  const paired = new Set<number>();
  let next = 0;
  for (const b of base) {
    let i = next;
    while (i < restarts.length && restarts[i]!.t < b.t) i++;
    if (i >= restarts.length) i = next;
    if (i >= restarts.length) break;
    paired.add(i);
    next = i + 1;
  }
  return restarts.filter((_, i) => !paired.has(i));
}

/** What a change of a workload's Pod template does to its Pods, as the environment's controllers do it. */
function rollsOver(kind: string): string {
  if (kind === 'Deployment') return 'makes the Deployment controller roll every Pod over to a new ReplicaSet';
  if (kind === 'StatefulSet') return 'makes the StatefulSet controller delete and recreate its Pods one by one';
  if (kind === 'DaemonSet') return 'makes the DaemonSet controller replace its Pod on every node';
  return 'replaces its Pods (every Pod made from then on differs from those running)';
}

/** The verdict for a workload whose Pod template controllers changed more often than without faults. */
function restartVerdict(run: RunRecord, twin: RunRecord, id: string, restarts: readonly TimelineWrite[], base: readonly TimelineWrite[], learned: Parameters<typeof fmtLearned>[0]): Verdict {
  const kind = id.slice(0, id.indexOf(' '));
  const key = restarts[0]!.key;
  const at = (ws: readonly TimelineWrite[]) => (ws.length === 0 ? '' : ` (${ws.map((w) => `at ${fmtTime(w.t)}`).join(', ')})`);
  const then = [
    `${fmtList([...new Set(restarts.map((w) => fmtActor(w.actor)))], 2)} changed the Pod template of ${id} ${plural(restarts.length, 'time')}${at(restarts)}, against ${plural(base.length, 'time')} in the fault-free run${at(base)}`,
    `each change ${rollsOver(kind)}: ${plural(restarts.length - base.length, 'restart')} of the workload the fault-free run did not need`,
  ];
  const pods = podsDeleted(run, kind, key);
  if (pods !== undefined) then.push(`the environment deleted ${plural(pods, 'Pod')} of it, against ${podsDeleted(twin, kind, base[0]?.key ?? key) ?? 0} in the fault-free run`);
  const unmatched = beyond(restarts, base);
  if (unmatched.length > 0 && unmatched.length < restarts.length) then.push(`the fault-free run made none like ${unmatched.length === 1 ? 'the change' : 'the changes'} ${fmtList(unmatched.map((w) => `at ${fmtTime(w.t)}`), 3)}`);
  for (const w of unmatched.slice(0, 2)) {
    if (!w.reconcile) continue;
    const cached = cachedReads(run, w);
    then.push(`the change at ${fmtTime(w.t)} (${fmtList(templatePaths(w), 2)}) came from the ${fmtReconcile(w.reconcile)}${cached.length > 0 ? `, which read ${fmtList(cached, 3)} from its informer cache` : ''}`);
  }
  const note = fmtLearned(learned);
  if (note) then.push(`${note}: that many are allowed`);
  then.push(
    'a restart was decided on a wrong view of the world (the end state can look right: a later restart repairs it): decide a new Pod template on objects re-read live right before writing it (the ConfigMaps and Secrets it hashes, the owner\'s spec, what the workload already runs), never on a cache that may be behind the API server or on progress a crash may have lost, and write it with the resourceVersion read; keep a restart\'s value deterministic (a hash, a generation), so that a retry writes the same one',
  );
  return {
    ok: false,
    summary: `extra destructive actions on ${id}: its Pod template changed ${plural(restarts.length, 'time')} under faults (each replaces its Pods), ${base.length} without`,
    explanation: explanation(letFacts(run.trace, { until: restarts.at(-1)!.t }), then),
    evidence: {
      object: id,
      templateChanges: restarts.length,
      twinTemplateChanges: base.length,
      podsDeleted: pods ?? null,
      twinPodsDeleted: podsDeleted(twin, kind, base[0]?.key ?? key) ?? null,
      actions: restarts.map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, key: w.key, changed: templatePaths(w), cachedReads: cachedReads(run, w) })),
    },
  };
}
