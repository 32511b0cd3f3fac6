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
});
