import { http, HttpResponse } from 'msw';
import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `CloudDatabase` is provisioned by a cloud API whose changes are long-running operations, as
 * Google Cloud's and Azure's are: `POST /databases` answers at once with a database that is still
 * `PROVISIONING` and the operation to poll (`create-<id>`); the controller records both in status
 * (status is its memory: it never lists to find its database) and polls with `requeueAfter` until
 * the operation is done. The POST carries an idempotency key derived from the object's uid (and
 * the database it replaces), so a retry after a lost response, a crash or a lost status write gets
 * the same database back. Deleting starts a delete operation for each database the object owns
 * (listed by owner, so one whose id never reached status goes too) and the finalizer comes off
 * only when they are all gone. A tier change is patched in place.
 *
 * Its buggy twin sends the POST without the key: a create retried after its response or its
 * status write was lost provisions a second database.
 */
export const CLOUD_DATABASE = 'CloudDatabase';
export const CLOUD_API = 'https://cloud.example/v1';
const FINALIZER = 'cloud.example/database';
/** Polls of an operation until it is done (the second one says done). */
const POLLS_TO_DONE = 2;

interface DatabaseSpec {
  tier: string;
}
interface DatabaseStatus {
  databaseId?: string;
  operation?: string;
  phase?: string;
  observedGeneration?: number;
}
interface Database {
  owner: string;
  name: string;
  tier: string;
  state?: string;
}
interface Operation {
  done: boolean;
  database: string;
}

function makeReconcile(idempotent: boolean) {
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const d = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(CLOUD_DATABASE, ctx.key, { live: true });
    if (!d) return;
    const api = jsonApi(ctx.fetch, CLOUD_API);
    if (d.metadata.deletionTimestamp !== undefined) {
      if (!d.metadata.finalizers.includes(FINALIZER)) return;
      const owned = await api.list<Database>('databases', { owner: d.metadata.uid });
      if (owned.length === 0) {
        await removeFinalizer(ctx, d, FINALIZER);
        return;
      }
      for (const db of owned) {
        // starting it again returns the same operation; each look is a poll
        const op = await api.create<{ action: string; database: string }>('operations', { action: 'delete', database: db.id });
        await api.get<Operation>('operations', op.id);
      }
      return { requeueAfter: 1000 };
    }
    if (await addFinalizer(ctx, d, FINALIZER)) return; // its update brings it back
    const known = d.status.databaseId;
    let db = known !== undefined ? await api.get<Database>('databases', known) : undefined;
    if (!db) {
      const body: Database = { owner: d.metadata.uid, name: d.metadata.name, tier: d.spec.tier };
      // the key names the database it replaces: one deleted behind our back is provisioned again, not replayed
      db = await api.create<Database>('databases', body, idempotent ? { idempotencyKey: `${d.metadata.uid}/after-${known ?? 'none'}` } : {});
    }
    if (db.state !== 'READY') {
      const op = await api.get<Operation>('operations', `create-${db.id}`);
      if (!op?.done) {
        await writeStatus(ctx, d, { databaseId: db.id, operation: `create-${db.id}`, phase: 'Provisioning', observedGeneration: d.metadata.generation });
        return { requeueAfter: 1000 };
      }
    }
    if (db.tier !== d.spec.tier) await api.patch<Database>('databases', db.id, { tier: d.spec.tier });
    await writeStatus(ctx, d, { databaseId: db.id, phase: 'Ready', observedGeneration: d.metadata.generation });
    // re-check now and then: someone may change or delete it in the console
    return { requeueAfter: 30_000 };
  };
}

export const cloudDatabaseController = defineController({ name: 'cloud-database', for: CLOUD_DATABASE, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(true) });
/** Creates without an idempotency key. */
export const cloudDatabaseControllerNoKey = defineController({ name: 'cloud-database', for: CLOUD_DATABASE, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(false) });

/**
 * The cloud API of one run: databases in a fake REST service (so duplicates and leaks are seen),
 * operations served beside it. An operation is done at its second poll; a done create makes its
 * database READY, a done delete removes it.
 */
function cloudApi() {
  const databases = fakeRestService({ baseUrl: CLOUD_API, collections: ['databases'], idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 30 });
  const polls = new Map<string, number>();
  const operationOf = (id: string) => {
    const m = /^(create|delete)-(.+)$/.exec(id);
    return m ? { action: m[1]!, database: m[2]! } : undefined;
  };
  const handlers = [
    http.post(`${CLOUD_API}/operations`, async ({ request }) => {
      const body = (await request.json()) as { action?: unknown; database?: unknown };
      if (body.action !== 'delete' || typeof body.database !== 'string') return HttpResponse.json({ message: 'action must be "delete", with a database id' }, { status: 400 });
      if (!databases.get('databases', body.database)) return HttpResponse.json({ message: 'no such database' }, { status: 404 });
      databases.mutate('databases', body.database, { state: 'DELETING' });
      return HttpResponse.json({ id: `delete-${body.database}`, done: false, database: body.database }, { status: 202 });
    }),
    http.get(`${CLOUD_API}/operations/:id`, ({ params }) => {
      const id = String(params['id']);
      const op = operationOf(id);
      if (!op) return HttpResponse.json({ message: 'no such operation' }, { status: 404 });
      const n = (polls.get(id) ?? 0) + 1;
      polls.set(id, n);
      const done = n >= POLLS_TO_DONE;
      if (done && op.action === 'create' && databases.get('databases', op.database)?.['state'] === 'PROVISIONING') databases.mutate('databases', op.database, { state: 'READY' });
      if (done && op.action === 'delete') databases.remove('databases', op.database);
      return HttpResponse.json({ id, done, database: op.database });
    }),
  ];
  return { databases, handlers };
}

export const cloudOperation: FalsePositiveCase = {
  name: 'cloud-operation',
  description: 'a CloudDatabase is provisioned through long-running operations: operation id in status, polled with requeueAfter, created with an idempotency key, deleted behind a finalizer that waits for the delete operations',
  controllers: [cloudDatabaseController],
  options: {
    objects: { kind: CLOUD_DATABASE, name: 'orders', spec: [{ tier: 'small' }, { tier: 'large' }] },
    downstream: () => {
      const { databases, handlers } = cloudApi();
      return { services: [databases], handlers, timeoutMs: 5_000 };
    },
  },
  // the id a database gets depends on how many were made before it in the run
  properties: endStateProperties('status.databaseId'),
  buggy: {
    controllers: [cloudDatabaseControllerNoKey],
    caughtBy: ['no-duplicate-side-effects'],
    why: 'it creates the database without an idempotency key: a create retried after its response (or its status write) was lost provisions a second one',
  },
};
