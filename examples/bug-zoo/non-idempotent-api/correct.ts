import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { beforePlacing, ORDER_KIND, ORDER_RESYNC_MS, recordOrder, shopApi, type PurchaseOrderSpec, type PurchaseOrderStatus, type ShopOrder } from './purchase-order.js';

/**
 * Fixed: every attempt to place an order carries the same idempotency key (the object's uid,
 * plus the id of the lost order it replaces, if any), so a retry after any interruption gets the
 * first order back instead of placing another.
 */
export const purchaseOrder = defineController({
  name: 'purchase-order',
  for: ORDER_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const po = await latest<PurchaseOrderSpec, PurchaseOrderStatus>(ctx, ORDER_KIND);
    if (!po) return;
    const toPlace = await beforePlacing(ctx, po);
    if (toPlace) {
      // one key per order to place: the first one, or the replacement of an order the shop lost
      const key = `${po.metadata.uid}/${toPlace.replaces ?? 'first'}`;
      const placed = await shopApi(ctx).create<ShopOrder>('orders', toPlace.order, { idempotencyKey: key });
      await recordOrder(ctx, po, placed.id);
    }
    return po.metadata.deletionTimestamp === undefined ? { requeueAfter: ORDER_RESYNC_MS } : undefined;
  },
});
