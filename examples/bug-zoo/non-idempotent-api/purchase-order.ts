import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { jsonApi, type JsonApi } from '../shared/json-api.js';

/**
 * A `PurchaseOrder` places one order at an external shop API (`POST /orders` creates an order
 * each time it is called; the shop honours an `Idempotency-Key` header, Stripe-style). Shared
 * by the buggy and the correct controller; they differ only in how they place the order.
 */
export const ORDER_KIND = 'PurchaseOrder';
export const SHOP_API = 'https://shop.example/v1';
export const ORDER_FINALIZER = 'shop.example/cancel-order';
/** Re-check a placed order this often (someone may edit or cancel it at the shop). */
export const ORDER_RESYNC_MS = 10_000;

export interface PurchaseOrderSpec {
  sku: string;
  quantity: number;
}
export interface PurchaseOrderStatus {
  orderId?: string;
  observedGeneration?: number;
}
export type PurchaseOrder = StoredObject<PurchaseOrderSpec, PurchaseOrderStatus>;

export interface ShopOrder {
  /** uid of the PurchaseOrder. */
  owner: string;
  sku: string;
  quantity: number;
}

/** An order that must be placed: what to order, and which recorded order (if any) it replaces. */
export interface OrderToPlace {
  order: ShopOrder;
  /** The order status remembers, when the shop no longer has it. */
  replaces: string | undefined;
}

export function shopApi(ctx: ReconcileContext): JsonApi {
  return jsonApi(ctx.fetch, SHOP_API);
}

/**
 * Everything but placing the order: cancellation behind a finalizer, and keeping a placed order
 * in line with the spec. Returns the order to place, or undefined when there is nothing to place.
 */
export async function beforePlacing(ctx: ReconcileContext, po: PurchaseOrder): Promise<OrderToPlace | undefined> {
  const shop = shopApi(ctx);
  if (po.metadata.deletionTimestamp !== undefined) {
    if (!po.metadata.finalizers.includes(ORDER_FINALIZER)) return undefined;
    await shop.removeOwned('orders', po.metadata.uid);
    await removeFinalizer(ctx, po, ORDER_FINALIZER);
    return undefined;
  }
  if (await addFinalizer(ctx, po, ORDER_FINALIZER)) return undefined;
  const want: ShopOrder = { owner: po.metadata.uid, sku: po.spec.sku, quantity: po.spec.quantity };
  const placed = po.status.orderId !== undefined ? await shop.get<ShopOrder>('orders', po.status.orderId) : undefined;
  if (!placed) return { order: want, replaces: po.status.orderId };
  if (placed.sku !== want.sku || placed.quantity !== want.quantity) await shop.patch<ShopOrder>('orders', placed.id, { sku: want.sku, quantity: want.quantity });
  if (po.status.observedGeneration !== po.metadata.generation) {
    await ctx.client.updateStatus({ ...po, status: { ...po.status, observedGeneration: po.metadata.generation } });
  }
  return undefined;
}

/** Records the placed order in status. */
export async function recordOrder(ctx: ReconcileContext, po: PurchaseOrder, orderId: string): Promise<void> {
  await ctx.client.updateStatus({ ...po, status: { orderId, observedGeneration: po.metadata.generation } });
}
