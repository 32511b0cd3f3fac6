import { defineController, podLifecycle, pvcBinding, statefulSet, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Broker` runs a message broker as a StatefulSet (ordinal pods, a claim per pod from a
 * volume claim template, a headless Service for stable DNS names) and scales it by `replicas`
 * only: the StatefulSet's selector, serviceName and claim templates are fixed at creation (the
 * API refuses changes), so a changed storage class or size is reported, not written.
 */
export const BROKER = 'Broker';

interface BrokerSpec {
  replicas: number;
  version: string;
  storageGi: number;
}
interface BrokerStatus {
  readyReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const b = await ctx.client.tryGet<BrokerSpec, BrokerStatus>(BROKER, ctx.key, { live: true });
  if (!b || b.metadata.deletionTimestamp !== undefined) return;
  const ns = b.metadata.namespace;
  const name = b.metadata.name;
  const owner = [controllerRef(b)];
  const labels = { broker: name };
  await apply(ctx, { apiVersion: 'v1', kind: 'Service', metadata: { name: `${name}-headless`, namespace: ns, ownerReferences: owner }, spec: { clusterIP: 'None', selector: labels, ports: [{ name: 'amqp', port: 5672 }] } });
  const existing = await ctx.client.tryGet('StatefulSet', { namespace: ns, name });
  const claims = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${b.spec.storageGi}Gi` } } } }];
  const fixed = existing?.spec['volumeClaimTemplates'] ?? claims;
  const sts = await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns, ownerReferences: owner },
    spec: {
      replicas: b.spec.replicas,
      serviceName: `${name}-headless`,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'broker', image: `rabbitmq:${b.spec.version}` }] } },
      volumeClaimTemplates: fixed as never,
    },
  });
  const observed = sts.status['observedGeneration'] === sts.metadata.generation;
  const ready = observed ? Number(sts.status['readyReplicas'] ?? 0) : 0;
  const now = ctx.clock.now();
  let conditions = setCondition(b.status.conditions, { type: 'Ready', status: ready >= b.spec.replicas ? 'True' : 'False', reason: ready >= b.spec.replicas ? 'AllReplicasReady' : 'Scaling', message: `${ready}/${b.spec.replicas}`, observedGeneration: b.metadata.generation }, now);
  const drifted = JSON.stringify(fixed) !== JSON.stringify(claims);
  conditions = setCondition(conditions, { type: 'StorageChangePending', status: drifted ? 'True' : 'False', reason: drifted ? 'ClaimTemplatesImmutable' : 'AsSpecified', message: drifted ? 'recreate the Broker to change its storage' : '', observedGeneration: b.metadata.generation }, now);
  await writeStatus(ctx, b, { readyReplicas: ready, observedGeneration: b.metadata.generation, conditions });
}

export const brokerController = defineController({ name: 'broker', for: BROKER, owns: ['StatefulSet', 'Service'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });

export const messageBroker: FalsePositiveCase = {
  name: 'message-broker',
  description: 'a Broker runs a StatefulSet with per-pod claims and a headless Service, scaling by replicas and never writing its immutable fields',
  controllers: [brokerController],
  options: {
    objects: { kind: BROKER, name: 'events', spec: [{ replicas: 3, version: '3.13', storageGi: 1 }, { replicas: 1, version: '3.13', storageGi: 1 }, { replicas: 2, version: '4.0', storageGi: 2 }] },
    environment: [statefulSet, pvcBinding, podLifecycle],
  },
  properties: podEndStateProperties(),
};
