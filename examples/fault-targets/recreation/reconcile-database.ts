import type { Client, ReconcileContext, StoredObject } from '../../../src/index.js';
import { DATABASE, type DatabaseSpec, type DatabaseStatus } from './database.js';

/**
 * The reconcile both database controllers share: skip generations already handled (an
 * in-memory note per controller process, lost on restart), otherwise provision and report.
 * `identity` says what the note is keyed by: that is the whole difference.
 */
export function reconcileDatabase(identity: (db: StoredObject<DatabaseSpec, DatabaseStatus>) => string) {
  // one note per controller process: the client is per instance, so a restart starts empty
  const handled = new WeakMap<Client, Map<string, number>>();
  return async (ctx: ReconcileContext): Promise<void> => {
    const db = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(DATABASE, ctx.key);
    if (!db) return;
    let notes = handled.get(ctx.client);
    if (!notes) handled.set(ctx.client, (notes = new Map()));
    const id = identity(db);
    if ((notes.get(id) ?? 0) >= db.metadata.generation) return; // already handled
    if (db.status.phase !== 'Ready' || db.status.observedGeneration !== db.metadata.generation) {
      await ctx.client.patchStatus(DATABASE, ctx.key, { status: { phase: 'Ready', observedGeneration: db.metadata.generation } });
    }
    notes.set(id, db.metadata.generation);
  };
}
