import { defineController, fakeRestService, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { HttpError, jsonApi, type JsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Schema migrations at a managed database's API (Atlas-operator style, declarative): a `Schema`
 * lists the migration versions it wants applied, in order; the controller migrates down the ones
 * no longer listed (newest first) and applies the pending ones,
 * each under an advisory lock it takes at the database (a lock row, created before and deleted
 * after the migration, as `pg_advisory_lock` wraps one), and records what is applied in status.
 * One pass applies every pending version, so how many locks a pass takes and releases depends on
 * how many versions it finds pending: a lock row made again is not a destroyed resource.
 */
export const DB_API = 'https://db.example/v1';
const FINALIZER = 'db.example/schema';

interface SchemaSpec {
  versions: string[];
}
interface SchemaStatus {
  applied?: string[];
}
interface Lock {
  owner: string;
  name: string;
}
interface Migration {
  owner: string;
  version: string;
}

type Schema = StoredObject<SchemaSpec, SchemaStatus>;

type Mistake = 'none' | 'status-as-record';

/** Runs one migration up (or down) under the schema lock. */
async function migrate(db: JsonApi, owner: string, version: string, direction: 'up' | 'down', mistake: Mistake): Promise<void> {
  const lock = await db.create<Lock>('locks', { owner, name: 'schema' });
  try {
    // looked up again under the lock: a pass whose answer was lost applied it already (a key would replay a record edited or deleted since)
    const records = mistake === 'none' ? await db.list<Migration>('migrations', { owner, version }) : [];
    if (direction === 'up' && records.length === 0) await db.create<Migration>('migrations', { owner, version });
    if (direction === 'down') for (const r of records) await db.removeIfPresent('migrations', r.id);
  } finally {
    await db.removeIfPresent('locks', lock.id).catch((err: unknown) => {
      // released by the next pass when this one cannot: the database's session timeout in real life
      if (!(err instanceof HttpError)) throw err;
    });
  }
}

const reconcile = (mistake: Mistake) => async (ctx: ReconcileContext): Promise<void> => {
  // the cached Schema is enough: the database, read live below, says what is applied; a lagging spec only delays a version
  const s: Schema | undefined = await ctx.client.tryGet<SchemaSpec, SchemaStatus>('Schema', ctx.key);
  if (!s) return;
  const db = jsonApi(ctx.fetch, DB_API);
  const owner = s.metadata.uid;
  if (s.metadata.deletionTimestamp !== undefined) {
    await db.removeOwned('locks', owner);
    await db.removeOwned('migrations', owner);
    await removeFinalizer(ctx, s, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, s, FINALIZER)) return;
  // a lock left by a pass that crashed or could not release it is taken over (one active replica: leader election)
  for (const stale of await db.list<Lock>('locks', { owner })) await db.removeIfPresent('locks', stale.id);
  // what the database says is applied, not what status remembers: a pass that failed after a migration still applied it
  // BUG (status-as-record): what status remembers, which a pass that failed after a migration never wrote
  const applied = new Set(mistake === 'none' ? (await db.list<Migration>('migrations', { owner })).map((m) => m.version) : (s.status.applied ?? []));
  // versions no longer listed are migrated down, newest first (declarative, as Atlas does): the schema is a function of the spec
  for (const v of [...applied].filter((x) => !s.spec.versions.includes(x)).sort().reverse()) {
    await migrate(db, owner, v, 'down', mistake);
    applied.delete(v);
  }
  for (const v of s.spec.versions) if (!applied.has(v)) {
    await migrate(db, owner, v, 'up', mistake);
    applied.add(v);
  }
  await writeStatus(ctx, s, { applied: s.spec.versions.filter((v) => applied.has(v)) });
};

const define = (mistake: Mistake) => defineController({ name: 'schema-migrations', for: 'Schema', leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcile(mistake) });

export const schemaMigrationsController = define('none');

export const schemaMigrations: FalsePositiveCase = {
  name: 'schema-migrations',
  description: 'a Schema lists migration versions; the controller applies the pending ones at a database API, each under an advisory lock row it creates and deletes, and records what is applied',
  controllers: [schemaMigrationsController],
  options: {
    objects: { kind: 'Schema', name: 'orders', spec: [{ versions: ['001'] }, { versions: ['001', '002'] }, { versions: ['001', '002', '003'] }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: DB_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  properties: endStateProperties(),
  buggy: {
    controllers: [define('status-as-record')],
    caughtBy: ['no-duplicate-side-effects', 'same-end-state'],
    why: 'it takes its status as the record of what is applied: a pass that applied a migration and then failed to write status (a conflict, a crash, a cache that had not seen the last write) applies it again, and the database holds the migration twice',
  },
};
