import { defineController, isStoreError, job, podLifecycle, type ControllerDefinition, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import { controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Database` keeps a ConfigMap of its settings; its finalizer runs a drop Job (`dropdb`) and
 * waits for it to complete, records that in status (so a finalizer removal lost to a fault never
 * runs the drop twice), then deletes the Job and removes the finalizer. The Job is not owned by
 * the Database: under a Foreground delete the garbage collector deletes the owner's dependents
 * first, an owned drop Job among them (red team rt46, shape cleanup-job).
 */
export const DATABASE = 'Database';
const FINALIZER = 'db.example.com/drop';

interface DatabaseSpec {
  engine: string;
  sizeGi: number;
}
interface DatabaseStatus {
  ready?: boolean;
  cleaned?: boolean;
  observedGeneration?: number;
}

function define(mistake: 'none' | 'owned-job'): ControllerDefinition {
  return defineController({
    name: 'db-drop-job',
    for: DATABASE,
    owns: ['ConfigMap', 'Job'],
    // the drop Job is found by an annotation naming its Database (it has no owner reference)
    watches: [{ kind: 'Job', map: (j) => { const a = j.metadata.annotations['db.example.com/database']; return a ? [a] : []; } }],
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx): Promise<ReconcileResult> {
      const db = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(DATABASE, ctx.key, { live: true });
      if (!db) return undefined;
      const ns = db.metadata.namespace ?? 'default';
      const jobName = `drop-${db.metadata.name}-${db.metadata.uid.replace(/[^a-z0-9]/g, '').slice(0, 8)}`;
      if (db.metadata.deletionTimestamp !== undefined) {
        if (!db.metadata.finalizers.includes(FINALIZER)) return undefined;
        const j = await ctx.client.tryGet('Job', { namespace: ns, name: jobName }, { live: true });
        if (db.status.cleaned !== true) {
          if (!j) {
            try {
              await ctx.client.create({
                apiVersion: 'batch/v1',
                kind: 'Job',
                metadata: {
                  name: jobName,
                  namespace: ns,
                  annotations: { 'db.example.com/database': `${ns}/${db.metadata.name}` },
                  // BUG (owned-job): owned by the Database, so under a Foreground delete the collector deletes it, and the controller makes it again at once, for ever
                  ...(mistake === 'owned-job' ? { ownerReferences: [controllerRef(db)] } : {}),
                },
                spec: { backoffLimit: 6, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'drop', image: 'postgres:16', command: ['dropdb', db.metadata.name] }] } } },
              });
            } catch (err) {
              if (!isStoreError(err, 'AlreadyExists')) throw err;
            }
            return { requeueAfter: 1_000 };
          }
          if (j.metadata.deletionTimestamp !== undefined) return { requeueAfter: 1_000 };
          if (jobFailed(j)) {
            await deleteIfPresent(ctx, 'Job', { namespace: ns, name: jobName }, { uid: j.metadata.uid });
            return { requeueAfter: 1_000 };
          }
          if (!jobComplete(j)) return { requeueAfter: 1_000 };
          await ctx.client.updateStatus({ ...db, status: { ...db.status, cleaned: true } });
          return undefined;
        }
        if (j) await deleteIfPresent(ctx, 'Job', { namespace: ns, name: jobName }, { uid: j.metadata.uid });
        await removeFinalizer(ctx, db, FINALIZER);
        return undefined;
      }
      if (await addFinalizer(ctx, db, FINALIZER)) return undefined;
      await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${db.metadata.name}-db`, namespace: ns, ownerReferences: [controllerRef(db)] }, data: { engine: db.spec.engine, size: `${db.spec.sizeGi}Gi` } });
      await writeStatus(ctx, db, { ready: true, observedGeneration: db.metadata.generation });
      return undefined;
    },
  });
}

export const dbDropJobController = define('none');

export const dbDropJob: FalsePositiveCase = {
  name: 'db-drop-job',
  description: "a Database's finalizer runs a drop Job (not owned by it), waits for it to complete, records that in status, then deletes the Job and removes the finalizer",
  controllers: [dbDropJobController],
  options: {
    objects: { kind: DATABASE, name: 'orders', spec: [{ engine: 'postgres', sizeGi: 10 }, { engine: 'postgres', sizeGi: 20 }] },
    environment: [job, podLifecycle],
  },
  buggy: {
    controllers: [define('owned-job')],
    caughtBy: ['no-hot-loop', 'deletion-completes'],
    // the livelock writes for the whole settle phase: a shorter one keeps the gate's run of it short
    world: { settleMs: 10_000 },
    why: "its drop Job is owned by the Database: under a Foreground delete the collector deletes it and the controller makes it again within a millisecond, so the Database's deletion never completes. Faults slow the controller enough for the collector to win, so the runs with faults pass; the fault-free twin livelocks (red team rt46 M-2)",
    // the test's seed: the CI's twin test finds it at run 1 (the seed before took 15; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 18,
  },
};
