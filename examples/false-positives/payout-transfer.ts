import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { HttpError, jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Payout` sends money once through a payments API (Stripe style: an idempotency key per
 * payout, so a retry after a lost answer cannot pay twice). Transient failures (5xx, 429, resets,
 * timeouts) are retried by the rate-limited queue for as long as they last; a decline (any other
 * 4xx) is final: `phase: Failed`, as a Job past its backoffLimit (the user makes a new Payout).
 * Its spec is immutable (validation), as a payment's amount cannot change once asked for.
 *
 * The first version counted every failure against a budget of six attempts, and the harness said
 * why that is wrong twice: its own status writes re-triggered it at once, so six attempts took six
 * milliseconds, not the backoff it returned (requeueAfter is overridden by the next event); and
 * with the backoff fixed, a 30 s outage still made the payout fail for good where the fault-free
 * run paid (same-end-state). A budget is for answers that will not change, not for outages.
 */
export const PAYOUT = 'Payout';
export const PAYMENTS_API = 'https://payments.example/v1';

interface PayoutSpec {
  amount: number;
  account: string;
}
interface PayoutStatus {
  phase?: 'Pending' | 'Paid' | 'Failed';
  transferId?: string;
  lastError?: string;
  /** The buggy twin's attempt counter (its key names the attempt). */
  attempts?: number;
}
/** A transfer names its payout in metadata, as Stripe's do: a record of money sent, not a resource the payout owns (deleting the Payout deletes no payment). */
interface Transfer {
  metadata: { payout: string };
  amount: number;
  account: string;
}

/** A decline: an answer that will not change however often it is asked again. */
const isDecline = (err: unknown): err is HttpError => err instanceof HttpError && err.status >= 400 && err.status < 500 && err.status !== 409 && err.status !== 429 && err.status !== 408;

function define(mistake: 'none' | 'key-per-attempt') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const p = await ctx.client.tryGet<PayoutSpec, PayoutStatus>(PAYOUT, ctx.key, { live: true });
    if (!p || p.metadata.deletionTimestamp !== undefined) return;
    if (p.status.phase === 'Paid' || p.status.phase === 'Failed') return;
    const api = jsonApi(ctx.fetch, PAYMENTS_API);
    const attempts = p.status.attempts ?? 0;
    // BUG (key-per-attempt): a new key per attempt, so an attempt whose answer was lost and the next one both pay
    const key = mistake === 'none' ? p.metadata.uid : `${p.metadata.uid}/${attempts}`;
    let t: Transfer & { id: string };
    try {
      t = await api.create<Transfer>('transfers', { metadata: { payout: p.metadata.uid }, amount: p.spec.amount, account: p.spec.account }, { idempotencyKey: key });
    } catch (err) {
      if (isDecline(err)) {
        await writeStatus(ctx, p, { phase: 'Failed', lastError: `HTTP ${err.status}` });
        return;
      }
      if (mistake === 'key-per-attempt') await writeStatus(ctx, p, { ...p.status, phase: 'Pending', attempts: attempts + 1 });
      throw err; // transient: the queue backs off and tries again, for as long as it lasts
    }
    await writeStatus(ctx, p, { phase: 'Paid', transferId: t.id });
  };
}

export const payoutController = defineController({ name: 'payout', for: PAYOUT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define('none') });

export const payoutTransfer: FalsePositiveCase = {
  name: 'payout-transfer',
  description: 'a Payout sends money once through a payments API with an idempotency key; transient failures are retried as long as they last, a decline is final (terminal Failed); its spec is immutable',
  controllers: [payoutController],
  options: {
    objects: { kind: PAYOUT, name: 'p', spec: [{ amount: 100, account: 'acct-1' }, { amount: 250, account: 'acct-1' }] },
    validation: { immutable: { [PAYOUT]: ['spec.amount', 'spec.account'] } },
    downstream: () => ({ services: [fakeRestService({ baseUrl: PAYMENTS_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  // the transfer's id is the provider's
  properties: endStateProperties('status.transferId'),
  buggy: {
    controllers: [defineController({ name: 'payout', for: PAYOUT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define('key-per-attempt') })],
    caughtBy: ['no-duplicate-side-effects'],
    // one run in about thirty loses the answer to an applied create
    seed: 4,
    why: 'a new idempotency key per attempt: an attempt the payments API applied but whose answer was lost, and the next attempt, both pay',
  },
};
