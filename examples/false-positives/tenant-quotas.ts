import { defineController, isStoreError, type ControllerDefinition, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controllerRef, controlledBy } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A cluster-scoped `Tenant` owns a Namespace per entry of `spec.envs` (`<tenant>-<env>`, labelled
 * with the tenant: a cluster-scoped dependent of a cluster-scoped owner) and a ResourceQuota
 * `tenant-quota` in each (a namespaced dependent of a cluster-scoped owner). Namespaces of envs
 * dropped from the spec are deleted (uid precondition); a terminating Namespace is waited for (a
 * create into it is 403). Quota amounts are compared as quantities: kube-apiserver serves a
 * built-in kind's quantities in canonical form (`2000m` as `2`, `2048Mi` as `2Gi`). (Red team rt,
 * round 8.)
 *
 * Its buggy twin compares the quota's `hard` amounts as strings: on a real cluster the canonical
 * strings it is served never equal the ones it sent, so it updates the quota on every reconcile.
 */
export const TENANT = 'Tenant';

interface TenantSpec {
  envs: string[];
  cpu: string;
  memory: string;
}
type Obj = Record<string, unknown>;
const TENANT_LABEL = 'tenant.example.com/name';
const SUFFIX: Record<string, number> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** The amount of a quantity string (enough for the amounts of this case: no exponents). */
export function quantity(q: unknown): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(q));
  return m ? Number(m[1]) * (SUFFIX[m[2]!] ?? NaN) : NaN;
}

function define(mistake: 'none' | 'raw-quantities'): ControllerDefinition {
  return defineController({
    name: 'tenant-quotas',
    for: TENANT,
    owns: ['Namespace', 'ResourceQuota'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const t = await ctx.client.tryGet<TenantSpec, Obj>(TENANT, ctx.key, { live: true });
      if (!t || t.metadata.deletionTimestamp !== undefined) return;
      const name = t.metadata.name;
      const want = new Set(t.spec.envs.map((e) => `${name}-${e}`));
      const hard = { cpu: t.spec.cpu, memory: t.spec.memory };
      let waiting = false;
      for (const nsName of [...want].sort()) {
        let ns = await ctx.client.tryGet('Namespace', nsName, { live: true });
        if (ns && !controlledBy(ns, t)) continue; // someone else's: left alone
        if (ns?.metadata.deletionTimestamp !== undefined) {
          waiting = true;
          continue;
        }
        if (!ns) {
          try {
            ns = await ctx.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsName, labels: { [TENANT_LABEL]: name }, ownerReferences: [controllerRef(t)] }, spec: {} });
          } catch (err) {
            if (!isStoreError(err, 'AlreadyExists')) throw err;
            waiting = true;
            continue;
          }
        }
        const q = await ctx.client.tryGet('ResourceQuota', { namespace: nsName, name: 'tenant-quota' }, { live: true });
        if (!q) {
          try {
            await ctx.client.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tenant-quota', namespace: nsName, ownerReferences: [controllerRef(t)] }, spec: { hard } });
          } catch (err) {
            // Forbidden: the namespace began terminating meanwhile
            if (!isStoreError(err, 'AlreadyExists') && !isStoreError(err, 'Forbidden')) throw err;
            waiting = true;
          }
          continue;
        }
        const live = (q.spec['hard'] ?? {}) as Record<string, string>;
        const same =
          mistake === 'raw-quantities'
            ? // BUG (raw-quantities): compares the strings it sent with the canonical ones the server serves
              live['cpu'] === hard.cpu && live['memory'] === hard.memory
            : quantity(live['cpu']) === quantity(hard.cpu) && quantity(live['memory']) === quantity(hard.memory);
        if (!same) await ctx.client.update({ ...q, spec: { ...q.spec, hard } });
      }
      for (const ns of await ctx.client.list('Namespace', { labelSelector: `${TENANT_LABEL}=${name}`, live: true })) {
        if (want.has(ns.metadata.name) || !controlledBy(ns, t) || ns.metadata.deletionTimestamp !== undefined) continue;
        try {
          await ctx.client.delete('Namespace', ns.metadata.name, { preconditions: { uid: ns.metadata.uid } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      await writeStatus(ctx, t, { observedGeneration: t.metadata.generation, namespaces: want.size });
      return waiting ? { requeueAfter: 2_000 } : undefined;
    },
  });
}

/** Converged: every live Tenant has its quota, of its amounts, in each of its namespaces, and no namespace of a dropped env. */
export function tenantsReady(v: WorldView): true | string {
  for (const t of v.list(TENANT)) {
    if (t.metadata.deletionTimestamp !== undefined) continue;
    const s = t.spec as unknown as TenantSpec;
    const mine = s.envs.map((e) => `${t.metadata.name}-${e}`);
    for (const ns of mine) {
      const q = v.get('ResourceQuota', `${ns}/tenant-quota`);
      if (!q) return `no quota in ${ns}`;
      const hard = q.spec['hard'] as Record<string, string>;
      if (quantity(hard['cpu']) !== quantity(s.cpu) || quantity(hard['memory']) !== quantity(s.memory)) return `quota of ${ns} is ${JSON.stringify(hard)}`;
    }
    const extra = v.list('Namespace').filter((n) => n.metadata.labels[TENANT_LABEL] === t.metadata.name && n.metadata.deletionTimestamp === undefined && !mine.includes(n.metadata.name));
    if (extra.length > 0) return `extra namespaces ${extra.map((n) => n.metadata.name).join(', ')}`;
  }
  return true;
}

export const tenantQuotas: FalsePositiveCase = {
  name: 'tenant-quotas',
  description: 'a cluster-scoped Tenant owns a Namespace per env and a ResourceQuota in each, compares quota amounts as quantities, prunes dropped envs and waits for terminating Namespaces',
  controllers: [define('none')],
  options: {
    objects: {
      kind: TENANT,
      namespace: '',
      spec: [
        { envs: ['dev'], cpu: '2000m', memory: '2048Mi' },
        { envs: ['dev', 'prod'], cpu: '4', memory: '4Gi' },
        { envs: ['prod'], cpu: '500m', memory: '0.5Gi' },
      ],
    },
  },
  properties: [convergence({ converged: tenantsReady })],
  buggy: {
    controllers: [define('raw-quantities')],
    caughtBy: ['no-hot-loop'],
    why: 'it compares the quota amounts it sent ("2000m", "2048Mi") with the canonical ones kube-apiserver serves ("2", "2Gi") as strings, so it updates the quota on every reconcile',
  },
};
