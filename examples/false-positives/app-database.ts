import { defineController, podLifecycle, pvcBinding, statefulSet, deployment, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { deploymentAvailable } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * Two controllers in a chain (the "operator of operators" shape): an `App` asks for a `Database`
 * custom resource and runs a Deployment pointed at it; a separate `database` controller turns each
 * Database into a StatefulSet with a volume claim template and a headless Service. The App is
 * Ready when its Database says Ready and its Deployment is Available. A StatefulSet's claim
 * templates cannot change, so a larger database size grows the existing claims directly; the
 * claims go with the Database (retention policy Delete).
 */
export const APP = 'App';
export const DATABASE = 'Database';

interface AppSpec {
  image: string;
  replicas: number;
  databaseGi: number;
}
interface AppStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}
interface DatabaseSpec {
  sizeGi: number;
  replicas: number;
}
interface DatabaseStatus {
  readyReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

const isReady = (o: StoredObject | undefined): boolean => ((o?.status['conditions'] ?? []) as unknown as Condition[]).some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o?.metadata.generation);

async function reconcileApp(ctx: ReconcileContext): Promise<void> {
  const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key, { live: true });
  if (!app || app.metadata.deletionTimestamp !== undefined) return;
  const ns = app.metadata.namespace;
  const owner = [controllerRef(app)];
  const db = await apply(ctx, { apiVersion: 'example.com/v1', kind: DATABASE, metadata: { name: `${app.metadata.name}-db`, namespace: ns, ownerReferences: owner }, spec: { sizeGi: app.spec.databaseGi, replicas: 1 } });
  const labels = { app: app.metadata.name };
  const dep = await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app.metadata.name, namespace: ns, ownerReferences: owner },
    spec: { replicas: app.spec.replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: app.spec.image, env: [{ name: 'DATABASE_HOST', value: `${app.metadata.name}-db` }] }] } } },
  });
  const ready = isReady(db) && deploymentAvailable(dep);
  const conditions = setCondition(app.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Serving' : isReady(db) ? 'DeploymentProgressing' : 'DatabaseNotReady', message: '', observedGeneration: app.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, app, { observedGeneration: app.metadata.generation, conditions });
}

async function reconcileDatabase(ctx: ReconcileContext): Promise<void> {
  const db = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(DATABASE, ctx.key, { live: true });
  if (!db || db.metadata.deletionTimestamp !== undefined) return;
  const ns = db.metadata.namespace;
  const name = db.metadata.name;
  const owner = [controllerRef(db)];
  const labels = { database: name };
  await apply(ctx, { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ownerReferences: owner }, spec: { clusterIP: 'None', selector: labels, ports: [{ name: 'pg', port: 5432 }] } });
  const existing = await ctx.client.tryGet('StatefulSet', { namespace: ns, name });
  // the claim template is fixed when the StatefulSet is created (the API refuses changes to it)
  const template = existing ? existing.spec['volumeClaimTemplates'] : [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${db.spec.sizeGi}Gi` } } } }];
  const sts = await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns, ownerReferences: owner },
    spec: {
      replicas: db.spec.replicas,
      serviceName: name,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'postgres', image: 'postgres:16' }] } },
      volumeClaimTemplates: template as never,
      // the data goes with the Database (a deleted App leaves no claims behind)
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    },
  });
  // grow the claims the StatefulSet made (never shrink them)
  for (let i = 0; i < db.spec.replicas; i++) {
    const ref = { namespace: ns, name: `data-${name}-${i}` };
    const pvc = await ctx.client.tryGet('PersistentVolumeClaim', ref);
    const have = Number(String((pvc?.spec['resources'] as { requests?: { storage?: string } } | undefined)?.requests?.storage ?? '0Gi').replace('Gi', ''));
    if (pvc && have < db.spec.sizeGi) await ctx.client.patch('PersistentVolumeClaim', ref, { spec: { resources: { requests: { storage: `${db.spec.sizeGi}Gi` } } } });
  }
  const ready = sts.status['observedGeneration'] === sts.metadata.generation ? Number(sts.status['readyReplicas'] ?? 0) : 0;
  const conditions = setCondition(db.status.conditions, { type: 'Ready', status: ready >= db.spec.replicas ? 'True' : 'False', reason: ready >= db.spec.replicas ? 'ReplicasReady' : 'ReplicasNotReady', message: `${ready}/${db.spec.replicas}`, observedGeneration: db.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, db, { readyReplicas: ready, observedGeneration: db.metadata.generation, conditions });
}

export const appController = defineController({ name: 'app', for: APP, owns: [DATABASE, 'Deployment'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileApp });
export const databaseController = defineController({ name: 'database', for: DATABASE, owns: ['StatefulSet', 'Service'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileDatabase });

export const appDatabase: FalsePositiveCase = {
  name: 'app-database',
  description: 'an App controller asks for a Database custom resource that a second controller turns into a StatefulSet with claims it grows in place',
  controllers: [appController, databaseController],
  options: {
    objects: { kind: APP, name: 'shop', spec: [{ image: 'shop:1', replicas: 2, databaseGi: 1 }, { image: 'shop:2', replicas: 1, databaseGi: 2 }] },
    environment: [deployment, statefulSet, pvcBinding, podLifecycle],
  },
  // claims grow only, and a StatefulSet's claim template is fixed when it is created: both follow
  // the database sizes the controller happened to see, not only the last one
  properties: podEndStateProperties('spec.resources.requests.storage', 'status.capacity', 'spec.volumeClaimTemplates'),
};
