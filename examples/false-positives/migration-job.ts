import { defineController, isStoreError, job, podLifecycle, type ControllerDefinition, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef, controlledBy } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `DbMigration` runs one batch/v1 Job per schema version, of a fixed name (`<name>-v<version>`),
 * with the selector the API server generates from the Job's uid; once the current Job finished
 * (Complete or Failed: a crash-looping Pod can exhaust its backoffLimit), the Jobs of earlier
 * versions are deleted with `propagationPolicy: Background` (a Job deleted without one orphans its
 * Pods) and a uid precondition. (Red team rt, round 8.)
 *
 * Its buggy twin gives its Jobs a selector of its own without `manualSelector: true`, as one would
 * for a Deployment: kube-apiserver refuses every such create (422 "`selector` not auto-generated"),
 * so no migration ever runs on a real cluster.
 */
export const DB_MIGRATION = 'DbMigration';

interface MigrationSpec {
  version: number;
  image: string;
}
type Obj = Record<string, unknown>;
const NAME_LABEL = 'migration.example.com/name';

function define(mistake: 'none' | 'own-selector'): ControllerDefinition {
  return defineController({
    name: 'migration-job',
    for: DB_MIGRATION,
    owns: ['Job'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const m = await ctx.client.tryGet<MigrationSpec, Obj>(DB_MIGRATION, ctx.key, { live: true });
      if (!m || m.metadata.deletionTimestamp !== undefined) return;
      const ns = m.metadata.namespace!;
      const jobName = `${m.metadata.name}-v${m.spec.version}`;
      let j = await ctx.client.tryGet('Job', { namespace: ns, name: jobName }, { live: true });
      if (j && !controlledBy(j, m)) return;
      if (!j) {
        const labels = { [NAME_LABEL]: m.metadata.name };
        try {
          j = await ctx.client.create({
            apiVersion: 'batch/v1',
            kind: 'Job',
            metadata: { name: jobName, namespace: ns, labels, ownerReferences: [controllerRef(m)] },
            spec: {
              backoffLimit: 2,
              // BUG (own-selector): a selector without manualSelector: true
              ...(mistake === 'own-selector' ? { selector: { matchLabels: labels } } : {}),
              template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: m.spec.image, args: [`--to=${m.spec.version}`] }] } },
            },
          });
        } catch (err) {
          if (isStoreError(err, 'AlreadyExists')) return { requeue: true };
          throw err;
        }
      }
      const conds = (j.status['conditions'] ?? []) as { type: string; status: string }[];
      const phase = conds.some((c) => c.type === 'Complete' && c.status === 'True') ? 'Succeeded' : conds.some((c) => c.type === 'Failed' && c.status === 'True') ? 'Failed' : 'Running';
      if (phase !== 'Running') {
        for (const old of await ctx.client.list('Job', { namespace: ns, labelSelector: `${NAME_LABEL}=${m.metadata.name}`, live: true })) {
          if (old.metadata.name === jobName || !controlledBy(old, m) || old.metadata.deletionTimestamp !== undefined) continue;
          try {
            await ctx.client.delete('Job', { namespace: ns, name: old.metadata.name }, { propagationPolicy: 'Background', preconditions: { uid: old.metadata.uid } });
          } catch (err) {
            if (!isStoreError(err, 'NotFound')) throw err;
          }
        }
      }
      await writeStatus(ctx, m, { observedGeneration: m.metadata.generation, phase, job: jobName });
      return undefined;
    },
  });
}

/** Converged: every migration reports its current version's Job finished (Succeeded or Failed). */
export function migrated(v: WorldView): true | string {
  for (const m of v.list(DB_MIGRATION)) {
    if (m.metadata.deletionTimestamp !== undefined) continue;
    const s = m.spec as unknown as MigrationSpec;
    if (m.status['phase'] !== 'Succeeded' && m.status['phase'] !== 'Failed') return `DbMigration ${m.metadata.name} is ${String(m.status['phase'])}`;
    if (m.status['job'] !== `${m.metadata.name}-v${s.version}`) return `DbMigration ${m.metadata.name} reports job ${String(m.status['job'])}`;
  }
  return true;
}

export const migrationJob: FalsePositiveCase = {
  name: 'migration-job',
  description: 'a DbMigration runs one Job per schema version (fixed name, server-generated selector) and deletes the Jobs of earlier versions with Background propagation once the current one finished',
  controllers: [define('none')],
  options: {
    environment: [job, podLifecycle],
    objects: { kind: DB_MIGRATION, spec: [{ version: 1, image: 'migrate:1' }, { version: 2, image: 'migrate:2' }] },
  },
  properties: [convergence({ converged: migrated }), ...podEndStateProperties()],
  buggy: {
    controllers: [define('own-selector')],
    caughtBy: ['convergence'],
    why: 'it gives its Jobs a selector of its own without manualSelector: true; kube-apiserver refuses every such create (422 "`selector` not auto-generated"), so no migration ever runs',
  },
};
