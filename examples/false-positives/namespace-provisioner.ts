import { defineController, type NewObject, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A cluster-scoped `Tenant` gets a namespace of its own with everything a team needs before it
 * can deploy: an admin Role (RBAC `rules`) bound to the tenant's admins (`subjects`, `roleRef`),
 * a ResourceQuota and a default-deny NetworkPolicy (Capsule / HNC style). A RoleBinding's
 * `roleRef` can never change, so the binding always points at the same Role; only its subjects
 * follow the spec.
 */
export const TENANT = 'Tenant';

interface TenantSpec {
  admins: string[];
  maxPods: number;
}
interface TenantStatus {
  namespace?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const RBAC = 'rbac.authorization.k8s.io';

/**
 * `live`: read the Tenant from the API server (correct) or from the cache. `statusFirst`: record
 * the generation as done before applying it, and skip a generation already recorded (the buggy
 * twin: a crash between the status write and the children leaves them missing or stale for good).
 */
const reconciler = (live: boolean, statusFirst = false) => async (ctx: ReconcileContext): Promise<void> => {
  const t = await ctx.client.tryGet<TenantSpec, TenantStatus>(TENANT, ctx.key, { live });
  if (!t || t.metadata.deletionTimestamp !== undefined) return;
  if (statusFirst) {
    if (t.status.observedGeneration === t.metadata.generation) return;
    const conditions = setCondition(t.status.conditions, { type: 'Provisioned', status: 'True', reason: 'NamespaceReady', message: `namespace tenant-${t.metadata.name}`, observedGeneration: t.metadata.generation }, ctx.clock.now());
    await writeStatus(ctx, t, { namespace: `tenant-${t.metadata.name}`, observedGeneration: t.metadata.generation, conditions });
  }
  const ns = `tenant-${t.metadata.name}`;
  const owner = [controllerRef(t)];
  const labels = { 'tenant.example.com/name': t.metadata.name };
  const children: (NewObject & { metadata: { name: string } })[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels, ownerReferences: owner }, spec: {} },
    { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'tenant-admin', namespace: ns, labels, ownerReferences: owner }, rules: [{ apiGroups: ['', 'apps', 'batch'], resources: ['*'], verbs: ['*'] }] },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'tenant-admin', namespace: ns, labels, ownerReferences: owner },
      subjects: t.spec.admins.map((name) => ({ kind: 'User', name, apiGroup: RBAC })),
      roleRef: { kind: 'Role', name: 'tenant-admin', apiGroup: RBAC },
    },
    { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tenant-quota', namespace: ns, labels, ownerReferences: owner }, spec: { hard: { pods: String(t.spec.maxPods) } } },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'default-deny', namespace: ns, labels, ownerReferences: owner }, spec: { podSelector: {}, policyTypes: ['Ingress'] } },
  ];
  for (const c of children) await apply(ctx, c);
  const conditions = setCondition(t.status.conditions, { type: 'Provisioned', status: 'True', reason: 'NamespaceReady', message: `namespace ${ns}`, observedGeneration: t.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, t, { namespace: ns, observedGeneration: t.metadata.generation, conditions });
};

const definition = { for: TENANT, owns: ['Namespace', 'Role', 'RoleBinding', 'ResourceQuota', 'NetworkPolicy'], leaderElection: true, resyncPeriodMs: RESYNC_MS };

export const tenantController = defineController({ name: 'tenant', ...definition, reconcile: reconciler(true) });

/**
 * Reads its Tenant from the cache. A cache still showing a Tenant that was just deleted makes it
 * create the namespace and its content again, which the garbage collector then removes (the owner
 * is gone): what every cache-based controller does while its cache lags behind a deletion, not a
 * bug (no-extra-destructive-actions does not count such stillborn children).
 */
export const tenantControllerCachedRead = defineController({ name: 'tenant', ...definition, reconcile: reconciler(false) });

/** Buggy twin: records a generation as provisioned before provisioning it (see `reconciler`). */
export const tenantControllerStatusFirst = defineController({ name: 'tenant', ...definition, reconcile: reconciler(true, true) });

export const namespaceProvisioner: FalsePositiveCase = {
  name: 'namespace-provisioner',
  description: 'a cluster-scoped Tenant gets a namespace with RBAC rules, a quota and a default-deny network policy',
  controllers: [tenantController],
  options: {
    objects: { kind: TENANT, namespace: '', name: 'team', spec: [{ admins: ['alice'], maxPods: 10 }, { admins: ['alice', 'bob'], maxPods: 20 }, { admins: ['bob'], maxPods: 10 }] },
  },
  properties: endStateProperties(),
  buggy: { controllers: [tenantControllerStatusFirst], caughtBy: ['same-end-state', 'recovery', 'convergence'], why: 'it records a generation as provisioned before provisioning it: a crash in between leaves the namespace without its children for good' },
};
