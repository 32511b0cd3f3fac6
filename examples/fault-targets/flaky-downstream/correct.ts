import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { ORDER, SHOP, type OrderSpec, type OrderStatus, type ShopOrder } from './shop.js';

/** Re-check the shop this often: nothing tells the controller when someone edits it there. */
const RECHECK_MS = 5000;

/**
 * Correct: looks the order up by owner before creating one, and creates with an
 * `Idempotency-Key` (the object's uid plus the order it replaces), so a retry after a lost
 * response replays the first answer instead of ordering twice. Every pass compares the shop
 * with the spec and repairs it, and it re-checks periodically for out-of-band changes.
 */
export const shopCorrect = defineController({
  name: 'shop-correct',
  for: ORDER,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const o = await ctx.client.tryGet<OrderSpec, OrderStatus>(ORDER, ctx.key);
    if (!o) return;
    const found = await ctx.fetch(`${SHOP}/orders?owner=${encodeURIComponent(ctx.key)}`);
    if (!found.ok) throw new Error(`shop answered ${found.status}`);
    let order = ((await found.json()) as ShopOrder[])[0];
    if (!order) {
      const res = await ctx.fetch(`${SHOP}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `${o.metadata.uid}/${o.status.orderId ?? 'first'}` },
        body: JSON.stringify({ owner: ctx.key, item: o.spec.item }),
      });
      if (!res.ok) throw new Error(`shop answered ${res.status}`);
      order = (await res.json()) as ShopOrder;
    } else if (order.item !== o.spec.item) {
      const res = await ctx.fetch(`${SHOP}/orders/${order.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ item: o.spec.item }) });
      if (!res.ok) throw new Error(`shop answered ${res.status}`);
    }
    if (o.status.orderId !== order.id) await ctx.client.patchStatus(ORDER, ctx.key, { status: { orderId: order.id } });
    return { requeueAfter: RECHECK_MS };
  },
});
