import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import type { StoredObject } from '../src/store/object.js';
import { explanation, fmtDuration, fmtList, fmtObject, fmtTime, fmtValue, letFacts } from '../src/report/explain.js';
import { lastActions } from './_internals/last-actions.js';
import { ownerGroups, ownerMatches, readDownstream } from './_internals/downstream-state.js';
import { keyOfObject } from './_internals/primary.js';
import { healedAt } from './_internals/skip.js';
import { timelineOf } from './_internals/timeline.js';
import { JOB_ORPHAN_WARNING } from '../src/store/gc-policy.js';

/** Options of {@link deletionCompletes}. @public */
export interface DeletionCompletesOptions {
  /**
   * Virtual ms within which an object marked for deletion must be gone, counted from the mark or
   * from the end of the fault window, whichever is later (and at the latest by the end of the run).
   * @defaultValue 30_000
   */
  withinMs: number;
  /** Check that external resources (fake services) owned by a deleted object are gone too. @defaultValue true */
  externalCleanup: boolean;
  /** Field of an external resource naming its owner (key, `Kind/key` or uid). @defaultValue 'owner' */
  ownerField: string;
}

/**
 * Deletion completes (SPEC §1 "stuck deletion", §5): every object marked for deletion is gone
 * within the bound (its finalizers removed), and the external resources it owned in the fake
 * downstream services are cleaned up, not leaked by a finalizer removed too early. What it owned
 * in the cluster is collected too: a controller's delete of a Job that names no propagation
 * policy orphans its Pods (batch/v1's default), which kube-apiserver warns about, and a
 * cluster-scoped object naming a namespaced owner is never collected (OwnerRefInvalidNamespace).
 * @example properties.deletionCompletes({ withinMs: 10_000, ownerField: 'labels.owner' })
 * @public
 */
export const deletionCompletes = defineProperty<DeletionCompletesOptions>({
  name: 'deletion-completes',
  description: 'every object marked for deletion is gone within the bound, its external resources are cleaned up, and what it owned in the cluster goes too (no Pods orphaned by a Job deleted without a propagation policy, no cluster-scoped object left naming a deleted namespaced owner)',
  defaults: { withinMs: 30_000, externalCleanup: true, ownerField: 'owner' },
  // liveness: the fault-free twin must meet it too (faults can hide a livelock that needs none: red team rt46 M-2)
  judgesFaultFreeTwin: true,
  validate: (o) => (!(o.withinMs >= 0) ? `withinMs must be ≥ 0 virtual ms, got ${String(o.withinMs)}` : typeof o.ownerField !== 'string' || o.ownerField === '' ? 'ownerField must be a dotted field path such as "owner"' : undefined),
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    const { end } = run.timing;
    const healed = healedAt(run);
    const marked = new Map<string, { kind: string; key: string; t: number }>();
    const removed = new Map<string, { kind: string; key: string; t: number }>();
    for (const w of tl.writes) {
      if (w.error !== undefined || w.uid === undefined) continue;
      if (w.markedForDeletion && !marked.has(w.uid)) marked.set(w.uid, { kind: w.kind, key: w.key, t: w.t });
      if (w.removed) removed.set(w.uid, { kind: w.kind, key: w.key, t: w.t });
    }
    // stuck: marked and still there past the deadline
    for (const [uid, m] of marked) {
      if (Math.max(m.t, healed) >= end) continue; // an injected stall outlasted the run
      const deadline = Math.min(Math.max(m.t, healed) + o.withinMs, end);
      const gone = removed.get(uid);
      if (gone && gone.t <= deadline) continue;
      if (!gone && end < deadline) continue;
      const obj = run.finalObjects.find((x) => x.metadata.uid === uid);
      const finalizers = obj?.metadata.finalizers ?? [];
      const then = [
        `${fmtObject(m.kind, m.key)} was marked for deletion at ${fmtTime(m.t)} and ${gone ? `was removed only at ${fmtTime(gone.t)}` : `was still there at ${fmtTime(end)}`}, ${deadline === end && Math.max(m.t, healed) + o.withinMs > end ? 'the end of the run' : `past the bound at ${fmtTime(deadline)}, ${fmtDuration(o.withinMs)} after ${m.t > healed ? 'the mark' : 'faults stopped'}`}`,
        finalizers.length ? `its finalizers were still ${fmtValue(finalizers)}` : 'it had no finalizer left',
        `after the mark, ${lastActions(tl, m.kind, m.key, deadline, run)}`,
      ];
      const removals = tl.writes.filter((w) => w.t >= m.t && w.kind === m.kind && w.key === m.key && w.changed.includes('metadata.finalizers'));
      if (removals.length === 0) then.push('no write ever removed a finalizer: cleanup must succeed (idempotently, with a time bound) and then remove the finalizer');
      return {
        ok: false,
        summary: `stuck deletion: ${fmtObject(m.kind, m.key)} marked at ${fmtTime(m.t)} is ${gone ? 'gone only' : 'still there'} at ${fmtTime(gone?.t ?? end)}${finalizers.length ? ` (finalizers ${finalizers.join(', ')})` : ''}`,
        explanation: explanation(letFacts(run.trace, { until: deadline }), then),
        evidence: { kind: m.kind, key: m.key, uid, markedAt: m.t, deadline, removedAt: gone?.t ?? null, finalizers },
      };
    }
    // orphaned: a controller deleted a Job without a propagation policy, and batch/v1 Jobs orphan their Pods by default
    for (const w of tl.writes) {
      if (w.orphaned === undefined || w.error !== undefined || !w.actor.startsWith('controller:')) continue;
      const left = w.orphaned.filter((d) => existsIn(run.finalObjects, d));
      const then = [
        `${w.actor.slice('controller:'.length)} deleted ${fmtObject(w.kind, w.key)} at ${fmtTime(w.t)} without a propagationPolicy; the API server's default for this kind orphans its dependents, so ${fmtList(w.orphaned, 4)} lost their owner${left.length ? ` and ${fmtList(left, 4)} still existed at ${fmtTime(end)}` : ''}`,
        `kube-apiserver warns: "${JOB_ORPHAN_WARNING}". Delete with propagationPolicy Background (or Foreground), or Orphan when keeping them is the design`,
      ];
      return {
        ok: false,
        summary: `orphaned dependents: ${fmtObject(w.kind, w.key)} deleted without a propagationPolicy left ${fmtList(w.orphaned, 2)} without an owner`,
        explanation: explanation(letFacts(run.trace, { until: w.t }), then),
        evidence: { kind: w.kind, key: w.key, uid: w.uid ?? null, deletedAt: w.t, orphaned: w.orphaned, remaining: left },
      };
    }
    // never collected: a cluster-scoped object whose owner, a namespaced object, was removed
    for (const x of run.finalObjects) {
      if (x.metadata.namespace !== undefined) continue;
      const r = x.metadata.ownerReferences.find((ref) => removed.get(ref.uid)?.key.includes('/') === true);
      if (!r) continue;
      const owner = removed.get(r.uid)!;
      const then = [
        `${fmtObject(owner.kind, owner.key)} was removed at ${fmtTime(owner.t)}, and ${fmtObject(x.kind, keyOfObject(x))}, which names it as its owner, was still there at ${fmtTime(end)}`,
        'a cluster-scoped object cannot be owned by a namespaced one: the garbage collector never resolves that reference (event OwnerRefInvalidNamespace) and the object leaks. Keep a finalizer on the owner and delete the cluster-scoped object yourself (find it by a label naming the owner)',
      ];
      return {
        ok: false,
        summary: `never collected: cluster-scoped ${fmtObject(x.kind, keyOfObject(x))} names deleted ${fmtObject(owner.kind, owner.key)} as its owner`,
        explanation: explanation(letFacts(run.trace, { until: end }), then),
        evidence: { kind: x.kind, key: keyOfObject(x), owner: { kind: owner.kind, key: owner.key, uid: r.uid, removedAt: owner.t } },
      };
    }
    if (!o.externalCleanup) return marked.size === 0 ? nothingToJudge(NOTHING_DELETED, { deletions: 0 }) : { ok: true, stats: { deletions: marked.size } };
    // leaked: external resources of an object that is gone
    const present = new Set(run.finalObjects.map((x) => `${x.kind} ${keyOfObject(x)}`));
    const groups = ownerGroups(readDownstream(run.downstream), o.ownerField);
    for (const [uid, r] of removed) {
      const recreated = present.has(`${r.kind} ${r.key}`);
      const leaked = groups.filter((g) => (recreated ? g.owner === uid : ownerMatches(g.owner, { kind: r.kind, key: r.key, uid })));
      if (leaked.length === 0) continue;
      const items = leaked.flatMap((g) => g.ids.map((id) => `${g.service}${g.collection ? `/${g.collection}` : ''}/${id}`));
      const deletes = tl.requests.filter((q) => q.method === 'DELETE' && q.t <= r.t + o.withinMs && q.reconcile?.key === r.key);
      const then = [
        `${fmtObject(r.kind, r.key)} was removed at ${fmtTime(r.t)}, but the fake downstream still held ${fmtList(items, 4)} with ${o.ownerField} ${leaked[0]!.owner} at ${fmtTime(end)}`,
        deletes.length ? `its reconciles sent ${deletes.length} DELETE request(s), the last answered ${deletes.at(-1)!.status || deletes.at(-1)!.outcome}` : `no reconcile of ${r.key} sent a DELETE request`,
        leakMechanism(tl, r, uid, leaked.map((g) => g.collection)),
      ];
      return {
        ok: false,
        summary: `leaked external resource: ${fmtList(items, 2)} of deleted ${fmtObject(r.kind, r.key)}`,
        explanation: explanation(letFacts(run.trace, { until: end }), then),
        evidence: { kind: r.kind, key: r.key, uid, removedAt: r.t, leaked: leaked.map((g) => ({ service: g.service, collection: g.collection, owner: g.owner, ids: g.ids })) },
      };
    }
    return marked.size === 0 && removed.size === 0 ? nothingToJudge(NOTHING_DELETED, { deletions: 0 }) : { ok: true, stats: { deletions: marked.size } };
  },
});

/** Whether `Kind namespace/name` is among the objects. */
function existsIn(objects: readonly StoredObject[], ref: string): boolean {
  return objects.some((x) => `${x.kind} ${keyOfObject(x)}` === ref);
}

const NOTHING_DELETED = 'nothing was deleted (no object was marked for deletion or removed)';

/**
 * Why the external resource leaked, from the evidence: no finalizer; a create made after the
 * deletion began (the reconcile acted on a cache that did not show it yet, so cleanup had already
 * run); or a finalizer removed before the resource was gone.
 */
function leakMechanism(tl: ReturnType<typeof timelineOf>, r: { kind: string; key: string; t: number }, uid: string, collections: readonly string[]): string {
  if (removedWithoutFinalizer(tl.writes, uid)) return 'the object had no finalizer, so it was gone before any cleanup could run: add a finalizer, delete the external resource, then remove the finalizer';
  const marked = tl.writes.find((w) => w.uid === uid && w.markedForDeletion === true);
  const late = marked ? tl.requests.find((q) => q.method === 'POST' && q.t >= marked.t && q.reconcile?.key === r.key && (q.applied === true || (q.status >= 200 && q.status < 300)) && collections.some((c) => c === '' || q.url.includes(`/${c}`))) : undefined;
  if (late && marked) return `a reconcile of ${r.key} created an external resource at ${fmtTime(late.t)}, after the deletion began at ${fmtTime(marked.t)}: it acted on a cache that did not show the deletion yet, after cleanup had run. Read the object live (or check deletionTimestamp) before creating, and list what it owns again before removing the finalizer`;
  return 'remove the finalizer only after the external resource is confirmed gone';
}

/** Whether the object left the store on its delete request itself, i.e. no finalizer held it. */
function removedWithoutFinalizer(writes: readonly { uid: string | undefined; verb: string; removed?: boolean | undefined; markedForDeletion?: boolean | undefined }[], uid: string): boolean {
  return writes.some((w) => w.uid === uid && w.verb === 'delete' && w.removed === true) && !writes.some((w) => w.uid === uid && w.markedForDeletion === true);
}
