import { defineController, fakeRestService, type CheckOptions, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { createRunDownstream } from '../../src/downstream/run-downstream.js';
import type { RestReply } from '../../src/downstream/fake-rest-service.js';
import type { World } from '../../src/harness/world.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { withHandler } from './_shared/with-handler.js';

/**
 * A `SearchIndex` keeps an index at a search API whose reads are eventually consistent (S3 before
 * 2020, Azure AD replication): an index is invisible to `GET /indexes/:id` for 2 s after its create.
 * The index is created with an idempotency key naming the index it replaces and its id recorded in
 * status; a 404 for an index younger than the 10 s the API documents as its replication bound
 * means "not visible yet" (requeue), and only an older one is made again. A list by owner is
 * consistent, so the finalizer's cleanup finds every index. (Red team rt46.)
 */
export const SEARCH_INDEX = 'SearchIndex';
export const SEARCH_API = 'https://search.example/v1';
const FINALIZER = 'search.example/index';
const VISIBLE_AFTER_MS = 2_000;
const REPLICATION_BOUND_MS = 10_000;

interface IndexSpec {
  shards: number;
}
interface IndexStatus {
  indexId?: string;
  createdAt?: number | undefined;
  shards?: number;
  observedGeneration?: number;
}

function reconcileWith(recreateOn404: boolean) {
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const x = await ctx.client.tryGet<IndexSpec, IndexStatus>(SEARCH_INDEX, ctx.key, { live: true });
    if (!x) return undefined;
    const api = jsonApi(ctx.fetch, SEARCH_API);
    if (x.metadata.deletionTimestamp !== undefined) {
      if (!x.metadata.finalizers.includes(FINALIZER)) return undefined;
      await api.removeOwned('indexes', x.metadata.uid);
      await removeFinalizer(ctx, x, FINALIZER);
      return undefined;
    }
    if (await addFinalizer(ctx, x, FINALIZER)) return undefined;
    const now = ctx.clock.now();
    let id = x.status.indexId;
    let createdAt = x.status.createdAt;
    if (id !== undefined) {
      const got = await api.get<{ shards: number }>('indexes', id);
      if (!got) {
        // the buggy twin takes "not visible yet" for "gone" and makes a second index
        if (!recreateOn404 && createdAt !== undefined && now - createdAt < REPLICATION_BOUND_MS) return { requeueAfter: 1_000 };
        id = undefined;
      } else if (got.shards !== x.spec.shards) {
        await api.patch('indexes', id, { shards: x.spec.shards });
      }
    }
    if (id === undefined) {
      const made = await api.create<{ owner: string; shards: number }>('indexes', { owner: x.metadata.uid, shards: x.spec.shards }, { idempotencyKey: `${x.metadata.uid}/after-${x.status.indexId ?? 'none'}` });
      id = made.id;
      createdAt = now;
    }
    await writeStatus(ctx, x, { indexId: id, createdAt, shards: x.spec.shards, observedGeneration: x.metadata.generation });
    return undefined;
  };
}

/** The search API: a fake REST store whose GET by id answers 404 for an index younger than 2 s (virtual). */
function searchApi(world: World) {
  const store = fakeRestService({ baseUrl: SEARCH_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 });
  const born = new Map<string, number>();
  const svc = withHandler(store, (route, method, body, key): RestReply => {
    if (method === 'GET' && route.id !== undefined) {
      const t = born.get(route.id);
      if (t !== undefined && world.kernel.now() - t < VISIBLE_AFTER_MS) return { status: 404, text: JSON.stringify({ message: 'not found' }), headers: [['content-type', 'application/json']] };
    }
    const reply = store.handle(route, method, body, key);
    if (method === 'POST' && reply.status === 201 && reply.text) {
      const id = (JSON.parse(reply.text) as { id: string }).id;
      if (!born.has(id)) born.set(id, world.kernel.now());
    }
    return reply;
  });
  return createRunDownstream(world, { services: [svc], timeoutMs: 5_000 });
}

const define = (recreateOn404: boolean) => defineController({ name: 'eventual-index', for: SEARCH_INDEX, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileWith(recreateOn404) });

export const eventualIndexController = define(false);

export const eventualIndex: FalsePositiveCase = {
  name: 'eventual-index',
  description: 'a SearchIndex keeps an index at an API whose GET lags its create by 2 s: a 404 inside the replication bound is "not visible yet", a create is keyed by the index it replaces',
  controllers: [eventualIndexController],
  options: {
    objects: { kind: SEARCH_INDEX, name: 'products', spec: [{ shards: 1 }, { shards: 3 }] },
    downstream: { build: searchApi } satisfies CheckOptions['downstream'],
  },
  properties: endStateProperties('status.indexId', 'status.createdAt'),
  buggy: {
    controllers: [define(true)],
    // no-hot-loop: since the fault-free twin's liveness is judged (stop 47), its fault-free run is
    // caught first: every pass makes another index and writes its id to status, for good
    caughtBy: ['no-duplicate-side-effects', 'same-end-state', 'no-hot-loop'],
    why: 'a 404 right after the create is read as "gone", so a second index is made for the same SearchIndex (and one more on every pass while the API lags, with no fault at all)',
  },
};
