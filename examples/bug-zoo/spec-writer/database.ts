import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { ensureOwned } from '../shared/owned.js';

/**
 * A `Database` gets a credentials Secret and reports its endpoint and engine version. When the
 * user names no version, the controller picks the default one. Shared by the buggy and the
 * correct controller; they differ only in where that choice is written.
 */
export const DB_KIND = 'Database';
export const DEFAULT_VERSION = '16.4';

export interface DatabaseSpec {
  engine: 'postgres';
  /** @defaultValue {@link DEFAULT_VERSION} */
  version?: string;
  storageGB: number;
}
export interface DatabaseStatus {
  phase?: 'Ready';
  endpoint?: string;
  version?: string;
  observedGeneration?: number;
}
export type Database = StoredObject<DatabaseSpec, DatabaseStatus>;

/** Creates or repairs the credentials Secret (owned by the database). */
export async function ensureCredentials(ctx: ReconcileContext, db: Database): Promise<void> {
  await ensureOwned(ctx, db, 'Secret', `${db.metadata.name}-credentials`, { data: { username: 'app', host: endpointOf(db) } });
}

export function endpointOf(db: Database): string {
  return `${db.metadata.name}.${db.metadata.namespace ?? 'default'}.svc:5432`;
}

/** Writes the status when it differs from the one the database has. */
export async function reportReady(ctx: ReconcileContext, db: Database, version: string): Promise<void> {
  const s = db.status;
  if (s.phase === 'Ready' && s.endpoint === endpointOf(db) && s.version === version && s.observedGeneration === db.metadata.generation) return;
  await ctx.client.updateStatus({ ...db, status: { phase: 'Ready', endpoint: endpointOf(db), version, observedGeneration: db.metadata.generation } });
}
