import { defineController, type StoredObject } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { BATCH, TASK, batchOf, type BatchStatus, type TaskStatus } from './batch.js';

/** Correct: counts what is Succeeded now, however it got there. */
export const batchCorrect = defineController({
  name: 'batch-correct',
  for: BATCH,
  watches: [{ kind: TASK, map: batchOf }],
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const b = await ctx.client.tryGet<Record<string, never>, BatchStatus>(BATCH, ctx.key);
    if (!b) return;
    const tasks = (await ctx.client.list(TASK, { labelSelector: { matchLabels: { batch: b.metadata.name } } })) as unknown as StoredObject<Record<string, never>, TaskStatus>[];
    const succeeded = tasks.filter((t) => t.status.phase === 'Succeeded').length;
    if (succeeded !== b.status.succeeded) await ctx.client.updateStatus({ ...b, status: { succeeded } });
  },
});
