import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { beforePlacing, ORDER_KIND, ORDER_RESYNC_MS, recordOrder, shopApi, type PurchaseOrderSpec, type PurchaseOrderStatus, type ShopOrder } from './purchase-order.js';

/**
 * BUG (non-idempotent external API retried blindly): places the order with a plain POST and
 * then records its id. When the response is lost, the status write fails, or the process dies
 * in between, the retry sees no order id and POSTs again: the shop ships twice.
 */
export const buggyPurchaseOrder = defineController({
  name: 'purchase-order',
  for: ORDER_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const po = await latest<PurchaseOrderSpec, PurchaseOrderStatus>(ctx, ORDER_KIND);
    if (!po) return;
    const toPlace = await beforePlacing(ctx, po);
    if (toPlace) {
      const placed = await shopApi(ctx).create<ShopOrder>('orders', toPlace.order);
      await recordOrder(ctx, po, placed.id);
    }
    return po.metadata.deletionTimestamp === undefined ? { requeueAfter: ORDER_RESYNC_MS } : undefined;
  },
});
