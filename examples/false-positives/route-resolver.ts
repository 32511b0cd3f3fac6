import { defineController, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Route` sends a path to a Service it names but neither owns nor is for: it reads the Service
 * to resolve the port, writes the proxy's upstream into a ConfigMap it owns, and says in a
 * condition when the Service is missing or has no such port. Service events map back to every
 * Route naming the Service (listed from the cache), so a port change or a late Service is picked up.
 */
export const ROUTE = 'Route';

interface RouteSpec {
  path: string;
  service: string;
  portName: string;
}
interface RouteStatus {
  upstream?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const r = await ctx.client.tryGet<RouteSpec, RouteStatus>(ROUTE, ctx.key, { live: true });
  if (!r || r.metadata.deletionTimestamp !== undefined) return;
  const svc = await ctx.client.tryGet('Service', { namespace: r.metadata.namespace, name: r.spec.service });
  const port = ((svc?.spec['ports'] ?? []) as { name?: string; port?: number }[]).find((p) => p.name === r.spec.portName)?.port;
  const upstream = svc && port !== undefined ? `${r.spec.service}.${r.metadata.namespace}.svc:${port}` : undefined;
  await apply(ctx, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${r.metadata.name}-proxy`, namespace: r.metadata.namespace, ownerReferences: [controllerRef(r)] },
    // no upstream: the proxy answers 503 for the path rather than routing anywhere stale
    data: { path: r.spec.path, upstream: upstream ?? '' },
  });
  const conditions = setCondition(
    r.status.conditions,
    { type: 'Resolved', status: upstream ? 'True' : 'False', reason: upstream ? 'ServiceFound' : svc ? 'PortNotFound' : 'ServiceNotFound', message: upstream ?? `${r.spec.service}:${r.spec.portName}`, observedGeneration: r.metadata.generation },
    ctx.clock.now(),
  );
  await writeStatus(ctx, r, { ...(upstream ? { upstream } : {}), observedGeneration: r.metadata.generation, conditions });
}

export const routeController = defineController({
  name: 'route',
  for: ROUTE,
  owns: ['ConfigMap'],
  watches: [{ kind: 'Service', map: (svc, ctx) => ctx.list(ROUTE, { namespace: svc.metadata.namespace ?? '' }).filter((r) => r.spec['service'] === svc.metadata.name).map((r) => `${r.metadata.namespace}/${r.metadata.name}`) }],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const routeResolver: FalsePositiveCase = {
  name: 'route-resolver',
  description: 'a Route resolves the port of a Service it neither owns nor is for, and follows it when the Service appears or changes',
  controllers: [routeController],
  options: {
    objects: [
      { kind: ROUTE, name: 'shop', spec: [{ path: '/shop', service: 'web-0', portName: 'http' }, { path: '/store', service: 'web-1', portName: 'http' }] },
      { kind: 'Service', name: 'web', spec: [{ selector: { app: 'web' }, ports: [{ name: 'http', port: 8080 }] }, { selector: { app: 'web' }, ports: [{ name: 'http', port: 9090 }] }] },
    ],
    maxObjects: 4,
  },
  properties: endStateProperties(),
};
