import { isDeepStrictEqual } from 'node:util';
import { defineController, isStoreError, type ControllerDefinition, type JsonObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An `Exposure` asks for a Service of its app: ClusterIP or NodePort, one port. The Service is
 * read-modify-written, and only the fields the controller owns (selector, type, the port's port,
 * targetPort and protocol) are compared and set; what the API server defaults or allocates
 * (clusterIP, sessionAffinity, the traffic policies, a nodePort) is kept from the live Service, a
 * nodePort across a change of targetPort too. Going back to ClusterIP drops the external traffic
 * policy (a ClusterIP Service may not have one) and the node port. Status reports the allocated
 * cluster IP (and node port). (Red team rt, round 8: the first corpus case on the apiserver's
 * Service defaulting and allocation.)
 *
 * Its buggy twin compares the whole spec it builds with the live one by deep equality. The live
 * one carries the server's defaults and allocations, so they never match: it writes the Service
 * on every reconcile, as it would on a real cluster.
 */
export const EXPOSURE = 'Exposure';

interface ExposureSpec {
  app: string;
  port: number;
  targetPort: number;
  type: 'ClusterIP' | 'NodePort';
}
interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  nodePort?: number;
}
type Spec = Record<string, unknown>;

function define(mistake: 'none' | 'deep-compare'): ControllerDefinition {
  return defineController({
    name: 'svc-exposer',
    for: EXPOSURE,
    owns: ['Service'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const ex = await ctx.client.tryGet<ExposureSpec, JsonObject>(EXPOSURE, ctx.key, { live: true });
      if (!ex || ex.metadata.deletionTimestamp !== undefined) return undefined;
      const ns = ex.metadata.namespace ?? 'default';
      const name = ex.metadata.name;
      const want = { selector: { app: ex.spec.app }, type: ex.spec.type, ports: [{ name: 'http', port: ex.spec.port, targetPort: ex.spec.targetPort, protocol: 'TCP' }] };
      let svc = await ctx.client.tryGet<Spec, Spec>('Service', { namespace: ns, name }, { live: true });
      if (!svc) {
        try {
          svc = await ctx.client.create<Spec, Spec>({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ownerReferences: [controllerRef(ex)] }, spec: want });
        } catch (err) {
          if (isStoreError(err, 'AlreadyExists')) return { requeue: true };
          throw err;
        }
      } else if (!controlledBy(svc, ex)) {
        await writeStatus(ctx, ex, { observedGeneration: ex.metadata.generation, ready: false, reason: 'ServiceOwnedByAnother' });
        return undefined;
      } else if (mistake === 'deep-compare') {
        // BUG: the live spec carries the server's defaults and allocations; this never matches
        if (!isDeepStrictEqual(svc.spec, want)) svc = await ctx.client.update({ ...svc, spec: want });
      } else {
        const live = svc.spec as { selector?: Spec; type?: string; ports?: ServicePort[] };
        const livePorts = (live.ports ?? []).map((p) => ({ name: p.name, port: p.port, targetPort: p.targetPort ?? p.port, protocol: p.protocol ?? 'TCP' }));
        if (!isDeepStrictEqual(live.selector ?? {}, want.selector) || live.type !== want.type || !isDeepStrictEqual(livePorts, want.ports)) {
          const old = (live.ports ?? []).find((p) => p.port === ex.spec.port);
          // keep the node port allocated to the same port; a ClusterIP Service has none and no external traffic policy
          const ports = want.ports.map((p) => (want.type === 'NodePort' && old?.nodePort !== undefined ? { ...p, nodePort: old.nodePort } : p));
          const spec: Spec = { ...svc.spec, selector: want.selector, type: want.type, ports };
          if (want.type === 'ClusterIP') delete spec['externalTrafficPolicy'];
          svc = await ctx.client.update({ ...svc, spec });
        }
      }
      const s = svc.spec as { clusterIP?: string; ports?: ServicePort[] };
      const nodePort = s.ports?.[0]?.nodePort;
      await writeStatus(ctx, ex, { observedGeneration: ex.metadata.generation, ready: true, clusterIP: s.clusterIP ?? '', ...(ex.spec.type === 'NodePort' && nodePort !== undefined ? { nodePort } : {}) });
      return undefined;
    },
  });
}

export const svcExposerController = define('none');

/** Converged: every Exposure has its Service as asked, and reports the Service's cluster IP. */
export function exposed(v: WorldView): true | string {
  for (const ex of v.list(EXPOSURE)) {
    if (ex.metadata.deletionTimestamp !== undefined) continue;
    const spec = ex.spec as unknown as ExposureSpec;
    const svc = v.get('Service', `${ex.metadata.namespace}/${ex.metadata.name}`);
    if (!svc) return `no Service for Exposure ${ex.metadata.name}`;
    const ss = svc.spec as { type?: string; ports?: ServicePort[]; clusterIP?: string; selector?: Spec };
    if (ss.type !== spec.type || ss.ports?.[0]?.port !== spec.port || ss.ports?.[0]?.targetPort !== spec.targetPort || ss.selector?.['app'] !== spec.app) return `Service ${svc.metadata.name} is not what Exposure ${ex.metadata.name} asks for`;
    if (ex.status['clusterIP'] !== ss.clusterIP) return `Exposure ${ex.metadata.name} reports ${String(ex.status['clusterIP'])}, its Service has ${String(ss.clusterIP)}`;
  }
  return true;
}

export const svcExposer: FalsePositiveCase = {
  name: 'svc-exposer',
  description: 'an Exposure keeps a ClusterIP or NodePort Service of its app, comparing and writing only the fields it owns (the API server defaults the rest and allocates the cluster IP and node port), and reports the allocated address',
  controllers: [svcExposerController],
  options: {
    objects: {
      kind: EXPOSURE,
      spec: [
        { app: 'web', port: 80, targetPort: 8080, type: 'ClusterIP' },
        { app: 'web', port: 80, targetPort: 8080, type: 'NodePort' },
        { app: 'api', port: 443, targetPort: 8443, type: 'ClusterIP' },
      ],
    },
  },
  properties: [convergence({ converged: exposed })],
  buggy: {
    controllers: [define('deep-compare')],
    caughtBy: ['no-hot-loop', 'idempotence'],
    why: 'it compares the whole spec it builds with the live one, which carries the API server\'s defaults (sessionAffinity, internalTrafficPolicy, …) and allocations (clusterIP): a write on every reconcile',
  },
};
