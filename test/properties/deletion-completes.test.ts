import { describe, expect, it } from 'vitest';
import { deletionCompletes } from '../../properties/deletion-completes.js';
import { DOMAIN, dnsCorrect, dnsDownstream, dnsLeakBuggy, dnsStuckBuggy, domain } from '../../examples/property-targets/dns.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['dns'], [
  { at: 0, type: 'create', object: domain('shop') },
  { at: 0, type: 'create', object: domain('blog') },
  { at: 2000, type: 'delete', kind: DOMAIN, key: 'default/shop' },
]);
const options = { downstream: dnsDownstream };

propertyLaws({
  property: deletionCompletes({ withinMs: 10_000 }),
  buggy: { controllers: [dnsStuckBuggy], scenario, options },
  correct: {
    controllers: [dnsCorrect],
    options,
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 3 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
      { name: 'DNS API failing until the settle phase', scenario: { ...scenario, faults: { events: [{ kind: 'test-outage', params: { match: 'dns.example' } }], background: [] } } },
    ],
  },
  explains: ['the user deleted Domain default/shop at t=2.0 s', 'Domain default/shop was marked for deletion at t=2.0 s and was still there at t=25.0 s', 'its finalizers were still ["dns.example/cleanup"]', 'no write ever removed a finalizer'],
});

describe('deletionCompletes', () => {
  it('finds external resources leaked by a finalizer removed too early', async () => {
    const v = expectFailure((await judgeScenario(deletionCompletes(), scenario, { controllers: [dnsLeakBuggy], options })).verdict);
    expect(v.summary).toBe('leaked external resource: dns.example/records/1 of deleted Domain default/shop');
    expect(v.explanation).toMatch(/Domain default\/shop was removed at t=2\.00\d s, but the fake downstream still held dns\.example\/records\/1 with owner default\/shop/);
    expect(v.explanation).toContain('no reconcile of default/shop sent a DELETE request');
  });
  it('can skip the external check', async () => {
    const { verdict } = await judgeScenario(deletionCompletes({ externalCleanup: false }), scenario, { controllers: [dnsLeakBuggy], options });
    expect(verdict.ok).toBe(true);
  });
});
