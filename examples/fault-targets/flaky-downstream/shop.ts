import { fakeRestService, type CreateDownstreamOptions, type DownstreamState, type FaultPlan, type RunRecord, type Scenario, type StoredObject } from '../../../src/index.js';

/**
 * The shop fixture: each `Order` object must have exactly one order in an external shop API
 * (`https://shop.example/orders`, a fake REST service that honours `Idempotency-Key`), with
 * the same item, its id recorded in `status.orderId`. Duplicate external orders are the classic
 * "non-idempotent API retried blindly" bug: the customer is charged twice.
 */
export const ORDER = 'Order';
export const SHOP = 'https://shop.example';

export interface OrderSpec {
  item: string;
}
export interface OrderStatus {
  orderId?: string;
}
/** What the shop stores. */
export interface ShopOrder {
  id: string;
  owner: string;
  item: string;
}

/** A fresh shop per run (fake services hold state); the client gives up on a hung call after 5 s. */
export function shopDownstream(): CreateDownstreamOptions {
  return { services: [fakeRestService({ baseUrl: SHOP, name: 'shop', idempotencyKeyHeader: 'Idempotency-Key', collections: ['orders'] })], timeoutMs: 5000 };
}

/** Two Orders, created at t=100 and t=200. */
export function shopScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  const order = (name: string, item: string) => ({ kind: ORDER, metadata: { name, namespace: 'default' }, spec: { item } });
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: order('alice', 'book') },
      { at: 200, type: 'create', object: order('bob', 'lamp') },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  };
}

/** Healthy when each Order has exactly one external order, with its item, recorded in status. */
export function judgeShop(run: RunRecord): true | string {
  const state = run.downstream as DownstreamState | null;
  const shop = state?.services.find((s) => s.name === 'shop');
  if (!shop) return 'the shop service is missing from the run';
  const orders = shop.resources.map((r) => r.body as ShopOrder);
  for (const o of run.finalObjects.filter((x) => x.kind === ORDER) as unknown as StoredObject<OrderSpec, OrderStatus>[]) {
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    const mine = orders.filter((x) => x.owner === key);
    if (mine.length !== 1) return `Order ${key} has ${mine.length} external orders (ids ${mine.map((x) => x.id).join(', ') || 'none'}), expected exactly 1`;
    if (mine[0]!.item !== o.spec.item) return `external order ${mine[0]!.id} of ${key} is for ${mine[0]!.item}, the Order wants ${o.spec.item}`;
    if (o.status.orderId !== mine[0]!.id) return `Order ${key} records order ${String(o.status.orderId)}, the shop has ${mine[0]!.id}`;
  }
  return true;
}
