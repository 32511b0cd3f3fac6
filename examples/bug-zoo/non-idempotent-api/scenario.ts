import { noDuplicateSideEffects } from '../../../properties/no-duplicate-side-effects.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyPurchaseOrder } from './buggy.js';
import { purchaseOrder } from './correct.js';
import { ORDER_KIND, SHOP_API } from './purchase-order.js';

export const nonIdempotentApi: BugZooEntry = {
  name: 'non-idempotent-api',
  family: 'anti-pattern',
  description: 'a PurchaseOrder controller retries a plain POST /orders after a lost response or a crash, and the shop ships twice',
  caughtBy: 'no-duplicate-side-effects',
  property: () => noDuplicateSideEffects(),
  buggy: [buggyPurchaseOrder],
  correct: [purchaseOrder],
  options: {
    objects: { kind: ORDER_KIND, name: 'widgets', spec: [{ sku: 'WIDGET-1', quantity: 2 }, { sku: 'WIDGET-1', quantity: 5 }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: SHOP_API, idempotencyKeyHeader: 'Idempotency-Key' })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks('status.orderId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'purchase-order' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: ORDER_KIND, metadata: { name: 'widgets', namespace: 'default' }, spec: { sku: 'WIDGET-1', quantity: 2 } } }],
    // the shop takes the first order, and the response never arrives
    faults: { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
