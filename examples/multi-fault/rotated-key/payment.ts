import type { Client, ReconcileContext, ReconcileResult, StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../../bug-zoo/shared/finalizers.js';
import { HttpError, jsonApi, type JsonApi, type Remote } from '../../bug-zoo/shared/json-api.js';
import { latest } from '../../bug-zoo/shared/latest.js';

/**
 * A `Payment` charges a customer once at an external payments API (`POST /charges` creates a
 * charge with a server-chosen id; the API honours an `Idempotency-Key` header, Stripe-style). The
 * controller records the charge in status, re-checks it every 10 s and refunds it (deletes it)
 * behind a finalizer. A request that fails without an answer (a reset, a timeout) may or may not
 * have charged, so both controllers retry it with the same key; a request that got an HTTP error
 * answer counts as a failed attempt (counted in memory, per Payment). They differ only in the key.
 */
export const PAYMENT = 'Payment';
export const PAYMENTS_API = 'https://payments.example/v1';
export const FINALIZER = 'payments.example/refund';
export const RECHECK_MS = 10_000;

export interface PaymentSpec {
  customer: string;
  amount: number;
}
export interface PaymentStatus {
  chargeId?: string;
  observedGeneration?: number;
}
export type Payment = StoredObject<PaymentSpec, PaymentStatus>;
export interface Charge {
  /** uid of the Payment. */
  owner: string;
  customer: string;
  amount: number;
}

export function payments(ctx: ReconcileContext): JsonApi {
  return jsonApi(ctx.fetch, PAYMENTS_API);
}

/**
 * The reconcile both share; `keyOf` makes the idempotency key of a charge attempt from the
 * Payment and the number of its attempts that got an error answer so far.
 */
export function reconcilePayment(keyOf: (p: Payment, failedAttempts: number) => string) {
  // failed attempts per Payment uid, per controller process (the client is per instance)
  const failures = new WeakMap<Client, Map<string, number>>();
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const p = await latest<PaymentSpec, PaymentStatus>(ctx, PAYMENT);
    if (!p) return;
    const api = payments(ctx);
    if (p.metadata.deletionTimestamp !== undefined) {
      if (!p.metadata.finalizers.includes(FINALIZER)) return;
      await api.removeOwned('charges', p.metadata.uid);
      await removeFinalizer(ctx, p, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, p, FINALIZER)) return;
    let charge: Remote<Charge> | undefined = p.status.chargeId !== undefined ? await api.get<Charge>('charges', p.status.chargeId) : undefined;
    if (!charge) {
      let counts = failures.get(ctx.client);
      if (!counts) failures.set(ctx.client, (counts = new Map()));
      const failed = counts.get(p.metadata.uid) ?? 0;
      try {
        charge = await api.create<Charge>('charges', { owner: p.metadata.uid, customer: p.spec.customer, amount: p.spec.amount }, { idempotencyKey: keyOf(p, failed) });
      } catch (err) {
        // an answer says the attempt failed; no answer says nothing, and the same key is retried
        if (err instanceof HttpError) counts.set(p.metadata.uid, failed + 1);
        throw err;
      }
    } else if (charge.amount !== p.spec.amount || charge.customer !== p.spec.customer) {
      charge = await api.patch<Charge>('charges', charge.id, { customer: p.spec.customer, amount: p.spec.amount });
    }
    if (p.status.chargeId !== charge.id || p.status.observedGeneration !== p.metadata.generation) {
      await ctx.client.patchStatus(PAYMENT, ctx.key, { status: { chargeId: charge.id, observedGeneration: p.metadata.generation } });
    }
    return { requeueAfter: RECHECK_MS };
  };
}
