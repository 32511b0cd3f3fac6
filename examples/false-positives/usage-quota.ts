import { defineController, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * An aggregating quota controller in the style of ResourceQuota: a `UsageQuota` limits what a
 * namespace holds of several kinds (`spec.hard`: how many `Widget`s, how many `Gadget` units),
 * and its controller sums the usage over every child object the workload makes or deletes into
 * `status.used`, and flags a namespace over quota with an `Exceeded` condition (reason and
 * message naming what is over). It recomputes the sums from its informer cache on every
 * reconcile, never from events: a stale cache or a lost event only delays the right sums, which
 * come at the next child event, or the resync. Any child event enqueues every quota of its
 * namespace; a child being deleted no longer counts.
 *
 * Its buggy twin counts instead of summing, as a hand-written quota does: it adds a child to
 * `status.used` once, marking the child counted (an annotation), and never takes a deleted one
 * off (a counter that only grows); a crash between the count and the mark counts a child twice.
 */
export const QUOTA = 'UsageQuota';
export const WIDGET = 'Widget';
export const GADGET = 'Gadget';
const COUNTED = 'quota.example.com/counted';

interface Usage {
  widgets: number;
  gadgetUnits: number;
}
interface QuotaSpec {
  hard: Usage;
}
interface QuotaStatus {
  used?: Usage;
  conditions?: Condition[];
  observedGeneration?: number;
}
type Quota = StoredObject<QuotaSpec, QuotaStatus>;

const counts = (o: StoredObject) => o.metadata.deletionTimestamp === undefined;
const unitsOf = (g: StoredObject) => {
  const u = g.spec['units'];
  return typeof u === 'number' && Number.isFinite(u) && u > 0 ? u : 0;
};

/** Usage of a namespace, summed over what is there (being deleted no longer counts). */
function usageOf(widgets: readonly StoredObject[], gadgets: readonly StoredObject[]): Usage {
  return { widgets: widgets.filter(counts).length, gadgetUnits: gadgets.filter(counts).reduce((n, g) => n + unitsOf(g), 0) };
}

/** What is over quota, in words (empty: nothing). */
function overOf(used: Usage, hard: Usage): string[] {
  const out: string[] = [];
  if (used.widgets > hard.widgets) out.push(`widgets: ${used.widgets} > ${hard.widgets}`);
  if (used.gadgetUnits > hard.gadgetUnits) out.push(`gadget units: ${used.gadgetUnits} > ${hard.gadgetUnits}`);
  return out;
}

function statusFor(q: Quota, used: Usage, now: number): QuotaStatus {
  const over = overOf(used, q.spec.hard);
  const gen = q.metadata.generation;
  const exceeded = over.length > 0
    ? { type: 'Exceeded', status: 'True' as const, reason: 'OverQuota', message: over.join(', '), observedGeneration: gen }
    : { type: 'Exceeded', status: 'False' as const, reason: 'WithinQuota', message: 'within quota', observedGeneration: gen };
  return { used, conditions: setCondition(q.status.conditions, exceeded, now), observedGeneration: gen };
}

async function reconcileQuota(ctx: ReconcileContext): Promise<void> {
  const q = (await ctx.client.tryGet<QuotaSpec, QuotaStatus>(QUOTA, ctx.key)) as Quota | undefined;
  if (!q || q.metadata.deletionTimestamp !== undefined) return;
  const ns = q.metadata.namespace !== undefined ? { namespace: q.metadata.namespace } : {};
  const used = usageOf(await ctx.client.list(WIDGET, ns), await ctx.client.list(GADGET, ns));
  await writeStatus(ctx, q, statusFor(q, used, ctx.clock.now()));
}

/** The buggy twin: adds each child once (marking it counted) and never takes one off. */
async function reconcileCounting(ctx: ReconcileContext): Promise<void> {
  const q = (await ctx.client.tryGet<QuotaSpec, QuotaStatus>(QUOTA, ctx.key)) as Quota | undefined;
  if (!q || q.metadata.deletionTimestamp !== undefined) return;
  const ns = q.metadata.namespace !== undefined ? { namespace: q.metadata.namespace } : {};
  const fresh = [...(await ctx.client.list(WIDGET, ns)), ...(await ctx.client.list(GADGET, ns))].filter((c) => counts(c) && c.metadata.annotations[COUNTED] !== q.metadata.uid);
  const base = q.status.used ?? { widgets: 0, gadgetUnits: 0 };
  const used = { widgets: base.widgets + fresh.filter((c) => c.kind === WIDGET).length, gadgetUnits: base.gadgetUnits + fresh.filter((c) => c.kind === GADGET).reduce((n, g) => n + unitsOf(g), 0) };
  await writeStatus(ctx, q, statusFor(q, used, ctx.clock.now()));
  for (const c of fresh) await ctx.client.patch(c.kind, { namespace: c.metadata.namespace, name: c.metadata.name }, { metadata: { annotations: { [COUNTED]: q.metadata.uid } } });
}

/** A child event: every quota of its namespace. */
function quotasOf(child: StoredObject, view: { list(kind: string, o?: { namespace?: string }): StoredObject[] }): string[] {
  const ns = child.metadata.namespace;
  return view.list(QUOTA, ns !== undefined ? { namespace: ns } : {}).map((q) => (ns !== undefined ? `${ns}/${q.metadata.name}` : q.metadata.name));
}

const defineQuota = (reconcile: (ctx: ReconcileContext) => Promise<void>) =>
  defineController({
    name: 'usage-quota',
    for: QUOTA,
    watches: [
      { kind: WIDGET, map: quotasOf },
      { kind: GADGET, map: quotasOf },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });

export const usageQuotaController = defineQuota(reconcileQuota);

/**
 * Converged, for a quota: it reports its generation, `status.used` is the usage of its namespace
 * as it is now, and `Exceeded` says whether that is over `spec.hard`.
 */
export function usageSettled(view: WorldView): true | string {
  for (const q of view.list(QUOTA)) {
    if (q.metadata.deletionTimestamp !== undefined) continue;
    const s = q.status as QuotaStatus;
    if (s.observedGeneration !== q.metadata.generation) return `quota ${q.metadata.name} has not observed generation ${q.metadata.generation}`;
    const inNs = (kind: string) => view.list(kind).filter((c) => c.metadata.namespace === q.metadata.namespace);
    const want = usageOf(inNs(WIDGET), inNs(GADGET));
    if (s.used?.widgets !== want.widgets || s.used.gadgetUnits !== want.gadgetUnits) return `quota ${q.metadata.name} reports used ${JSON.stringify(s.used ?? null)}, the namespace holds ${JSON.stringify(want)}`;
    const over = overOf(want, (q.spec as unknown as QuotaSpec).hard).length > 0;
    const c = s.conditions?.find((x) => x.type === 'Exceeded');
    if (c?.status !== (over ? 'True' : 'False')) return `quota ${q.metadata.name} reports Exceeded ${c?.status ?? 'absent'} while the namespace is ${over ? 'over' : 'within'} quota`;
  }
  return true;
}

/** The buggy twin's controller (see the file's comment). */
export const usageQuotaCounting = defineQuota(reconcileCounting);

export const usageQuota: FalsePositiveCase = {
  name: 'usage-quota',
  description: 'a ResourceQuota-style UsageQuota sums the Widgets and Gadget units of its namespace into status.used, recomputed from the cache on every reconcile, and flags over quota with an Exceeded condition',
  controllers: [usageQuotaController],
  options: {
    objects: [
      { kind: QUOTA, name: 'quota', spec: [{ hard: { widgets: 1, gadgetUnits: 3 } }, { hard: { widgets: 2, gadgetUnits: 1 } }] },
      { kind: WIDGET, name: 'widget', spec: [{ size: 'small' }, { size: 'large' }] },
      { kind: GADGET, name: 'gadget', spec: [{ units: 1 }, { units: 3 }] },
    ],
    maxObjects: 4,
  },
  properties: [convergence({ converged: usageSettled })],
  buggy: {
    controllers: [usageQuotaCounting],
    caughtBy: ['convergence', 'same-end-state'],
    world: { maxObjects: 3, maxActions: 3 },
    why: 'it counts instead of summing: each child is added once (marked counted) and a deleted one is never taken off, so status.used only grows; a crash between the count and the mark counts a child twice',
  },
};
