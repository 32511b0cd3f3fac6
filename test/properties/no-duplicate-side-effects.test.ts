import { describe, expect, it } from 'vitest';
import { noDuplicateSideEffects } from '../../properties/no-duplicate-side-effects.js';
import { dnsCorrect, dnsDownstream, dnsNoLookupBuggy, domain } from '../../examples/property-targets/dns.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import type { RunRecord } from '../../src/index.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

// the first downstream call (a POST) is applied, but its response is lost
const lost = { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } }], background: [] };
const scenario = widgetScenario(['dns'], [{ at: 0, type: 'create', object: domain('shop') }, { at: 0, type: 'create', object: domain('blog') }], { faults: lost });
const options = { downstream: dnsDownstream };

propertyLaws({
  property: noDuplicateSideEffects(),
  buggy: { controllers: [dnsNoLookupBuggy], scenario, options },
  correct: {
    controllers: [dnsCorrect],
    options,
    scenarios: [
      { name: 'a lost response', scenario },
      { name: 'fault-free', scenario: { ...scenario, faults: { events: [], background: [] } } },
      { name: 'a lost response (test fault)', scenario: { ...scenario, faults: { events: [{ kind: 'test-lost-response', nth: 0 }], background: [] } } },
      { name: 'a lost response and event loss', scenario: { ...scenario, faults: { events: lost.events, background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/dns\.example\/records held 2 resources with owner default\/(shop|blog)/, 'was applied but its response was lost (reset)', 'send an idempotency key, or look the resource up by owner before creating', /the downstream call POST https:\/\/dns\.example\/records at t=0\.\d+ s was applied but its response was lost \(flaky-downstream\)/],
});

describe('noDuplicateSideEffects', () => {
  it('reads the downstream state robustly', () => {
    const base = { trace: [], requests: [], timing: { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 1000 } } as unknown as RunRecord;
    const p = noDuplicateSideEffects();
    expect(p.judge({ ...base, downstream: null }, undefined).ok).toBe(true);
    expect(p.judge({ ...base, downstream: 'garbage' }, undefined).ok).toBe(true);
    const plain = [{ name: 'orders', resources: { orders: [{ id: '1', owner: 'a' }, { id: '2', owner: 'a' }] } }];
    expect(expectFailure(p.judge({ ...base, downstream: plain }, undefined)).summary).toBe('duplicate side effect: 2 resources in orders/orders for owner a');
    const nested = { services: [{ name: 'crm', resources: [{ id: '1', body: { id: '1', meta: { owner: 'x' } } }, { id: '2', body: { id: '2', meta: { owner: 'x' } } }] }] };
    expect(noDuplicateSideEffects({ ownerField: 'meta.owner' }).judge({ ...base, downstream: nested }, undefined).ok).toBe(false);
    expect(noDuplicateSideEffects({ ownerField: 'meta.owner', maxPerOwner: 2 }).judge({ ...base, downstream: nested }, undefined).ok).toBe(true);
  });

  it('counts copies, not distinct resources: an owner may hold a target per Pod, not two of one (ids and times aside)', () => {
    const base = { trace: [], requests: [], timing: { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 1000 } } as unknown as RunRecord;
    const p = noDuplicateSideEffects();
    const targets = (...pods: string[]) => [{ name: 'elb', resources: { targets: pods.map((pod, i) => ({ id: String(i + 1), owner: 'tgb-uid', pod, port: 8080, registeredAt: `2026-01-01T00:00:0${i}Z` })) } }];
    expect(p.judge({ ...base, downstream: targets('web-0', 'web-1', 'canary-0') }, undefined).ok).toBe(true);
    // the same Pod twice: a copy, whatever its id and time
    expect(expectFailure(p.judge({ ...base, downstream: targets('web-0', 'web-1', 'web-0') }, undefined)).summary).toBe('duplicate side effect: 2 resources in elb/targets for owner tgb-uid');
  });
});

describe('noDuplicateSideEffects: finding the owner without ownerField', () => {
  const base = { trace: [], requests: [], primaryKinds: ['Order'], timing: { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 1000 } } as unknown as RunRecord;
  const writes = [{ t: 0, actor: 'user', verb: 'create', kind: 'Order', key: 'default/o1', uid: 'uid-1', changed: [], noop: false }];
  const shop = (orders: Record<string, unknown>[]) => ({ services: [{ name: 'shop', resources: orders.map((b, i) => ({ id: String(i + 1), body: { id: String(i + 1), ...b } })) }] });

  it('groups by a field holding a primary object uid: four orders for one Order behind `ownerUid` (the old blind spot)', () => {
    const four = shop([1, 2, 3, 4].map(() => ({ ownerUid: 'uid-1', item: 'book' })));
    const v = expectFailure(noDuplicateSideEffects().judge({ ...base, writes, downstream: four } as RunRecord, undefined));
    expect(v.summary).toBe('duplicate side effect: 4 resources in shop for ownerUid uid-1');
    // one per owner passes
    expect(noDuplicateSideEffects().judge({ ...base, writes, downstream: shop([{ ownerUid: 'uid-1' }]) } as RunRecord, undefined).ok).toBe(true);
  });

  it('groups by a field holding namespace/name, or by an idempotency key', () => {
    expect(expectFailure(noDuplicateSideEffects().judge({ ...base, writes, downstream: shop([{ meta: { source: 'default/o1' } }, { meta: { source: 'default/o1' } }]) } as RunRecord, undefined)).summary).toContain('for meta.source default/o1');
    expect(expectFailure(noDuplicateSideEffects().judge({ ...base, writes, downstream: shop([{ idempotencyKey: 'k1' }, { idempotencyKey: 'k1' }]) } as RunRecord, undefined)).summary).toContain('for idempotencyKey k1');
  });

  it('says it could not judge when no resource names its owner (never a silent pass)', () => {
    const v = noDuplicateSideEffects().judge({ ...base, writes, downstream: shop([{ item: 'book' }, { item: 'book' }]) } as RunRecord, undefined);
    expect(v).toMatchObject({ ok: true, stats: { judged: false, reason: expect.stringContaining('could not judge: no resource of shop names its owner') } });
  });
});
