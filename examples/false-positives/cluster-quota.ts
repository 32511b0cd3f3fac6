import { defineController, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * OpenShift's ClusterResourceQuota, in small: a cluster-scoped `ClusterQuota` limits what a set
 * of namespaces holds together (`spec.hard`: how many `Widget`s, how many GiB of `spec.sizeGi`),
 * the namespaces picked by their labels (`spec.selector.matchLabels`, on the Namespace objects),
 * so one team's quota spans every namespace the team has. Its controller sums the usage of every
 * selected Namespace into `status.namespaces` (one entry per selected namespace, empty ones
 * included, sorted) and `status.total` (hard, used), and lists what is over.
 *
 * It recomputes the whole status from its informer cache on every reconcile, never from events
 * or from the status it wrote before: a Namespace relabelled out of the team drops out (its usage
 * with it), one relabelled in comes in with its Widgets, a deleted one goes. Any Widget or
 * Namespace event enqueues every ClusterQuota (a relabel changes which quotas a namespace's
 * Widgets count against, the old one and the new one); a stale cache or a lost event only delays
 * the right sums until the next event or the resync. A Widget being deleted no longer counts.
 *
 * Its buggy twin updates the per-namespace entries it has Widgets for and merges them into the
 * status it wrote before, as a hand-written aggregator does: an entry is never taken out, so a
 * namespace that left the team (or whose last Widget went) keeps counting in the total.
 */
export const CLUSTER_QUOTA = 'ClusterQuota';
export const WIDGET = 'Widget';

interface Usage {
  widgets: number;
  storageGi: number;
}
interface QuotaSpec {
  selector: { matchLabels: Record<string, string> };
  hard: Usage;
}
interface NamespaceUsage {
  namespace: string;
  used: Usage;
}
interface QuotaStatus {
  total?: { hard: Usage; used: Usage };
  namespaces?: NamespaceUsage[];
  /** What is over quota, in words. */
  exceeded?: string[];
  observedGeneration?: number;
}
type Quota = StoredObject<QuotaSpec, QuotaStatus>;

const counts = (o: StoredObject) => o.metadata.deletionTimestamp === undefined;
const sizeOf = (w: StoredObject) => {
  const s = w.spec['sizeGi'];
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : 0;
};
const selects = (q: Quota, ns: StoredObject) => {
  const want = q.spec.selector?.matchLabels ?? {};
  return Object.keys(want).length > 0 && Object.entries(want).every(([k, v]) => ns.metadata.labels[k] === v);
};
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function usageIn(widgets: readonly StoredObject[], namespace: string): Usage {
  const mine = widgets.filter((w) => w.metadata.namespace === namespace && counts(w));
  return { widgets: mine.length, storageGi: mine.reduce((n, w) => n + sizeOf(w), 0) };
}
const sum = (list: readonly NamespaceUsage[]): Usage => ({ widgets: list.reduce((n, x) => n + x.used.widgets, 0), storageGi: list.reduce((n, x) => n + x.used.storageGi, 0) });

function over(used: Usage, hard: Usage): string[] {
  const out: string[] = [];
  if (used.widgets > hard.widgets) out.push(`widgets: ${used.widgets} > ${hard.widgets}`);
  if (used.storageGi > hard.storageGi) out.push(`storageGi: ${used.storageGi} > ${hard.storageGi}`);
  return out;
}

function statusFor(q: Quota, namespaces: NamespaceUsage[]): QuotaStatus {
  const sorted = [...namespaces].sort((a, b) => byName(a.namespace, b.namespace));
  const used = sum(sorted);
  return { total: { hard: q.spec.hard, used }, namespaces: sorted, exceeded: over(used, q.spec.hard), observedGeneration: q.metadata.generation };
}

/** The selected namespaces' usage, as the view shows them now. */
function usageOf(q: Quota, namespaces: readonly StoredObject[], widgets: readonly StoredObject[]): NamespaceUsage[] {
  return namespaces.filter((ns) => selects(q, ns)).map((ns) => ({ namespace: ns.metadata.name, used: usageIn(widgets, ns.metadata.name) }));
}

function define(mistake: 'none' | 'merge-entries') {
  return async function reconcile(ctx: ReconcileContext): Promise<void> {
    const q = (await ctx.client.tryGet<QuotaSpec, QuotaStatus>(CLUSTER_QUOTA, ctx.key)) as Quota | undefined;
    if (!q || q.metadata.deletionTimestamp !== undefined) return;
    const namespaces = await ctx.client.list('Namespace');
    const widgets = await ctx.client.list(WIDGET);
    let entries = usageOf(q, namespaces, widgets);
    if (mistake === 'merge-entries') {
      // BUG (merge-entries): the selected namespaces that hold Widgets, merged over what was written before
      const fresh = entries.filter((e) => e.used.widgets > 0);
      entries = [...(q.status.namespaces ?? []).filter((old) => !fresh.some((e) => e.namespace === old.namespace)), ...fresh];
    }
    await writeStatus(ctx, q, statusFor(q, entries));
  };
}

/** Every ClusterQuota: a Widget or a Namespace change may move usage into or out of any of them. */
const everyQuota = (_o: StoredObject, view: { list(kind: string): StoredObject[] }) => view.list(CLUSTER_QUOTA).map((q) => q.metadata.name);

const defineClusterQuota = (mistake: 'none' | 'merge-entries') =>
  defineController({
    name: 'cluster-quota',
    for: CLUSTER_QUOTA,
    watches: [
      { kind: WIDGET, map: everyQuota },
      { kind: 'Namespace', map: everyQuota },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: define(mistake),
  });

export const clusterQuotaController = defineClusterQuota('none');

/** Converged, for each quota: it reports its generation, and its status is the usage of its selected namespaces as they are now. */
export function quotasSettled(view: WorldView): true | string {
  const namespaces = view.list('Namespace');
  const widgets = view.list(WIDGET);
  for (const q of view.list(CLUSTER_QUOTA) as unknown as Quota[]) {
    if (q.metadata.deletionTimestamp !== undefined) continue;
    const want = statusFor(q, usageOf(q, namespaces, widgets));
    const s = q.status;
    // by value: the API server serves the status with its keys sorted, not in statusFor's order
    if (s.observedGeneration !== q.metadata.generation) return `ClusterQuota ${q.metadata.name} has not observed generation ${q.metadata.generation}`;
    if (!sameJson(s.namespaces ?? null, want.namespaces)) return `ClusterQuota ${q.metadata.name} reports namespaces ${JSON.stringify(s.namespaces ?? null)}, its selected namespaces hold ${JSON.stringify(want.namespaces)}`;
    if (!sameJson(s.total ?? null, want.total)) return `ClusterQuota ${q.metadata.name} reports total ${JSON.stringify(s.total ?? null)}, want ${JSON.stringify(want.total)}`;
    if (!sameJson(s.exceeded ?? null, want.exceeded)) return `ClusterQuota ${q.metadata.name} reports exceeded ${JSON.stringify(s.exceeded ?? null)}, want ${JSON.stringify(want.exceeded)}`;
  }
  return true;
}

const namespace = (name: string, team: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team, 'kubernetes.io/metadata.name': name } } });
const widget = (name: string, ns: string, sizeGi: number) => ({ apiVersion: 'example.com/v1', kind: WIDGET, metadata: { name, namespace: ns }, spec: { sizeGi } });
const labelPatch = (labels: Record<string, string | null>) => ({ metadata: { labels } });

export const clusterQuota: FalsePositiveCase = {
  name: 'cluster-quota',
  description: 'OpenShift ClusterResourceQuota style: a cluster-scoped ClusterQuota sums the Widgets (count and GiB) of every Namespace its label selector picks into per-namespace entries and a total, recomputed from the cache on every Widget or Namespace event, following namespaces relabelled in and out',
  controllers: [clusterQuotaController],
  options: {
    // the shop team's quota over its two namespaces; the blog namespace joins the team at 6 s, the
    // api namespace leaves it at 12 s, a web Widget is deleted at 16 s
    story: {
      objects: [
        namespace('shop-web', 'shop'),
        namespace('shop-api', 'shop'),
        namespace('blog', 'blog'),
        widget('cart', 'shop-web', 2),
        widget('search', 'shop-web', 5),
        widget('orders', 'shop-api', 3),
        widget('posts', 'blog', 1),
        { apiVersion: 'quota.example.com/v1', kind: CLUSTER_QUOTA, metadata: { name: 'shop' }, spec: { selector: { matchLabels: { team: 'shop' } }, hard: { widgets: 4, storageGi: 10 } } },
      ],
      actions: [
        { at: 6000, type: 'patch', kind: 'Namespace', key: 'blog', patch: labelPatch({ team: 'shop' }) },
        { at: 12_000, type: 'patch', kind: 'Namespace', key: 'shop-api', patch: labelPatch({ team: 'blog' }) },
        { at: 16_000, type: 'delete', kind: WIDGET, key: 'shop-web/cart' },
      ],
    },
    // generated: the blog team's quota (its selector and limits changed, deleted, recreated) and
    // Widgets of either team, created, resized and deleted
    objects: [
      { kind: CLUSTER_QUOTA, namespace: '', name: 'blog', spec: [{ selector: { matchLabels: { team: 'blog' } }, hard: { widgets: 2, storageGi: 4 } }, { selector: { matchLabels: { team: 'shop' } }, hard: { widgets: 10, storageGi: 40 } }] },
      { kind: WIDGET, name: 'widget', namespaces: ['shop-web', 'blog', 'shop-api'], spec: [{ sizeGi: 1 }, { sizeGi: 8 }] },
    ],
    maxObjects: 3,
  },
  properties: [convergence({ converged: quotasSettled })],
  buggy: {
    controllers: [defineClusterQuota('merge-entries')],
    caughtBy: ['convergence'],
    why: 'it merges the entries of the namespaces it sees Widgets in over the status it wrote before and never takes one out: the api namespace that left the team (and a namespace whose last Widget went) keeps counting in the total',
  },
};
