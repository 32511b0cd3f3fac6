import { http, HttpResponse } from 'msw';
import { defineController, defineProperty, fakeRestService, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { readDownstream } from '../../properties/_internals/downstream-state.js';
import { DEFAULT_HISTORY } from '../../properties/_internals/history.js';
import { HttpError, jsonApi, type JsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { withHandler } from './_shared/with-handler.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An ACME client, cert-manager's order flow in small: a `Certificate` names a DNS name; the
 * controller gets it a certificate from an ACME server through the server's state machine, one
 * step per request: a new order (`POST /orders`: `pending`), the authorization of its challenge
 * (`POST /authorizations`: the server validates it, the order is `ready`), the finalization with
 * a CSR (`POST /finalizations`: `valid`, the certificate issued), and the certificate copied into
 * the Certificate's TLS Secret (`<name>-tls`, owned by it). The server's transitions are not
 * idempotent, as real ACME servers' are not: finalizing an order that is no longer `ready`
 * answers 403 `orderNotReady` (also when this very client finalized it and the answer was lost,
 * or a second replica got there first), so every step is decided on the order as the server has
 * it NOW (read again after a refused step), never on what the client remembers.
 *
 * Orders cannot be deleted and count against the account's rate limits (Let's Encrypt's pending
 * orders and duplicate certificate limits), so a name gets ONE order: found at the server by the
 * account's order list (the certificate's uid and the name), created with an idempotency key of
 * both (a create whose answer was lost, or a crash before the next step, finds or replays it),
 * and reused when the name comes back (its certificate still valid: no second issuance). An
 * order the server lost (a person, through the drift fault) is ordered again with a key chained
 * past it. The Certificate's status names the order and says Ready once its Secret holds the
 * certificate for its current name.
 *
 * The case's own oracle, `one-order-per-name`: at the end, the server holds at most one order per
 * certificate and name.
 *
 * Its buggy twin keeps the order in the Certificate's status only: no order in status, no key,
 * a new order. A create whose answer was lost, or a crash between the order and the status write,
 * orders the name again (the second order is what the twin then finalizes, and the first stays
 * pending at the server for good).
 */
export const CERTIFICATE = 'Certificate';
export const ACME_API = 'https://acme.example/v2';
const ACCOUNT = 'acct-1';

interface CertSpec {
  dnsName: string;
}
interface CertStatus {
  orderId?: string;
  dnsName?: string;
  ready?: boolean;
  observedGeneration?: number;
}
type Certificate = StoredObject<CertSpec, CertStatus>;
type OrderState = 'pending' | 'ready' | 'valid' | 'invalid';
interface Order {
  account: string;
  certificate: string;
  dnsName: string;
  /** The server's: the client never sets it. */
  state?: OrderState;
  certificatePem?: string;
}

const pemOf = (dnsName: string) => `-----BEGIN CERTIFICATE-----\nCN=${dnsName}\n-----END CERTIFICATE-----`;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** One step of the order, by the state the server gives it now; the order after it (read again). */
async function step(api: JsonApi, order: Remote<Order>): Promise<Remote<Order> | undefined> {
  try {
    if (order.state === 'pending' || order.state === undefined) await api.create('authorizations', { order: order.id });
    else if (order.state === 'ready') await api.create('finalizations', { order: order.id, csr: `CSR CN=${order.dnsName}` });
    else return order;
  } catch (err) {
    // refused because the order moved on meanwhile (a lost answer, another replica): look again
    if (!(err instanceof HttpError && err.status === 403)) throw err;
  }
  return api.get<Order>('orders', order.id);
}

function define(mistake: 'none' | 'status-memory') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const c: Certificate | undefined = await ctx.client.tryGet<CertSpec, CertStatus>(CERTIFICATE, ctx.key, { live: true });
    if (!c || c.metadata.deletionTimestamp !== undefined) return undefined;
    const api = jsonApi(ctx.fetch, ACME_API);
    const dnsName = c.spec.dnsName;
    let order: Remote<Order> | undefined;
    if (mistake === 'none') {
      // the server's list of this account's orders for this certificate and name
      const mine = (await api.list<Order>('orders', { account: ACCOUNT, certificate: c.metadata.uid, dnsName })).filter((o) => o.state !== 'invalid');
      order = mine[0] ?? (await createFresh<Order>(api, 'orders', { account: ACCOUNT, certificate: c.metadata.uid, dnsName }, `${c.metadata.uid}/${dnsName}`));
    } else {
      // BUG (status-memory): the order is what the status remembers; none remembered, a new one
      const known = c.status.orderId !== undefined && c.status.dnsName === dnsName ? await api.get<Order>('orders', c.status.orderId) : undefined;
      order = known ?? (await api.create<Order>('orders', { account: ACCOUNT, certificate: c.metadata.uid, dnsName }));
    }
    // record the order before walking it (the twin's memory; the correct one's report)
    if (c.status.orderId !== order.id || c.status.dnsName !== dnsName) {
      await writeStatus(ctx, c, { orderId: order.id, dnsName, ready: false, observedGeneration: c.metadata.generation });
      return undefined; // its event brings us back
    }
    for (let i = 0; i < 3 && order && order.state !== 'valid' && order.state !== 'invalid'; i++) order = await step(api, order);
    if (!order) return { requeueAfter: 1_000 }; // gone at the server: the next pass orders again
    if (order.state === 'invalid') return { requeueAfter: 5_000 };
    if (order.state !== 'valid' || typeof order.certificatePem !== 'string') return { requeueAfter: 1_000 };
    await apply(ctx, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${c.metadata.name}-tls`, namespace: c.metadata.namespace, ownerReferences: [controllerRef(c)] },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(order.certificatePem), 'tls.key': b64(`key for ${dnsName}`) },
    });
    await writeStatus(ctx, c, { orderId: order.id, dnsName, ready: true, observedGeneration: c.metadata.generation });
    return undefined;
  }
  return defineController({ name: 'acme-issuer', for: CERTIFICATE, owns: ['Secret'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const acmeIssuer = define('none');

/**
 * The ACME server of one run: orders in a fake REST service, their `state` and certificate kept
 * by the server beside the stored bodies and merged into every answer (set only by the server's
 * steps: drift cannot edit them, as no console edits an ACME order's state), authorizations
 * and finalizations served beside it. Authorizing a pending order validates its challenge at once
 * (`ready`); authorizing a later one is a no-op; finalizing anything but a `ready` order is 403.
 */
function acmeServer() {
  const store = fakeRestService({ baseUrl: ACME_API, name: 'acme', collections: ['orders'], idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20, immutableFields: ['account', 'certificate', 'dnsName'] });
  /** The server's own fields per order (state, certificate): beside the stored body, merged into every answer. */
  const server = new Map<string, { state: OrderState; certificatePem?: string }>();
  const overlay = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const id = (v as { id?: unknown }).id;
    return typeof id === 'string' ? { ...(v as object), ...(server.get(id) ?? { state: 'pending' }) } : v;
  };
  const orders = withHandler(store, (route, method, bodyText, key) => {
    const reply = store.handle(route, method, bodyText, key);
    if (reply.status < 200 || reply.status >= 300 || reply.text === null) return reply;
    const body = JSON.parse(reply.text) as unknown;
    return { ...reply, text: JSON.stringify(Array.isArray(body) ? body.map(overlay) : overlay(body)) };
  });
  const orderOf = async (request: Request) => {
    const body = (await request.json()) as { order?: unknown };
    return typeof body.order === 'string' ? { id: body.order, order: store.get('orders', body.order) } : undefined;
  };
  const handlers = [
    http.post(`${ACME_API}/authorizations`, async ({ request }) => {
      const o = await orderOf(request);
      if (!o?.order) return HttpResponse.json({ type: 'urn:ietf:params:acme:error:malformed', detail: 'no such order' }, { status: 404 });
      if ((server.get(o.id)?.state ?? 'pending') === 'pending') server.set(o.id, { state: 'ready' });
      return HttpResponse.json({ order: o.id, status: 'valid' });
    }),
    http.post(`${ACME_API}/finalizations`, async ({ request }) => {
      const o = await orderOf(request);
      if (!o?.order) return HttpResponse.json({ type: 'urn:ietf:params:acme:error:malformed', detail: 'no such order' }, { status: 404 });
      const state = server.get(o.id)?.state ?? 'pending';
      if (state !== 'ready') return HttpResponse.json({ type: 'urn:ietf:params:acme:error:orderNotReady', detail: `order is ${state}` }, { status: 403 });
      server.set(o.id, { state: 'valid', certificatePem: pemOf(String(o.order['dnsName'])) });
      return HttpResponse.json({ order: o.id, status: 'valid' });
    }),
  ];
  return { orders, handlers };
}

/** At the end, at most one order per certificate and name at the server. */
export const oneOrderPerName = defineProperty<Record<string, never>>({
  name: 'one-order-per-name',
  description: 'a certificate orders each DNS name once (orders cannot be deleted and count against the rate limits)',
  defaults: {},
  judge: (run: RunRecord): Verdict => {
    for (const svc of readDownstream(run.downstream)) {
      const seen = new Map<string, string>();
      for (const r of svc.resources) {
        if (r.collection !== 'orders') continue;
        const k = `${String(r.body['certificate'])} ${String(r.body['dnsName'])}`;
        const first = seen.get(k);
        if (first === undefined) {
          seen.set(k, r.id);
          continue;
        }
        return {
          ok: false,
          summary: `two orders for ${String(r.body['dnsName'])} of one certificate at the ACME server: ${first} and ${r.id}`,
          explanation: `The ACME server holds orders ${first} and ${r.id}, both for ${String(r.body['dnsName'])} and certificate uid ${String(r.body['certificate'])}. Orders cannot be deleted and count against the account's rate limits: find the order at the server (the account's order list) and create it with an idempotency key, instead of trusting a status written after the create.`,
          evidence: { first, second: r.id, dnsName: String(r.body['dnsName']) },
        };
      }
    }
    return { ok: true };
  },
});

/** Converged: every Certificate's Secret holds the certificate for its current name, and its status says Ready for its generation. */
export function issued(view: WorldView): true | string {
  for (const c of view.list(CERTIFICATE) as unknown as Certificate[]) {
    if (c.metadata.deletionTimestamp !== undefined) continue;
    const key = `${c.metadata.namespace ?? ''}/${c.metadata.name}`;
    const secret = view.get('Secret', `${c.metadata.namespace ?? ''}/${c.metadata.name}-tls`);
    const crt = (secret as unknown as { data?: Record<string, string> } | undefined)?.data?.['tls.crt'];
    if (crt !== b64(pemOf(c.spec.dnsName))) return `Certificate ${key}'s Secret does not hold a certificate for ${c.spec.dnsName}`;
    if (c.status.ready !== true || c.status.dnsName !== c.spec.dnsName || c.status.observedGeneration !== c.metadata.generation) return `Certificate ${key}'s status ${JSON.stringify(c.status)} is not Ready for ${c.spec.dnsName}`;
  }
  return true;
}

export const acmeOrder: FalsePositiveCase = {
  name: 'acme-order',
  description: 'an ACME client (cert-manager\'s order flow): one order per certificate and name, found at the server and created with an idempotency key, walked pending → ready → valid by the server\'s state (a refused, non-idempotent finalize is read again), the certificate copied into an owned TLS Secret',
  controllers: [acmeIssuer],
  options: {
    objects: { kind: CERTIFICATE, name: 'www', spec: [{ dnsName: 'www.example.com' }, { dnsName: 'shop.example.com' }] },
    downstream: () => {
      const { orders, handlers } = acmeServer();
      return { services: [orders], handlers, timeoutMs: 5_000 };
    },
  },
  // the id an order gets depends on how many were made before it in the run; and which orders exist
  // is history: orders cannot be deleted, and a name superseded before the controller saw it was
  // never ordered (a lost or late event, a slow controller), as a revision is never made for a spec
  // it never saw. same-end-state compares the cluster (the Secret holds the current name's
  // certificate, the status names its order) and the rest of the downstream, and leaves the
  // server's order log out as history; the log is held to one order per certificate and name
  // (one-order-per-name)
  properties: [oneOrderPerName(), convergence({ converged: issued }), ...endStateProperties('status.orderId').map((p) => (p.name === 'same-end-state' ? sameEndState({ ...p.options, history: [...DEFAULT_HISTORY, { kind: 'acme/orders' }] }) : p))],
  buggy: {
    controllers: [define('status-memory')],
    caughtBy: ['one-order-per-name', 'no-duplicate-side-effects'],
    why: 'it knows its order only from the Certificate\'s status and creates one without a key when none is recorded: a create whose answer was lost, or a crash before the status write, orders the name a second time',
  },
};
