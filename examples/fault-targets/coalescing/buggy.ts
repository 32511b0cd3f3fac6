import { defineController, type StoredObject } from '../../../src/index.js';
import { sameJson } from '../../bug-zoo/shared/same-json.js';
import { BATCH, TASK, batchOf, type BatchStatus, type TaskStatus } from './batch.js';

/**
 * Buggy: counts transitions. It remembers each task's last phase in status and adds one
 * when it sees Running → Succeeded. A watch that skips the Running version (only the latest
 * state arrives) makes that transition invisible, and the count stays short forever.
 */
export const batchBuggy = defineController({
  name: 'batch-buggy',
  for: BATCH,
  watches: [{ kind: TASK, map: batchOf }],
  async reconcile(ctx) {
    const b = await ctx.client.tryGet<Record<string, never>, BatchStatus>(BATCH, ctx.key);
    if (!b) return;
    const tasks = (await ctx.client.list(TASK, { labelSelector: { matchLabels: { batch: b.metadata.name } } })) as unknown as StoredObject<Record<string, never>, TaskStatus>[];
    const seen = { ...(b.status.seen ?? {}) };
    let succeeded = b.status.succeeded ?? 0;
    for (const t of tasks) {
      const now = t.status.phase ?? 'Pending';
      if (seen[t.metadata.name] === 'Running' && now === 'Succeeded') succeeded++;
      seen[t.metadata.name] = now;
    }
    if (succeeded !== b.status.succeeded || !sameJson(seen, b.status.seen ?? {})) {
      await ctx.client.updateStatus({ ...b, status: { succeeded, seen } });
    }
  },
});
