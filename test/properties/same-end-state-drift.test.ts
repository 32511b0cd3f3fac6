import { describe, expect, it } from 'vitest';
import { sameEndState } from '../../properties/same-end-state.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import { drift } from '../../faults/drift.js';
import { defineController, fakeRestService, type ControllerDefinition, type FaultPlan, type JsonObject } from '../../src/index.js';
import { APP, ownerRefTo, podSpecFor, singleChildScenario, type AppSpec, type AppStatus } from '../../examples/fault-targets/single-child/app.js';
import { ORDER, SHOP, shopDownstream, shopScenario } from '../../examples/fault-targets/flaky-downstream/shop.js';
import { judgeScenario } from '../helpers/property-laws.js';

/** Keeps its Pod's image in step with the App's spec, but compares with what it last wrote (status.image), not with the Pod. */
const imageFromStatus = defineController({
  name: 'image-from-status',
  for: APP,
  owns: ['Pod'],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<AppSpec, AppStatus & { image?: string }>(APP, ctx.key);
    if (!app) return;
    const name = `${app.metadata.name}-pod`;
    if (app.status.child === undefined) {
      await ctx.client.create({ kind: 'Pod', metadata: { name, namespace: 'default', ownerReferences: [ownerRefTo(app)] }, spec: podSpecFor(app.spec.image) as unknown as JsonObject });
      await ctx.client.patchStatus(APP, ctx.key, { status: { child: name, image: app.spec.image, observedGeneration: app.metadata.generation } });
    } else if (app.status.image !== app.spec.image) {
      await ctx.client.patch('Pod', `default/${name}`, { spec: podSpecFor(app.spec.image) as unknown as JsonObject });
      await ctx.client.patchStatus(APP, ctx.key, { status: { image: app.spec.image, observedGeneration: app.metadata.generation } });
    }
  },
});

/** Keeps the shop's item in step with the Order, but compares with what it last sent (status.item), never with the shop. */
const itemFromStatus = defineController({
  name: 'item-from-status',
  for: ORDER,
  async reconcile(ctx) {
    const o = await ctx.client.tryGet<{ item: string }, { orderId?: string; item?: string }>(ORDER, ctx.key);
    if (!o) return;
    const send = (url: string, method: string, body: unknown) => ctx.fetch(url, { method, headers: { 'content-type': 'application/json', 'idempotency-key': o.metadata.uid }, body: JSON.stringify(body) });
    if (o.status.orderId === undefined) {
      const res = await send(`${SHOP}/orders`, 'POST', { owner: ctx.key, item: o.spec.item });
      if (!res.ok) throw new Error(`shop answered ${res.status}`);
      const { id } = (await res.json()) as { id: string };
      await ctx.client.patchStatus(ORDER, ctx.key, { status: { orderId: id, item: o.spec.item } });
    } else if (o.status.item !== o.spec.item) {
      const res = await send(`${SHOP}/orders/${o.status.orderId}`, 'PATCH', { item: o.spec.item });
      if (!res.ok) throw new Error(`shop answered ${res.status}`);
      await ctx.client.patchStatus(ORDER, ctx.key, { status: { item: o.spec.item } });
    }
  },
});

// Drift is survived by level-triggered repair (SPEC §3). same-end-state used to skip every run
// with drift, so a controller that never repaired anything passed every default property.
const plan = (params: Record<string, string | number | boolean>, at = 1000): FaultPlan => ({ events: [{ kind: 'drift', at, params }], background: [] });
const pods = (controller: { name: string }, p: FaultPlan) => judgeScenario(sameEndState(), singleChildScenario(controller.name, p), { controllers: [singleChildCorrect, singleChildBuggy].filter((c) => c.name === controller.name), options: { faults: [drift] } });
const shop = (controller: { name: string }, p: FaultPlan) =>
  judgeScenario(sameEndState(), shopScenario(controller.name, p), { controllers: [shopCorrect, shopBuggy].filter((c) => c.name === controller.name), options: { faults: [drift], downstream: shopDownstream } });

describe('same-end-state judges what drift changed', () => {
  it('a Pod drift deleted that the controller never recreates (it trusts status.child) fails; the level-triggered controller passes', async () => {
    const buggy = await pods(singleChildBuggy, plan({ action: 'delete', pick: 0 }));
    expect(buggy.verdict.ok).toBe(false);
    if (buggy.verdict.ok) return;
    expect(buggy.verdict.summary).toMatch(/^drift was never repaired: deleted Pod default\/(web|api)-\S+, still gone at the end/);
    expect(buggy.verdict.explanation).toMatch(/never put it back|no controller reconciled after the drift/);
    const correct = await pods(singleChildCorrect, plan({ action: 'delete', pick: 0 }));
    expect(correct.verdict).toMatchObject({ ok: true, stats: { judged: 'what drift changed' } });
  });

  it('kubectl set image on a Pod whose image the controller maintains from its own bookkeeping fails with the field, both values and when; repaired, it passes', async () => {
    // the user moves web to nginx:2 before the drift: both controllers patch the Pod's image (they maintain it)
    const s = (c: string) => {
      const base = singleChildScenario(c, plan({ action: 'image', pick: 1 }));
      return { ...base, workload: [...base.workload, { at: 500, type: 'update' as const, kind: APP, key: 'default/web', spec: { image: 'nginx:2' } }] };
    };
    const judge = (c: ControllerDefinition) => judgeScenario(sameEndState(), s(c.name), { controllers: [c], options: { faults: [drift] } });
    const buggy = await judge(imageFromStatus);
    expect(buggy.verdict.ok).toBe(false);
    if (buggy.verdict.ok) return;
    expect(buggy.verdict.summary).toMatch(/set the image of \(kubectl set image\) Pod default\/web-pod, spec\.containers\[0\]\.image still as drift left it/);
    expect(buggy.verdict.explanation).toMatch(/at t=1\.0 s drift set the image .* spec\.containers\[0\]\.image still held "nginx:2-drifted" \(the fault-free run ends with "nginx:2"\)/);
    expect((await judge(singleChildCorrect)).verdict.ok).toBe(true);
  });

  it('a field the controller set at creation only is its design to leave (a generated password a person rotates): not judged', async () => {
    // the buggy single-child controller never writes its Pod after creating it: no evidence it maintains the image
    const { verdict, run } = await pods(singleChildBuggy, plan({ action: 'image', pick: 1 }));
    expect(run.trace.some((e) => e.type === 'fault:inject' && e['action'] === 'image')).toBe(true);
    expect(verdict).toMatchObject({ ok: true, stats: { judged: 'what drift changed' } });
  });

  it('a label of a person\'s own that stays is no mark (nothing the controller wrote was changed)', async () => {
    for (const c of [singleChildCorrect, singleChildBuggy]) {
      const { verdict, run } = await pods(c, plan({ action: 'label', pick: 0 }));
      expect(run.trace.some((e) => e.type === 'fault:inject')).toBe(true);
      expect(verdict.ok).toBe(true);
    }
  });

  it('an external order cancelled in the shop: never re-placed by the controller that trusts status.orderId, re-placed by the one that re-checks', async () => {
    const del = plan({ action: 'delete', pick: 0, external: true }, 3000);
    const buggy = await shop(shopBuggy, del);
    expect(buggy.verdict.ok).toBe(false);
    if (buggy.verdict.ok) return;
    expect(buggy.verdict.summary).toMatch(/^drift was never repaired: deleted the shop resource \S+ in orders, still gone at the end/);
    expect((await shop(shopCorrect, del)).verdict.ok).toBe(true);
  });

  it('madeOnce: an external collection whose resources hold a moment\'s content (a point-in-time snapshot) is not judged when drift deletes one; other collections still are', async () => {
    const del = plan({ action: 'delete', pick: 0, external: true }, 3000);
    const judge = (madeOnce: string[]) => judgeScenario(sameEndState({ madeOnce }), shopScenario(shopBuggy.name, del), { controllers: [shopBuggy], options: { faults: [drift], downstream: shopDownstream } });
    expect((await judge(['shop/orders'])).verdict.ok).toBe(true);
    expect((await judge(['shop'])).verdict.ok).toBe(true);
    const other = await judge(['shop/refunds']);
    expect(other.verdict.ok ? 'passed' : other.verdict.summary).toMatch(/^drift was never repaired: deleted the shop resource \S+ in orders/);
  });

  it("an order another team placed before the run, cancelled in the shop: not the controllers' to place again (not judged); the same drift on the controller's own order still fails", async () => {
    // found stop 35 (corpus record-gc): drift deleted another cluster's DNS record and the oracle demanded it back
    const withForeign = () => ({ services: [fakeRestService({ baseUrl: SHOP, name: 'shop', idempotencyKeyHeader: 'Idempotency-Key', collections: ['orders'], resources: { orders: [{ owner: 'team-b/lunch', item: 'soup' }] } })], timeoutMs: 5000 });
    const judge = (pick: number) => judgeScenario(sameEndState(), shopScenario(shopBuggy.name, plan({ action: 'delete', pick, external: true }, 3000)), { controllers: [shopBuggy], options: { faults: [drift], downstream: withForeign } });
    const foreign = await judge(0);
    expect(foreign.run.trace.find((e) => e.type === 'fault:inject' && e['kind'] === 'drift')?.['id']).toBe('1');
    expect(foreign.verdict.ok).toBe(true);
    const own = await judge(1);
    expect(own.run.trace.find((e) => e.type === 'fault:inject' && e['kind'] === 'drift')?.['id']).not.toBe('1');
    expect(own.verdict.ok ? 'passed' : own.verdict.summary).toMatch(/^drift was never repaired: deleted the shop resource \S+ in orders, still gone at the end/);
  });

  it('an external field the controller never changes after creating the resource is not judged (a console rename of what it names once)', async () => {
    // shopBuggy creates its order and never PATCHes it: nothing says it maintains the item
    const { verdict, run } = await shop(shopBuggy, plan({ action: 'modify', pick: 1, external: true }, 3000));
    expect(run.trace.some((e) => e.type === 'fault:inject' && e['external'] === true)).toBe(true);
    expect(verdict).toMatchObject({ ok: true, stats: { judged: 'what drift changed' } });
  });

  it('an external field the controller maintains from its own bookkeeping, edited in a console, fails with the field and both values; re-checked from the shop, it passes', async () => {
    // alice moves her order to a pen before the drift: both controllers PATCH the shop's item (they maintain it)
    const s = (c: string) => {
      const base = shopScenario(c, plan({ action: 'modify', pick: 0, external: true }, 3000));
      return { ...base, workload: [...base.workload, { at: 1000, type: 'update' as const, kind: ORDER, key: 'default/alice', spec: { item: 'pen' } }, { at: 1000, type: 'update' as const, kind: ORDER, key: 'default/bob', spec: { item: 'desk' } }] };
    };
    const judge = (c: ControllerDefinition) => judgeScenario(sameEndState(), s(c.name), { controllers: [c], options: { faults: [drift], downstream: shopDownstream } });
    const buggy = await judge(itemFromStatus);
    expect(buggy.run.trace.some((e) => e.type === 'fault:inject' && e['external'] === true)).toBe(true);
    expect(buggy.verdict.ok).toBe(false);
    if (buggy.verdict.ok) return;
    expect(buggy.verdict.summary).toMatch(/^drift was never repaired: edited the shop resource \d+ in orders, item still as drift left it/);
    expect(buggy.verdict.explanation).toMatch(/item still held "(pen|desk)-drifted" \(the fault-free run ends with "(pen|desk)"\)/);
    expect((await judge(shopCorrect)).verdict).toMatchObject({ ok: true, stats: { judged: 'what drift changed' } });
  });

  it('a deleted Job ran to completion: a correct controller need not make it again (not judged)', async () => {
    const oneShot = defineController({
      name: 'one-shot',
      for: APP,
      owns: ['Job'],
      async reconcile(ctx) {
        const app = await ctx.client.tryGet<AppSpec, AppStatus & { ran?: boolean }>(APP, ctx.key);
        if (!app || app.status.ran) return;
        await ctx.client.create({ kind: 'Job', metadata: { name: `${app.metadata.name}-init`, namespace: 'default', ownerReferences: [ownerRefTo(app)] }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'init', image: app.spec.image }] } } } });
        await ctx.client.patchStatus(APP, ctx.key, { status: { ran: true } });
      },
    });
    const { verdict, run } = await judgeScenario(sameEndState(), singleChildScenario('one-shot', plan({ action: 'delete', pick: 0 })), { controllers: [oneShot], options: { faults: [drift] } });
    expect(run.trace.some((e) => e.type === 'fault:inject' && e['objectKind'] === 'Job')).toBe(true);
    expect(verdict.ok).toBe(true);
  });

  it('a controller whose periodic re-check is longer than the run left after the drift is not judged (repair after the run is not "never")', async () => {
    // the correct shop controller, but it looks at the shop at most every 10 minutes per Order (its own
    // memory): the cancelled order comes back after the run, not never
    const memory = new WeakMap<object, Map<string, number>>(); // per process: a restart forgets
    const slow = defineController({
      name: 'shop-slow',
      for: ORDER,
      reconcile: async (ctx) => {
        let checkedAt = memory.get(ctx.client);
        if (!checkedAt) memory.set(ctx.client, (checkedAt = new Map()));
        const last = checkedAt.get(ctx.key);
        if (last !== undefined && ctx.clock.now() - last < 600_000) return { requeueAfter: 600_000 - (ctx.clock.now() - last) };
        checkedAt.set(ctx.key, ctx.clock.now());
        await shopCorrect.reconcile(ctx);
        return { requeueAfter: 600_000 };
      },
    });
    const s = shopScenario('shop-slow', plan({ action: 'delete', pick: 0, external: true }, 3000));
    const { verdict } = await judgeScenario(sameEndState(), s, { controllers: [slow], options: { faults: [drift], downstream: shopDownstream } });
    expect(verdict).toMatchObject({ ok: true, stats: { periodicCheckDue: [expect.stringMatching(/^downstream shop\/orders.* \(its owner default\/(alice|bob) is re-checked every \d+ ms; drift left \d+ ms\)$/)] } });
  });

  it('judgeDrift: false skips drift runs as before', async () => {
    const { run, twin } = await pods(singleChildBuggy, plan({ action: 'delete', pick: 0 }));
    expect(sameEndState({ judgeDrift: false }).judge(run, twin)).toMatchObject({ ok: true, judged: false, why: expect.stringContaining('drift changed the world itself') });
  });
});
