import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { HttpError, jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { honoursRetryAfter } from '../../properties/honours-retry-after.js';

/**
 * A `Meter` keeps a customer's committed usage at a metering API that rate limits hard (Stripe
 * and most SaaS APIs: 429 with `Retry-After`). The controller honours the server: a 429 (or a 503
 * with Retry-After) is no error to back off from on its own schedule, but a wait of exactly as
 * long as asked, remembered per process for the whole API (a reconcile of another Meter, or one an
 * event started, waits too, with `requeueAfter`), so it never calls before the server said it
 * may; other failures back off as usual. The meter is found by owner, created with an idempotency key, patched when the units
 * differ, and deleted by a finalizer with the Meter.
 */
export const METER = 'Meter';
export const METERING_API = 'https://metering.example/v1';
const FINALIZER = 'metering.example/meter';

interface MeterSpec {
  customer: string;
  units: number;
}
interface MeterStatus {
  meterId?: string;
  units?: number;
}
interface RemoteMeter {
  owner: string;
  customer: string;
  units: number;
}

type Meter = StoredObject<MeterSpec, MeterStatus>;

/**
 * The mistake this shape invites, ignoring `Retry-After` (a 429 thrown like any error, so the
 * queue retries after its own 5 ms, 10 ms…), still backs off exponentially and stays under
 * bounded-downstream-qps: only the opt-in honours-retry-after property, which this case turns on,
 * catches it.
 * @param mistake - 'ignores-retry-after': a 429 is thrown like any error
 */
function define(mistake: 'none' | 'ignores-retry-after') {
  // per process (a restart forgets): the API said not before this time
  const notBefore = new WeakMap<object, number>();
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const m: Meter | undefined = await ctx.client.tryGet<MeterSpec, MeterStatus>(METER, ctx.key, { live: true });
    if (!m) return;
    const wait = (notBefore.get(ctx.client) ?? 0) - ctx.clock.now();
    if (mistake === 'none' && wait > 0) return { requeueAfter: wait };
    const api = jsonApi(ctx.fetch, METERING_API);
    const uid = m.metadata.uid;
    try {
      if (m.metadata.deletionTimestamp !== undefined) {
        await api.removeOwned('meters', uid);
        await removeFinalizer(ctx, m, FINALIZER);
        return;
      }
      if (await addFinalizer(ctx, m, FINALIZER)) return;
      const want: RemoteMeter = { owner: uid, customer: m.spec.customer, units: m.spec.units };
      const found = await api.list<RemoteMeter>('meters', { owner: uid });
      let meter = found[0] ?? (await createFresh<RemoteMeter>(api, 'meters', want, uid));
      if (meter.customer !== want.customer || meter.units !== want.units) meter = await api.patch<RemoteMeter>('meters', meter.id, { customer: want.customer, units: want.units });
      for (const extra of found.slice(1)) await api.removeIfPresent('meters', extra.id);
      if (m.status.meterId !== meter.id || m.status.units !== meter.units) await ctx.client.updateStatus({ ...m, status: { meterId: meter.id, units: meter.units } });
      return;
    } catch (err) {
      // BUG (ignores-retry-after): the server said when; the queue's own backoff starts at 5 ms
      if (mistake === 'none' && err instanceof HttpError && (err.status === 429 || (err.status === 503 && err.retryAfterMs !== undefined))) {
        const ms = Math.max(1_000, err.retryAfterMs ?? 1_000);
        notBefore.set(ctx.client, Math.max(notBefore.get(ctx.client) ?? 0, ctx.clock.now() + ms));
        return { requeueAfter: ms };
      }
      throw err;
    }
  }
  return defineController({ name: 'meter-sync', for: METER, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const meterSyncController = define('none');
/** Retry-After ignored: caught by honours-retry-after only (see {@link define}). */
export const meterSyncIgnoringRetryAfter = define('ignores-retry-after');

export const meterSync: FalsePositiveCase = {
  name: 'meter-sync',
  description: 'a Meter keeps a customer\'s committed usage at a metering API that rate limits with 429 + Retry-After, honoured by waiting exactly as long as asked (requeueAfter); found by owner, idempotent create, patched on change, finalizer deletes it',
  controllers: [meterSyncController],
  options: {
    objects: { kind: METER, name: 'meter', spec: [{ customer: 'acme', units: 100 }, { customer: 'acme', units: 250 }, { customer: 'globex', units: 100 }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: METERING_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 30 })], timeoutMs: 5_000 }),
  },
  // the meter's id is the provider's; and it promises to wait as long as the API asks (opt-in)
  properties: [...endStateProperties('status.meterId'), honoursRetryAfter()],
  buggy: { controllers: [meterSyncIgnoringRetryAfter], caughtBy: ['honours-retry-after'], why: 'a 429 is thrown like any error, so the queue retries after 5 ms, 10 ms… where the API asked for seconds' },
};
