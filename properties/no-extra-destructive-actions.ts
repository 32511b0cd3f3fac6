import { defineProperty, type RunRecord, type Verdict } from '../src/harness/property.js';
import { explanation, fmtActor, fmtList, fmtTime, letFacts, plural } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { firedKinds, skipped, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { timelineOf, type TimelineWrite } from './_internals/timeline.js';
import { aliasUids, uidAliases } from './_internals/normalize.js';
import { groupBy } from './_internals/windows.js';

/** Options of {@link noExtraDestructiveActions}. @public */
export interface NoExtraDestructiveActionsOptions {
  /** Fault kinds after which the comparison is skipped: they change the world itself. @defaultValue ['drift', 'recreation', 'environment-pod-eviction', 'environment-crash-looping-pod'] */
  skipUnderFaults: string[];
  /** Extra creates or deletes per object allowed beyond the fault-free twin's. @defaultValue 0 */
  slack: number;
  /** Kinds left out (leader-election Leases). @defaultValue ['Lease'] */
  ignoreKinds: string[];
}

/** Generated-name suffixes (the store's 5 characters) are ignored, so generated objects compare by prefix. */
const GENERATED = /-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

function objectId(w: TimelineWrite, aliases: ReadonlyMap<string, string>): string {
  return `${w.kind} ${aliasUids(w.key.replace(GENERATED, '-*'), aliases)}`;
}

const GC = 'environment:garbage-collector';

/**
 * Creates made for an owner that was already gone: the reconcile's primary object had been
 * removed from the store (and not created again) when the reconcile created the object, and the
 * garbage collector removed it for its dangling owner. A cache that has not yet seen a deletion
 * makes every informer-based controller do this; nothing is destroyed, and the collector, not the
 * controller, cleans up.
 */
function stillborn(run: RunRecord, writes: readonly TimelineWrite[]): Set<TimelineWrite> {
  const collected = new Set(writes.filter((w) => w.actor === GC && w.removed && w.uid !== undefined).map((w) => w.uid!));
  const out = new Set<TimelineWrite>();
  for (const w of writes) {
    if (w.verb !== 'create' || w.uid === undefined || !collected.has(w.uid) || !w.reconcile) continue;
    const primary = run.primaryKinds[run.controllers.indexOf(w.reconcile.controller)];
    if (primary === undefined) continue;
    let gone = false;
    for (const x of writes) {
      if (x.index >= w.index) break;
      if (x.kind !== primary || x.key !== w.reconcile.key || x.error !== undefined) continue;
      if (x.removed) gone = true;
      else if (x.verb === 'create') gone = false;
    }
    if (gone) out.add(w);
  }
  return out;
}

function tally(run: RunRecord, ignore: Set<string>): Map<string, { creates: TimelineWrite[]; deletes: TimelineWrite[] }> {
  const all = timelineOf(run).writes;
  const ghost = stillborn(run, all);
  const ws = all.filter((w) => w.actor.startsWith('controller:') && w.error === undefined && !ignore.has(w.kind) && !ghost.has(w) && (w.verb === 'create' || (w.verb === 'delete' && !w.noop)));
  const out = new Map<string, { creates: TimelineWrite[]; deletes: TimelineWrite[] }>();
  // a name holding a uid compares by whose uid it is: uids follow creation order, which faults change
  const aliases = uidAliases(run.writes);
  for (const [id, xs] of groupBy(ws, (w) => objectId(w, aliases))) out.set(id, { creates: xs.filter((w) => w.verb === 'create'), deletes: xs.filter((w) => w.verb === 'delete') });
  return out;
}

/**
 * No extra destructive actions (SPEC §5): per object, the creates and deletes controllers make
 * under faults do not exceed those of the fault-free twin. Catches a transient wrong delete (or
 * a duplicate create) that is later repaired, so the end state alone looks fine: acting on a
 * stale cache, on a lost event, or twice after a crash. A create made for an owner that was
 * already deleted, which the garbage collector removed at once, does not count: it destroys
 * nothing, and every cache-based controller makes it while its cache lags behind a deletion.
 * @example properties.noExtraDestructiveActions({ slack: 1 })
 * @public
 */
export const noExtraDestructiveActions = defineProperty<NoExtraDestructiveActionsOptions>({
  name: 'no-extra-destructive-actions',
  description: 'per object, controller creates and deletes under faults do not exceed those of the fault-free twin',
  defaults: { skipUnderFaults: [...WORLD_CHANGING_FAULTS], slack: 0, ignoreKinds: ['Lease'] },
  needsTwin: true,
  validate: (o) => (!(o.slack >= 0) ? `slack must be ≥ 0, got ${String(o.slack)}` : undefined),
  judge: (run, o, twin): Verdict => {
    if (!twin) return { ok: true, stats: { judged: false, reason: 'no fault-free twin run was given' } };
    const changed = firedKinds(run, o.skipUnderFaults);
    if (changed.length > 0) return skipped(changed);
    const ignore = new Set(o.ignoreKinds);
    const mine = tally(run, ignore);
    const theirs = tally(twin, ignore);
    for (const [id, { creates, deletes }] of mine) {
      const base = theirs.get(id) ?? { creates: [], deletes: [] };
      const extraDeletes = deletes.length - base.deletes.length;
      const extraCreates = creates.length - base.creates.length;
      if (extraDeletes <= o.slack && extraCreates <= o.slack) continue;
      const acts = [...creates, ...deletes].sort((a, b) => a.index - b.index);
      const first = acts.find((w) => w.verb === (extraDeletes > o.slack ? 'delete' : 'create')) ?? acts[0]!;
      const then = [
        `${fmtList([...new Set(acts.map((w) => fmtActor(w.actor)))], 2)} made ${plural(creates.length, 'create')} and ${plural(deletes.length, 'delete')} of ${id} (${acts.map((w) => `${w.verb} at ${fmtTime(w.t)}`).join(', ')}), against ${plural(base.creates.length, 'create')} and ${plural(base.deletes.length, 'delete')} in the fault-free run`,
      ];
      if (first.reconcile) then.push(`the extra ${first.verb} came from the ${fmtReconcile(first.reconcile)}`);
      then.push(extraDeletes > o.slack ? 'a destructive action was taken on a wrong view of the world: re-read live state (or use preconditions) before deleting' : 'a create was repeated: use deterministic names or look the object up before creating');
      return {
        ok: false,
        summary: `extra destructive actions on ${id}: ${plural(creates.length, 'create')} and ${plural(deletes.length, 'delete')} under faults, ${base.creates.length} and ${base.deletes.length} without`,
        explanation: explanation(letFacts(run.trace, { until: acts.at(-1)!.t }), then),
        evidence: { object: id, creates: creates.length, deletes: deletes.length, twinCreates: base.creates.length, twinDeletes: base.deletes.length, actions: acts.map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, key: w.key })) },
      };
    }
    return { ok: true };
  },
});
