import { defineController, fakeRestService, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { addFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * kube's service controller (cloud-provider style): every Service of type LoadBalancer gets a
 * load balancer at a cloud API, found again by the Service's uid tag, and the address lands in the
 * Service's status. The Services are the users': the controller owns nothing and marks them only
 * with its cleanup finalizer, which it removes itself while the Service lives when the type
 * changes away from LoadBalancer (after the balancer is gone and the address cleared).
 */
export const CLOUD_API = 'https://cloud.example/v1';
const FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

interface ServiceSpec {
  type: 'ClusterIP' | 'LoadBalancer';
  ports: number[];
}
interface ServiceStatus {
  loadBalancer?: { ingress?: { hostname: string }[] };
}
interface Balancer {
  owner: string;
  service: string;
  ports: number[];
}

type Service = StoredObject<ServiceSpec, ServiceStatus>;

/** The Service without the finalizer (optimistic: a stale one gets 409 and the key comes back). */
async function release(ctx: ReconcileContext, svc: Service): Promise<Service> {
  return ctx.client.update({ ...svc, metadata: { ...svc.metadata, finalizers: svc.metadata.finalizers.filter((f) => f !== FINALIZER) } });
}

function define(mistake: 'none' | 'release-first') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    let svc = await ctx.client.tryGet<ServiceSpec, ServiceStatus>('Service', ctx.key, { live: true });
    if (!svc) return;
    const api = jsonApi(ctx.fetch, CLOUD_API);
    const uid = svc.metadata.uid;
    if (svc.spec.type !== 'LoadBalancer' || svc.metadata.deletionTimestamp !== undefined) {
      // never had a balancer (or already cleaned up): nothing of ours here
      if (!svc.metadata.finalizers.includes(FINALIZER)) return;
      // BUG (release-first): the finalizer first, so a crash or a failed call before the delete below leaves a balancer nobody will ever remove
      if (mistake === 'release-first') svc = await release(ctx, svc);
      await api.removeOwned('loadbalancers', uid);
      if (svc.metadata.deletionTimestamp === undefined && (svc.status.loadBalancer?.ingress?.length ?? 0) > 0) {
        // the field dropped, not emptied: as a Service that never had a balancer (the simulated API server does not default it to {} as kube's typed one does)
        const { loadBalancer: _gone, ...rest } = svc.status;
        svc = await ctx.client.updateStatus({ ...svc, status: rest });
      }
      if (mistake === 'none') await release(ctx, svc);
      return;
    }
    if (await addFinalizer(ctx, svc, FINALIZER)) return;
    const ports = [...svc.spec.ports].sort((a, b) => a - b);
    const found = await api.list<Balancer>('loadbalancers', { owner: uid });
    let lb: Remote<Balancer> | undefined = found[0];
    for (const extra of found.slice(1)) await api.removeIfPresent('loadbalancers', extra.id);
    // one key per generation: a type switched away and back wants a new balancer, a lost response to this create its first one
    if (!lb) lb = await createFresh<Balancer>(api, 'loadbalancers', { owner: uid, service: svc.metadata.name, ports }, `${uid}/g${svc.metadata.generation}`);
    else if (JSON.stringify(lb.ports) !== JSON.stringify(ports)) lb = await api.patch<Balancer>('loadbalancers', lb.id, { ports });
    const ingress = [{ hostname: `${lb.id}.lb.cloud.example` }];
    if (JSON.stringify(svc.status.loadBalancer?.ingress) !== JSON.stringify(ingress)) await ctx.client.updateStatus({ ...svc, status: { ...svc.status, loadBalancer: { ingress } } });
  }
  return defineController({ name: 'service-lb', for: 'Service', leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const serviceLbController = define('none');

export const serviceLb: FalsePositiveCase = {
  name: 'service-lb',
  description: "kube's service controller: a Service of type LoadBalancer (the user's, not owned) gets a cloud load balancer found by its uid tag, its address in status, and a cleanup finalizer the controller removes itself when the type changes away",
  controllers: [serviceLbController],
  options: {
    objects: {
      kind: 'Service',
      name: 'web',
      spec: [
        { type: 'LoadBalancer', ports: [80] },
        { type: 'ClusterIP', ports: [80] },
        { type: 'LoadBalancer', ports: [80, 443] },
      ],
    },
    downstream: () => ({ services: [fakeRestService({ baseUrl: CLOUD_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 30 })], timeoutMs: 5_000 }),
  },
  // the balancer's id (so its hostname) is the cloud's to assign
  properties: endStateProperties('status.loadBalancer.ingress[*].hostname'),
  buggy: {
    controllers: [define('release-first')],
    caughtBy: ['deletion-completes', 'same-end-state'],
    // about one run in a hundred and fifty shows it (a crash or a failed call between the two)
    seed: 3,
    why: 'it removes its finalizer before deleting the balancer: a crash between the two (or a failed delete) leaves a balancer at the cloud for a Service that is gone or no longer a LoadBalancer, and nothing ever looks for it again',
  },
};
