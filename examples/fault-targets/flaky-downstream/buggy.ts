import { defineController } from '../../../src/index.js';
import { ORDER, SHOP, type OrderSpec, type OrderStatus, type ShopOrder } from './shop.js';

/**
 * Buggy: places the external order with a plain POST and records its id. A failed call is
 * retried by the queue, which is right for a 503 and wrong for a request whose response was
 * lost after the shop applied it: the retry places a second order. And once `status.orderId`
 * is set it never looks at the shop again, so an order cancelled there stays cancelled.
 */
export const shopBuggy = defineController({
  name: 'shop-buggy',
  for: ORDER,
  async reconcile(ctx) {
    const o = await ctx.client.tryGet<OrderSpec, OrderStatus>(ORDER, ctx.key);
    if (!o || o.status.orderId !== undefined) return;
    const res = await ctx.fetch(`${SHOP}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ owner: ctx.key, item: o.spec.item }) });
    if (!res.ok) throw new Error(`shop answered ${res.status}`);
    const created = (await res.json()) as ShopOrder;
    await ctx.client.patchStatus(ORDER, ctx.key, { status: { orderId: created.id } });
  },
});
