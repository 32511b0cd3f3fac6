import { defineController, isStoreError, job, podLifecycle, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `SchemaMigration` moves a database schema to `spec.version` by running a migration Job from
 * the version it is at (up or down). Each transition has its own Job (`<name>-v<from>-to-v<to>`,
 * labelled with both versions), so a retried create finds it and a later transition never
 * mistakes an old Job for its own; a running migration is never cancelled halfway (a new target
 * waits for it); the version reached is known from the completed Jobs and recorded in status,
 * and finished Jobs of other transitions are deleted. Status is its memory: it reads live.
 */
export const SCHEMA_MIGRATION = 'SchemaMigration';

interface MigrationSpec {
  version: number;
  image: string;
}
interface MigrationStatus {
  version?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

const versionLabel = (j: StoredObject, k: 'from' | 'to'): number => Number(j.metadata.labels[`migration.example.com/${k}`] ?? NaN);

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const m = await ctx.client.tryGet<MigrationSpec, MigrationStatus>(SCHEMA_MIGRATION, ctx.key, { live: true });
  if (!m || m.metadata.deletionTimestamp !== undefined) return;
  const ns = m.metadata.namespace;
  const jobs = (await ctx.client.list('Job', { namespace: ns, labelSelector: `migration=${m.metadata.name}`, live: true })).filter((j) => controlledBy(j, m));
  let from = m.status.version ?? 0;
  // a migration that completed from where the schema was: the schema is at its target now
  for (let moved = true; moved; ) {
    moved = false;
    const done = jobs.find((j) => jobComplete(j) && versionLabel(j, 'from') === from && versionLabel(j, 'to') !== from);
    if (done) {
      from = versionLabel(done, 'to');
      moved = true;
    }
  }
  const to = m.spec.version;
  const now = ctx.clock.now();
  const write = async (status: 'True' | 'False', reason: string, message: string) => {
    const conditions = setCondition(m.status.conditions, { type: 'Migrated', status, reason, message, observedGeneration: m.metadata.generation }, now);
    await writeStatus(ctx, m, { ...(from > 0 || m.status.version !== undefined ? { version: from } : {}), observedGeneration: m.metadata.generation, conditions });
  };
  // record a version reached before deleting the Job that proves it (a crash in between must not re-run it)
  if (from !== (m.status.version ?? 0)) return from === to ? write('True', 'AtVersion', `at v${to}`) : write('False', 'Migrating', `at v${from}, target v${to}`);
  // never two migrations at once, and never cancel one halfway: wait for a running Job
  const running = jobs.find((j) => !jobComplete(j) && !jobFailed(j));
  if (running && !(versionLabel(running, 'from') === from && versionLabel(running, 'to') === to)) return write('False', 'Waiting', `${running.metadata.name} still runs`);
  const name = `${m.metadata.name}-v${from}-to-v${to}`;
  for (const j of jobs) if (j.metadata.name !== name && (jobComplete(j) || jobFailed(j))) await deleteIfPresent(ctx, 'Job', { namespace: ns, name: j.metadata.name }, { uid: j.metadata.uid });
  if (from === to) return write('True', 'AtVersion', `at v${to}`);
  let j = jobs.find((x) => x.metadata.name === name);
  if (!j) {
    try {
      j = await ctx.client.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, namespace: ns, labels: { migration: m.metadata.name, 'migration.example.com/from': String(from), 'migration.example.com/to': String(to) }, ownerReferences: [controllerRef(m)] },
        spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: m.spec.image, args: ['migrate', `--from=${from}`, `--to=${to}`] }] } } },
      });
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err;
      j = await ctx.client.get('Job', { namespace: ns, name }, { live: true });
    }
  }
  return write('False', jobFailed(j) ? 'MigrationFailed' : 'Migrating', `v${from} → v${to}`);
}

export const migrationController = defineController({
  name: 'schema-migration',
  for: SCHEMA_MIGRATION,
  owns: ['Job'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const migrationRunner: FalsePositiveCase = {
  name: 'migration-runner',
  description: 'a SchemaMigration runs one Job per version transition (up or down), records the version only once its Job completed, and deletes finished Jobs',
  controllers: [migrationController],
  options: {
    objects: { kind: SCHEMA_MIGRATION, name: 'orders', spec: [{ version: 1, image: 'migrate:1' }, { version: 3, image: 'migrate:1' }, { version: 2, image: 'migrate:2' }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
};
