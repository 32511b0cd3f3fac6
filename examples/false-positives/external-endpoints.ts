import { defineController, type ControllerDefinition, type JsonObject, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controllerRef, controlledBy } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An `ExternalTarget` names addresses outside the cluster (a managed database) and a port; the
 * controller publishes them as a selectorless Service plus one EndpointSlice it manages
 * (`endpointslice.kubernetes.io/managed-by` its own, so the EndpointSlice controller leaves it
 * alone), as the Kubernetes docs' "Services without selectors" pattern. The slice's ports are
 * compared in the form the API server serves them: discovery/v1 defaults a port's `name` to ""
 * and its `protocol` to TCP. (Red team rt, round 8.)
 *
 * Its buggy twin compares the slice's ports with the unnamed `{port}` it sent: the served
 * `{name: "", port, protocol: TCP}` never equals it, so it updates the slice on every reconcile,
 * as it would on a real cluster.
 */
export const EXTERNAL_TARGET = 'ExternalTarget';

interface TargetSpec {
  addresses: string[];
  port: number;
}
type Obj = Record<string, unknown>;

const SVC_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const ME = 'external-endpoints.example.com';

/** Ports as the API server serves them (name "" and protocol TCP when not given). */
const servedPorts = (ps: unknown): JsonObject[] =>
  Array.isArray(ps) ? (ps as Obj[]).map((p) => ({ name: (p['name'] as string | undefined) ?? '', port: p['port'] as number, protocol: (p['protocol'] as string | undefined) ?? 'TCP' })) : [];

function define(mistake: 'none' | 'raw-ports'): ControllerDefinition {
  return defineController({
    name: 'external-endpoints',
    for: EXTERNAL_TARGET,
    owns: ['Service', 'EndpointSlice'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const t = await ctx.client.tryGet<TargetSpec, Obj>(EXTERNAL_TARGET, ctx.key, { live: true });
      if (!t || t.metadata.deletionTimestamp !== undefined) return;
      const ns = t.metadata.namespace!;
      const name = t.metadata.name;
      const svc = await ctx.client.tryGet('Service', { namespace: ns, name }, { live: true });
      const svcPorts = [{ port: t.spec.port, protocol: 'TCP', targetPort: t.spec.port }];
      if (!svc) {
        await ctx.client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ownerReferences: [controllerRef(t)] }, spec: { ports: svcPorts } });
      } else if (controlledBy(svc, t)) {
        const live = (svc.spec['ports'] as { port?: number; targetPort?: unknown }[] | undefined) ?? [];
        // only the fields it owns: the server allocated the cluster IP and defaulted the rest
        if (live.length !== 1 || live[0]!.port !== t.spec.port || live[0]!.targetPort !== t.spec.port) await ctx.client.update({ ...svc, spec: { ...svc.spec, ports: svcPorts } });
      } else return;
      const sliceName = `${name}-ext`;
      const endpoints = [...t.spec.addresses].sort().map((a) => ({ addresses: [a], conditions: { ready: true } }));
      const ports = [{ port: t.spec.port }];
      const slice = (await ctx.client.tryGet('EndpointSlice', { namespace: ns, name: sliceName }, { live: true })) as (StoredObject & { endpoints?: unknown; ports?: unknown }) | undefined;
      const body = { addressType: 'IPv4', endpoints, ports };
      if (!slice) {
        await ctx.client.create({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: sliceName, namespace: ns, labels: { [SVC_NAME_LABEL]: name, [MANAGED_BY]: ME }, ownerReferences: [controllerRef(t)] }, ...body } as never);
      } else if (controlledBy(slice, t)) {
        // BUG (raw-ports): compares with what it sends, not with what the server serves
        const portsSame = mistake === 'raw-ports' ? sameJson(slice.ports, ports) : sameJson(servedPorts(slice.ports), servedPorts(ports));
        if (!portsSame || !sameJson(slice.endpoints, endpoints)) await ctx.client.update({ ...slice, ...body } as never);
      }
      await writeStatus(ctx, t, { observedGeneration: t.metadata.generation, endpoints: endpoints.length });
      return undefined;
    },
  });
}

/** Converged: every target has its Service and a slice with its addresses and port. */
export function published(v: WorldView): true | string {
  for (const t of v.list(EXTERNAL_TARGET)) {
    if (t.metadata.deletionTimestamp !== undefined) continue;
    const spec = t.spec as unknown as TargetSpec;
    const ns = t.metadata.namespace;
    if (!v.get('Service', `${ns}/${t.metadata.name}`)) return `no Service for ExternalTarget ${t.metadata.name}`;
    const slice = v.get('EndpointSlice', `${ns}/${t.metadata.name}-ext`) as (StoredObject & { endpoints?: { addresses: string[] }[]; ports?: { port: number }[] }) | undefined;
    if (!slice) return `no EndpointSlice for ExternalTarget ${t.metadata.name}`;
    const addresses = (slice.endpoints ?? []).flatMap((e) => e.addresses).sort();
    if (!sameJson(addresses, [...spec.addresses].sort()) || slice.ports?.[0]?.port !== spec.port) return `EndpointSlice ${slice.metadata.name} does not publish ExternalTarget ${t.metadata.name}`;
  }
  return true;
}

export const externalEndpoints: FalsePositiveCase = {
  name: 'external-endpoints',
  description: 'an ExternalTarget is published as a selectorless Service plus an EndpointSlice the controller manages, its ports compared in the form the API server serves (name "" and protocol TCP defaulted)',
  controllers: [define('none')],
  options: {
    objects: { kind: EXTERNAL_TARGET, spec: [{ addresses: ['192.0.2.10', '192.0.2.11'], port: 5432 }, { addresses: ['192.0.2.12'], port: 5432 }, { addresses: ['192.0.2.10'], port: 6432 }] },
  },
  properties: [convergence({ converged: published })],
  buggy: {
    controllers: [define('raw-ports')],
    caughtBy: ['no-hot-loop', 'idempotence'],
    why: 'it compares the EndpointSlice ports with the unnamed {port} it sent; the API server serves {name: "", port, protocol: TCP}, so it updates the slice on every reconcile',
  },
};
