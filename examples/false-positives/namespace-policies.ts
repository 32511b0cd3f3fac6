import { defineController, isStoreError, type JsonObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { matchesSelector, parseSelector, type LabelSelector } from '../../src/store/selector.js';
import { convergence } from '../../properties/convergence.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef, controllerUid } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `TenantPolicy` (cluster-scoped) isolates a tenant's namespaces: every Namespace its
 * `namespaceSelector` selects gets one NetworkPolicy, `tenant-<policy>`, that admits ingress only
 * from the namespaces `allowFrom` selects, listed by name (`kubernetes.io/metadata.name`), as a
 * generator for a CNI that audits and displays the explicit list does. The list follows
 * Namespaces as they are created, relabelled and deleted (a terminating namespace is no longer
 * admitted); a namespace that stops matching loses its policy; deleting the TenantPolicy removes
 * every policy behind a finalizer.
 *
 * Ownership: the policies carry the label `tenancy.example.com/policy=<name>` (how they are found
 * across namespaces) and a controller ownerReference to the TenantPolicy. Real Kubernetes lets a
 * namespaced dependent name a cluster-scoped owner (only the reverse, and cross-namespace owners,
 * are refused), and so does the simulated API server; the garbage collector then also cleans up
 * after a TenantPolicy whose finalizer someone removed by hand. A labelled policy controlled by
 * another uid (a TenantPolicy deleted and made again under its name, its old policies not yet
 * collected) is left to the collector and looked at again.
 *
 * Decisions are made from the informer cache, except that a policy is created or deleted only
 * after a live read of its Namespace confirms the namespace matches, or no longer does: a cache
 * may show an older version of a namespace (a lost watch event until the next relist, a restarted
 * informer listing from a lagging API server replica, as secret-copier found), and a policy made
 * or removed on such a view is a change of a tenant's isolation the next pass takes back.
 *
 * Its buggy twin creates and deletes from the cached Namespace list alone: a cache showing a
 * namespace's old labels (a lost or late watch event, a list from a lagging replica) makes it
 * isolate a namespace that left the tenant, or strip one that joined it, and a later pass undoes it.
 */
export const TENANT_POLICY = 'TenantPolicy';
const POLICY = 'NetworkPolicy';
const LABEL = 'tenancy.example.com/policy';
const FINALIZER = 'tenancy.example.com/network-policies';
const NAME_LABEL = 'kubernetes.io/metadata.name';

interface TenantSpec {
  namespaceSelector: LabelSelector;
  allowFrom: LabelSelector;
}
interface TenantStatus {
  namespaces?: string[];
  allowedFrom?: string[];
  observedGeneration?: number;
}
type Tenant = StoredObject<TenantSpec, TenantStatus>;

const deleting = (o: { metadata: { deletionTimestamp?: string | undefined } }) => o.metadata.deletionTimestamp !== undefined;
const selects = (sel: LabelSelector, ns: StoredObject) => !deleting(ns) && matchesSelector(parseSelector(sel), ns.metadata.labels);
const policyName = (t: StoredObject<unknown, unknown>) => `tenant-${t.metadata.name}`;

/** The NetworkPolicy spec: ingress from the named namespaces only (an empty list admits none). */
export function policySpec(from: readonly string[]): JsonObject {
  return { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: from.map((n) => ({ namespaceSelector: { matchLabels: { [NAME_LABEL]: n } } })) }] };
}

function define(mistake: 'none' | 'cached-prune') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const t = (await ctx.client.tryGet<TenantSpec, TenantStatus>(TENANT_POLICY, ctx.key, { live: true })) as Tenant | undefined;
    if (!t) return;
    const selector = `${LABEL}=${t.metadata.name}`;
    if (deleting(t)) {
      if (!t.metadata.finalizers.includes(FINALIZER)) return;
      // live: a policy the cache has not seen yet would outlive the TenantPolicy
      for (const p of await ctx.client.list(POLICY, { labelSelector: selector, live: true })) {
        if (controllerUid(p) === t.metadata.uid) await deleteIfPresent(ctx, POLICY, { namespace: p.metadata.namespace, name: p.metadata.name }, { uid: p.metadata.uid });
      }
      await removeFinalizer(ctx, t, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, t, FINALIZER)) return;
    const namespaces = await ctx.client.list('Namespace');
    const targets = namespaces.filter((n) => selects(t.spec.namespaceSelector, n)).map((n) => n.metadata.name).sort();
    const from = namespaces.filter((n) => selects(t.spec.allowFrom, n)).map((n) => n.metadata.name).sort();
    const spec = policySpec(from);
    const have = await ctx.client.list(POLICY, { labelSelector: selector });
    let wait = false;
    const made: string[] = [];
    for (const ns of targets) {
      const ref = { namespace: ns, name: policyName(t) };
      const desired = { apiVersion: 'networking.k8s.io/v1', kind: POLICY, metadata: { ...ref, labels: { [LABEL]: t.metadata.name }, ownerReferences: [controllerRef(t)] }, spec };
      let p = have.find((x) => x.metadata.namespace === ns && x.metadata.name === ref.name);
      if (!p) {
        // confirmed live before it is made: a cache that missed a relabel would isolate a namespace that left
        // the tenant, and the next pass would delete it again (found by the corpus gate: a lost MODIFIED event
        // of a relabelled namespace, one create and one delete no fault-free run makes)
        if (mistake === 'none') {
          const live = await ctx.client.tryGet('Namespace', { name: ns }, { live: true });
          if (!live || !selects(t.spec.namespaceSelector, live)) continue;
        }
        try {
          await ctx.client.create(desired);
          made.push(ns);
          continue;
        } catch (err) {
          // the namespace is going (or gone): nothing to isolate there
          if (isStoreError(err, 'Forbidden') || isStoreError(err, 'NotFound')) continue;
          if (!isStoreError(err, 'AlreadyExists')) throw err;
          p = await ctx.client.get(POLICY, ref, { live: true });
        }
      }
      if (controllerUid(p) !== t.metadata.uid) {
        // labelled ours but controlled by an earlier TenantPolicy of this name: the garbage collector removes it,
        // then it is made again; an object of that name someone else made is never taken over
        if (p.metadata.labels[LABEL] === t.metadata.name) wait = true;
        continue;
      }
      if (!sameJson(p.spec, spec) || p.metadata.labels[LABEL] !== t.metadata.name) {
        await ctx.client.update({ ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, [LABEL]: t.metadata.name } }, spec });
      }
      made.push(ns);
    }
    // policies of namespaces that stopped matching
    for (const p of have) {
      const ns = p.metadata.namespace ?? '';
      if (targets.includes(ns) || deleting(p) || controllerUid(p) !== t.metadata.uid) continue;
      if (mistake === 'none') {
        // confirmed live before the isolation goes: the cache may show the namespace's old labels
        const live = await ctx.client.tryGet('Namespace', { name: ns }, { live: true });
        if (live && selects(t.spec.namespaceSelector, live)) continue; // the cache is behind; its event brings the key back
        if (live && deleting(live)) continue; // the namespace controller deletes its content
      }
      await deleteIfPresent(ctx, POLICY, { namespace: ns, name: p.metadata.name }, { uid: p.metadata.uid });
    }
    await writeStatus(ctx, t, { namespaces: made.sort(), allowedFrom: from, observedGeneration: t.metadata.generation });
    return wait ? { requeueAfter: 1000 } : undefined;
  }
  return defineController({
    name: 'tenant-policies',
    for: TENANT_POLICY,
    watches: [
      // a namespace created, relabelled or deleted: every TenantPolicy may select or admit it
      { kind: 'Namespace', map: (_ns, view) => view.list(TENANT_POLICY).map((t) => t.metadata.name) },
      // a policy edited or deleted by someone: its TenantPolicy repairs it
      { kind: POLICY, map: (p) => (p.metadata.labels[LABEL] !== undefined ? [p.metadata.labels[LABEL]] : []) },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const tenantPoliciesController = define('none');

/**
 * Converged: every TenantPolicy observed its generation; each namespace it selects (not
 * terminating) holds its policy, controlled by it, admitting exactly the namespaces its
 * `allowFrom` selects; and no labelled policy is left in a live namespace that no TenantPolicy of
 * that name selects.
 */
export function isolated(view: WorldView): true | string {
  const namespaces = view.list('Namespace');
  const tenants = view.list(TENANT_POLICY) as unknown as Tenant[];
  const policies = view.list(POLICY).filter((p) => p.metadata.labels[LABEL] !== undefined);
  for (const t of tenants) {
    if (deleting(t)) continue;
    if (t.status.observedGeneration !== t.metadata.generation) return `TenantPolicy ${t.metadata.name} has not observed generation ${t.metadata.generation}`;
    const from = namespaces.filter((n) => selects(t.spec.allowFrom, n)).map((n) => n.metadata.name).sort();
    for (const ns of namespaces.filter((n) => selects(t.spec.namespaceSelector, n))) {
      const p = policies.find((x) => x.metadata.namespace === ns.metadata.name && x.metadata.name === policyName(t));
      if (!p || controllerUid(p) !== t.metadata.uid) return `namespace ${ns.metadata.name} is selected by TenantPolicy ${t.metadata.name} but holds no policy of it`;
      if (!sameJson(p.spec, policySpec(from))) return `namespace ${ns.metadata.name}'s policy of ${t.metadata.name} does not admit exactly ${from.join(', ') || 'nothing'}`;
    }
  }
  for (const p of policies) {
    const ns = namespaces.find((n) => n.metadata.name === p.metadata.namespace);
    if (!ns || deleting(ns)) continue;
    const t = tenants.find((x) => x.metadata.name === p.metadata.labels[LABEL] && !deleting(x));
    if (!t || !selects(t.spec.namespaceSelector, ns)) return `namespace ${ns.metadata.name} still holds ${p.metadata.name}, though no TenantPolicy ${p.metadata.labels[LABEL] ?? ''} selects it`;
  }
  return true;
}

const namespace = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels, [NAME_LABEL]: name } } });
const labelPatch = (labels: Record<string, string | null>) => ({ metadata: { labels } });

export const namespacePolicies: FalsePositiveCase = {
  name: 'namespace-policies',
  description: 'a cluster-scoped TenantPolicy writes one NetworkPolicy per selected Namespace admitting ingress from the namespaces another selector picks (listed by name), following namespaces created, relabelled and deleted, removing policies from namespaces that stop matching (confirmed live), and cleaning up behind a finalizer',
  controllers: [tenantPoliciesController],
  options: {
    // a shop tenant: its web and api namespaces, admitted from the shared ingress and monitoring namespaces;
    // a batch namespace joins at 5 s, the blog namespace is relabelled into the tenant at 8 s, the api
    // namespace leaves it at 12 s, monitoring stops being shared at 15 s, ingress is deleted at 18 s, and the
    // tenant's allowFrom changes at 21 s
    story: {
      objects: [
        namespace('shop-web', { tenant: 'shop' }),
        namespace('shop-api', { tenant: 'shop' }),
        namespace('blog', { tenant: 'blog' }),
        namespace('ingress', { access: 'shared' }),
        namespace('monitoring', { access: 'shared' }),
        { apiVersion: 'tenancy.example.com/v1', kind: TENANT_POLICY, metadata: { name: 'shop' }, spec: { namespaceSelector: { matchLabels: { tenant: 'shop' } }, allowFrom: { matchLabels: { access: 'shared' } } } },
      ],
      actions: [
        { at: 5000, type: 'create', object: namespace('shop-batch', { tenant: 'shop' }) },
        { at: 8000, type: 'patch', kind: 'Namespace', key: 'blog', patch: labelPatch({ tenant: 'shop' }) },
        { at: 12_000, type: 'patch', kind: 'Namespace', key: 'shop-api', patch: labelPatch({ tenant: null }) },
        { at: 15_000, type: 'patch', kind: 'Namespace', key: 'monitoring', patch: labelPatch({ access: null }) },
        { at: 18_000, type: 'delete', kind: 'Namespace', key: 'ingress' },
        { at: 21_000, type: 'patch', kind: TENANT_POLICY, key: 'shop', patch: { spec: { allowFrom: { matchExpressions: [{ key: 'access', operator: 'Exists' }] } } } },
      ],
    },
    // generated: another tenant's policy (its selectors changed, deleted, recreated) and namespaces of
    // either tenant or shared, created and deleted
    objects: [
      {
        kind: TENANT_POLICY,
        namespace: '',
        name: 'blog',
        spec: [
          { namespaceSelector: { matchLabels: { tenant: 'blog' } }, allowFrom: { matchLabels: { access: 'shared' } } },
          { namespaceSelector: { matchExpressions: [{ key: 'tenant', operator: 'In', values: ['blog', 'shop'] }] }, allowFrom: { matchLabels: { tenant: 'blog' } } },
        ],
      },
      { kind: 'Namespace', namespace: '', name: 'blog-extra', spec: {}, labels: { tenant: 'blog' } },
      { kind: 'Namespace', namespace: '', name: 'edge', spec: {}, labels: { access: 'shared' } },
    ],
    maxObjects: 3,
  },
  properties: [convergence({ converged: isolated }), ...endStateProperties()],
  buggy: {
    controllers: [define('cached-prune')],
    caughtBy: ['no-extra-destructive-actions', 'same-end-state', 'convergence'],
    why: 'it creates and deletes policies from its cached Namespace list alone, without a live read: a cache behind a relabel (a lost or late watch event, a list from a lagging replica) makes it isolate a namespace that left the tenant or strip one that joined it, and a later pass undoes it: one create and one delete no fault-free run makes',
  },
};
