import { describe, expect, it } from 'vitest';
import { check } from '../../src/harness/check.js';
import { fakeRestService } from '../../src/downstream/fake-rest-service.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { convergence } from '../../properties/convergence.js';

const SHOP = 'https://shop.example';

/** Places one order per object, with an idempotency key, and records its id. */
const orders = defineController({
  name: 'orders',
  for: 'Order',
  async reconcile(ctx) {
    const o = await ctx.client.tryGet<{ sku: string }, { orderId?: string; observedGeneration?: number }>('Order', ctx.key);
    if (!o || o.status.observedGeneration === o.metadata.generation) return;
    const res = await ctx.fetch(`${SHOP}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'Idempotency-Key': o.metadata.uid }, body: JSON.stringify({ owner: ctx.key, sku: o.spec.sku }) });
    if (!res.ok) throw new Error(`shop answered ${res.status}`);
    const body = (await res.json()) as { id: string };
    await ctx.client.patchStatus('Order', ctx.key, { status: { orderId: body.id, observedGeneration: o.metadata.generation } });
  },
});

describe('check with a downstream', () => {
  it('builds a fresh downstream per run and reports peak downstream QPS', async () => {
    let built = 0;
    const r = await check(orders, {
      objects: { spec: [{ sku: 'A' }, { sku: 'B' }] },
      properties: [convergence()],
      downstream: () => (built++, { services: [fakeRestService({ baseUrl: SHOP, idempotencyKeyHeader: 'Idempotency-Key' })] }),
      runs: 10,
      seed: 1,
    });
    expect(r.ok).toBe(true);
    expect(built).toBeGreaterThanOrEqual(10);
    expect(r.stats.peakDownstreamQps).toBeGreaterThanOrEqual(1);
  });

  it('names the option when the downstream is not a factory', async () => {
    await expect(check(orders, { downstream: 42 as never })).rejects.toThrow(/^steadystate\.check: options\.downstream must be a factory/);
  });
});
