import { defineController, fakeRestService, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type JsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * A `Seat` gives one user a paid seat of a SaaS across two providers (a Stripe-style billing API
 * and an identity provider): a billing customer, a subscription on the seat's plan for that
 * customer, and a grant at the identity provider naming the subscription. Ids flow between the
 * services: the subscription names its customer, the grant names its subscription. A plan change
 * is make-before-break: the subscription on the new plan and a grant naming it are made before
 * the old grant and subscription go, so the user never loses access. A finalizer removes grants,
 * subscriptions and the customer with the Seat. Every resource is found at its provider by the
 * Seat's uid (the `owner` field), never by what the status remembers; the user is immutable.
 */
export const SEAT = 'Seat';
export const BILLING_API = 'https://billing.example/v1';
export const IDENTITY_API = 'https://identity.example/v1';
const FINALIZER = 'seats.example.com/release';

interface SeatSpec {
  user: string;
  plan: string;
}
interface SeatStatus {
  customerId?: string;
  subscriptionId?: string;
  grantId?: string;
  plan?: string;
}
interface Customer {
  owner: string;
  email: string;
}
interface Subscription {
  owner: string;
  customer: string;
  plan: string;
}
interface Grant {
  owner: string;
  subscription: string;
  user: string;
}

type Seat = StoredObject<SeatSpec, SeatStatus>;

/**
 * The resource the seat runs on, as asked for: the one found, else one made with `key` (a create
 * whose answer was lost replays it); one edited at the provider since (a console edit, drift) is
 * patched back (its key replays the answer it was made with, not what the provider holds now).
 */
async function settle<T extends object>(api: JsonApi, collection: string, found: Remote<T> | undefined, body: T, key: string): Promise<Remote<T>> {
  // a replayed create answers with the body as first made: what the provider holds now is read
  const made = found === undefined ? await createFresh<T>(api, collection, body, key) : undefined;
  const r = found ?? (await api.get<T>(collection, made!.id)) ?? made!;
  const edited = Object.entries(body).some(([k, v]) => (r as Record<string, unknown>)[k] !== v);
  return edited ? api.patch<T>(collection, r.id, body) : r;
}

/** @param mistake - 'remembered-customer': the customer is created once and then known only by the status (no owner lookup, no idempotency key) */
function define(mistake: 'none' | 'remembered-customer') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const seat: Seat | undefined = await ctx.client.tryGet<SeatSpec, SeatStatus>(SEAT, ctx.key, { live: true });
    if (!seat) return;
    const billing = jsonApi(ctx.fetch, BILLING_API);
    const identity = jsonApi(ctx.fetch, IDENTITY_API);
    const uid = seat.metadata.uid;
    if (seat.metadata.deletionTimestamp !== undefined) {
      // access first, then what it was paid by
      await identity.removeOwned('grants', uid);
      await billing.removeOwned('subscriptions', uid);
      await billing.removeOwned('customers', uid);
      await removeFinalizer(ctx, seat, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, seat, FINALIZER)) return;
    let customer: Remote<Customer> | undefined;
    if (mistake === 'none') {
      const customers = await billing.list<Customer>('customers', { owner: uid });
      customer = await settle(billing, 'customers', customers[0], { owner: uid, email: seat.spec.user }, uid);
    } else {
      // BUG: the status is the only record of the customer: a status write that failed (a conflict, a crash before it) leaves a customer no one knows of, and the next pass makes another
      customer = seat.status.customerId !== undefined ? await billing.get<Customer>('customers', seat.status.customerId) : undefined;
      customer ??= await billing.create<Customer>('customers', { owner: uid, email: seat.spec.user });
    }
    // make: the subscription on the plan for this customer, and a grant naming it
    const subscriptions = await billing.list<Subscription>('subscriptions', { owner: uid });
    const subscription = await settle(billing, 'subscriptions', subscriptions.find((s) => s.plan === seat.spec.plan && s.customer === customer.id), { owner: uid, customer: customer.id, plan: seat.spec.plan }, `${uid}/${customer.id}/${seat.spec.plan}`);
    const grants = await identity.list<Grant>('grants', { owner: uid });
    const grant = await settle(identity, 'grants', grants.find((g) => g.subscription === subscription.id && g.user === seat.spec.user), { owner: uid, subscription: subscription.id, user: seat.spec.user }, `${uid}/${subscription.id}`);
    // break: what the seat no longer runs on, access first
    for (const g of grants) if (g.id !== grant.id) await identity.removeIfPresent('grants', g.id);
    for (const s of subscriptions) if (s.id !== subscription.id) await billing.removeIfPresent('subscriptions', s.id);
    const status: SeatStatus = { customerId: customer.id, subscriptionId: subscription.id, grantId: grant.id, plan: seat.spec.plan };
    const s = seat.status;
    if (s.customerId !== status.customerId || s.subscriptionId !== status.subscriptionId || s.grantId !== status.grantId || s.plan !== status.plan) await ctx.client.updateStatus({ ...seat, status });
  }
  return defineController({ name: 'license-seat', for: SEAT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const licenseSeatController = define('none');

export const licenseSeat: FalsePositiveCase = {
  name: 'license-seat',
  description: 'a Seat gives a user a paid seat across two providers: a billing customer, a subscription naming it, an identity grant naming the subscription (ids flow between services); plan changes are make-before-break; a finalizer releases all three',
  controllers: [licenseSeatController],
  options: {
    objects: { kind: SEAT, name: 'seat', spec: [{ user: 'ada@example.com', plan: 'team' }, { user: 'ada@example.com', plan: 'enterprise' }] },
    validation: { immutable: { [SEAT]: ['spec.user'] } },
    downstream: () => ({
      services: [fakeRestService({ baseUrl: BILLING_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 }), fakeRestService({ baseUrl: IDENTITY_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 10 })],
      timeoutMs: 5_000,
    }),
  },
  // the providers assign the ids
  properties: endStateProperties('status.customerId', 'status.subscriptionId', 'status.grantId'),
  buggy: {
    controllers: [define('remembered-customer')],
    caughtBy: ['no-duplicate-side-effects'],
    why: 'the status is the only record of the billing customer (no lookup by owner, no idempotency key): a status write that failed after the customer was made (a conflict, a crash) leaves that customer behind, and the next pass makes a second one for the same seat',
  },
};
