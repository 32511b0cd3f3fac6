import { defineController, isStoreError, job, podLifecycle, type ReconcileContext, type StoredObject } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `BatchRun` fans a batch out over shards, one Job per shard (Argo / Spark-on-k8s style), at
 * most `parallelism` unfinished at a time, started in shard order as earlier ones finish. The
 * shard count may change while it runs: Jobs of shards beyond it are deleted (finished or not),
 * new shards are started. Status counts the shards finished and says Succeeded once all are.
 * A shard's Job is found by name (`<run>-shard-<i>`) and owner, so a restart never starts one
 * twice; it carries its index only (a Job is immutable, so a shard count in it would keep the
 * count of whenever it started).
 */
export const BATCH_RUN = 'BatchRun';

interface RunSpec {
  shards: number;
  parallelism: number;
  image: string;
}
interface RunStatus {
  succeeded?: number;
  failed?: number;
  phase?: 'Running' | 'Succeeded' | 'Failed';
  conditions?: Condition[];
  observedGeneration?: number;
}

const shardOf = (run: StoredObject<unknown, unknown>, j: StoredObject) => {
  const m = new RegExp(`^${run.metadata.name}-shard-(\\d+)$`).exec(j.metadata.name);
  return m ? Number(m[1]) : undefined;
};

function define(mistake: 'none' | 'count-all') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const run = await ctx.client.tryGet<RunSpec, RunStatus>(BATCH_RUN, ctx.key);
    if (!run || run.metadata.deletionTimestamp !== undefined) return;
    const ns = run.metadata.namespace ?? 'default';
    const jobs = (await ctx.client.list('Job', { namespace: ns })).filter((j) => controlledBy(j, run) && j.metadata.deletionTimestamp === undefined);
    const byShard = new Map<number, StoredObject>();
    for (const j of jobs) {
      const i = shardOf(run, j);
      if (i === undefined) continue;
      if (i >= run.spec.shards) {
        // BUG (count-all): a shard dropped from the spec stays and is counted, so a run shrunk after that shard finished reports more shards than it has
        if (mistake === 'none') {
          try {
            await ctx.client.delete('Job', { namespace: ns, name: j.metadata.name }, { propagationPolicy: 'Background', preconditions: { uid: j.metadata.uid } });
          } catch (err) {
            if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
          }
          continue;
        }
      }
      byShard.set(i, j);
    }
    const finished = (j: StoredObject) => jobComplete(j) || jobFailed(j);
    let unfinished = [...byShard.values()].filter((j) => !finished(j)).length;
    for (let i = 0; i < run.spec.shards && unfinished < run.spec.parallelism; i++) {
      if (byShard.has(i)) continue;
      const name = `${run.metadata.name}-shard-${i}`;
      try {
        await ctx.client.create({ kind: 'Job', metadata: { name, namespace: ns, ownerReferences: [controllerRef(run)], labels: { 'batch.example.com/run': run.metadata.name } }, spec: { completions: 1, parallelism: 1, backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'shard', image: run.spec.image, args: [`--shard=${i}`] }] } } } });
      } catch (err) {
        // made by an earlier reconcile the cache does not show yet: its event brings the key back
        if (isStoreError(err, 'AlreadyExists')) return;
        throw err;
      }
      unfinished++;
    }
    const done = [...byShard.values()];
    const succeeded = done.filter(jobComplete).length;
    const failed = done.filter(jobFailed).length;
    const all = mistake === 'count-all' ? Math.max(run.spec.shards, done.length) : run.spec.shards;
    const phase = failed > 0 ? 'Failed' : succeeded >= all ? 'Succeeded' : 'Running';
    const conditions = setCondition(run.status.conditions, { type: 'Complete', status: phase === 'Succeeded' ? 'True' : 'False', reason: phase, message: `${succeeded}/${all} shards succeeded`, observedGeneration: run.metadata.generation }, ctx.clock.now());
    await writeStatus(ctx, run, { succeeded, failed, phase, conditions, observedGeneration: run.metadata.generation });
  }
  return defineController({ name: 'batch-fanout', for: BATCH_RUN, owns: ['Job'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const batchFanoutController = define('none');

export const batchFanout: FalsePositiveCase = {
  name: 'batch-fanout',
  description: 'a BatchRun fans out one Job per shard, at most parallelism unfinished at a time, in shard order as earlier ones finish; a shrunk run deletes the Jobs of dropped shards',
  controllers: [batchFanoutController],
  options: {
    objects: { kind: BATCH_RUN, name: 'etl', spec: [{ shards: 3, parallelism: 2, image: 'etl:1' }, { shards: 1, parallelism: 1, image: 'etl:1' }, { shards: 4, parallelism: 1, image: 'etl:1' }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
  buggy: {
    controllers: [define('count-all')],
    caughtBy: ['same-end-state', 'recovery'],
    // the gate's seed runs no shrink after a shard finished; most seeds do within a hundred runs
    seed: 21,
    why: 'it keeps the Jobs of shards dropped from the spec and counts them: whether a dropped shard had been started before the spec shrank decides what the run ends with',
  },
};
