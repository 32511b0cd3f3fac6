import { defineController, fromVirtualTimestamp, isStoreError, job, podLifecycle, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `BackupSchedule` runs a backup Job per schedule slot (a CronJob written as an operator):
 * slot n starts `n × everyMs` after the schedule was created, its Job is named `<name>-<n>` so a
 * retried create finds it, a Job once created is never rewritten (its template is immutable:
 * a new database only applies to later slots), only the last `keep` Jobs are kept, and the
 * controller sleeps until the next slot (`requeueAfter`).
 */
export const BACKUP_SCHEDULE = 'BackupSchedule';

interface BackupScheduleSpec {
  database: string;
  everyMs: number;
  keep: number;
}
interface BackupScheduleStatus {
  lastSlot?: number;
  lastSuccessfulSlot?: number;
  observedGeneration?: number;
}

const slotOf = (name: string, job: StoredObject): number => Number(job.metadata.name.slice(name.length + 1));

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const s = await ctx.client.tryGet<BackupScheduleSpec, BackupScheduleStatus>(BACKUP_SCHEDULE, ctx.key, { live: true });
  if (!s || s.metadata.deletionTimestamp !== undefined) return;
  const ns = s.metadata.namespace;
  const name = s.metadata.name;
  const every = Math.max(1000, s.spec.everyMs);
  const since = ctx.clock.now() - fromVirtualTimestamp(s.metadata.creationTimestamp);
  const slot = Math.floor(since / every);
  const jobName = `${name}-${slot}`;
  if (!(await ctx.client.tryGet('Job', { namespace: ns, name: jobName }))) {
    try {
      await ctx.client.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: jobName, namespace: ns, labels: { 'backup.example.com/schedule': name }, ownerReferences: [controllerRef(s)] },
        spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'backup', image: 'pg-backup:1', args: ['--database', s.spec.database] }] } } },
      });
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err;
    }
  }
  const jobs = (await ctx.client.list('Job', { namespace: ns, labelSelector: `backup.example.com/schedule=${name}` })).filter((j) => controlledBy(j, s));
  const bySlot = jobs.sort((a, b) => slotOf(name, b) - slotOf(name, a));
  for (const old of bySlot.slice(Math.max(1, s.spec.keep))) await deleteIfPresent(ctx, 'Job', { namespace: ns, name: old.metadata.name }, { uid: old.metadata.uid });
  const succeeded = bySlot.filter((j) => jobComplete(j)).map((j) => slotOf(name, j));
  const lastSuccessfulSlot = succeeded.length > 0 ? Math.max(...succeeded) : s.status.lastSuccessfulSlot;
  await writeStatus(ctx, s, { lastSlot: slot, ...(lastSuccessfulSlot !== undefined ? { lastSuccessfulSlot } : {}), observedGeneration: s.metadata.generation });
  // Job events bring the key back while one runs; otherwise wake at the next slot
  return { requeueAfter: (slot + 1) * every - since };
}

export const backupScheduleController = defineController({
  name: 'backup-schedule',
  for: BACKUP_SCHEDULE,
  owns: ['Job'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const backupSchedule: FalsePositiveCase = {
  name: 'backup-schedule',
  description: 'a BackupSchedule creates one backup Job per schedule slot, keeps the last few and sleeps until the next slot',
  controllers: [backupScheduleController],
  options: {
    objects: { kind: BACKUP_SCHEDULE, name: 'orders', spec: [{ database: 'orders', everyMs: 20_000, keep: 2 }, { database: 'orders-replica', everyMs: 20_000, keep: 1 }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
};
