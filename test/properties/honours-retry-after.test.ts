import { describe, expect, it } from 'vitest';
import { honoursRetryAfter } from '../../properties/honours-retry-after.js';
import { METER, meterSync, meterSyncController, meterSyncIgnoringRetryAfter } from '../../examples/false-positives/meter-sync.js';
import { allProperties, defaultProperties, properties } from '../../properties/index.js';
import type { RunRecord, Scenario } from '../../src/index.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

// the metering API answers the second call 429 with Retry-After: 2 (seconds)
const throttled = (extra: Scenario['faults']['events'] = []): Scenario['faults'] => ({ events: [{ kind: 'flaky-downstream', nth: 1, params: { fail: 'status', status: 429, retryAfterSeconds: 2 } }, ...extra], background: [] });
const meters = (faults: Scenario['faults']): Scenario => ({
  seed: 3,
  controllers: [{ name: 'meter-sync' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { kind: METER, metadata: { name: 'a', namespace: 'default' }, spec: { customer: 'acme', units: 100 } } },
    { at: 0, type: 'create', object: { kind: METER, metadata: { name: 'b', namespace: 'default' }, spec: { customer: 'globex', units: 5 } } },
  ],
  faults,
  options: { faultWindowMs: 10_000, settleMs: 20_000 },
});
const options = { downstream: meterSync.options.downstream! };

propertyLaws({
  property: honoursRetryAfter(),
  buggy: { controllers: [meterSyncIgnoringRetryAfter], scenario: meters(throttled()), options },
  correct: {
    controllers: [meterSyncController],
    options,
    scenarios: [
      { name: 'one 429 with Retry-After', scenario: meters(throttled()) },
      { name: 'fault-free', scenario: meters({ events: [], background: [] }) },
      { name: '429s and 503s with Retry-After on 30% of calls', scenario: meters({ events: [], background: [{ kind: 'flaky-downstream', rate: 0.3, params: { fail: 'status', status: 429, retryAfterSeconds: 1 } }] }) },
    ],
  },
  explains: [/said Retry-After: 2 \(not before t=/, /sent (GET|POST) https:\/\/metering\.example\/v1\/meters\S* at t=\S+ s, \S+ s before then, from a reconcile of default\/(a|b)/, 'the queue\'s exponential backoff starts at 5 ms and ignores it'],
});

describe('honoursRetryAfter', () => {
  it('is opt-in: in the properties namespace, not among the defaults', () => {
    expect(properties.honoursRetryAfter().name).toBe('honours-retry-after');
    expect(allProperties.map((p) => p.propertyName)).not.toContain('honours-retry-after');
    expect(defaultProperties().map((p) => p.name)).not.toContain('honours-retry-after');
  });

  it('holds the whole API for the process, not just the call answered (scope origin); scope endpoint holds only that method and path', async () => {
    const { run } = await judgeScenario(honoursRetryAfter(), meters(throttled()), { controllers: [meterSyncIgnoringRetryAfter], options });
    expect(expectFailure(honoursRetryAfter().judge(run, undefined)).summary).toMatch(/^Retry-After ignored: (GET|POST) https:\/\/metering\.example at t=\S+ s, \S+ s before the 2 s the 429 answer at t=\S+ s asked for$/);
    const endpoint = honoursRetryAfter({ scope: 'endpoint' }).judge(run, undefined);
    expect(endpoint.ok).toBe(false);
    expect(honoursRetryAfter({ statuses: [503] }).judge(run, undefined).ok).toBe(true);
  });

  it('a process that crashed since the answer is not held to it (a restart forgets); one that did not crash is', () => {
    const req = (start: number, end: number, status: number, retryAfter?: string) => ({ t: end, start, type: 'downstream:request', actor: 'controller:meter-sync/0', method: 'GET', url: 'https://metering.example/v1/meters', endpoint: 'GET https://metering.example/v1/meters', status, outcome: status === 200 ? 'ok' : 'error', mutating: false, ...(retryAfter !== undefined ? { responseHeaders: { 'retry-after': retryAfter } } : {}) });
    const crash = { t: 500, type: 'controller:crash', controller: 'meter-sync', replica: 0, reason: 'crash-restart' };
    const run = (trace: object[]) => ({ trace, timing: { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 5000 } }) as unknown as RunRecord;
    const told = req(0, 100, 429, '3');
    expect(honoursRetryAfter().judge(run([told, req(1500, 1530, 200)]), undefined).ok).toBe(false);
    expect(honoursRetryAfter().judge(run([told, crash, req(1500, 1530, 200)]), undefined).ok).toBe(true);
    // after the time named, or with a date instead of seconds (not judged): no failure
    expect(honoursRetryAfter().judge(run([told, req(3100, 3130, 200)]), undefined).ok).toBe(true);
    expect(honoursRetryAfter().judge(run([req(0, 100, 429, 'Wed, 21 Oct 2026 07:28:00 GMT'), req(150, 180, 200)]), undefined).ok).toBe(true);
  });

  it('rejects options that are not statuses or a scope', () => {
    expect(() => honoursRetryAfter({ statuses: ['429' as unknown as number] })).toThrow(/statuses must be an array of HTTP status codes/);
    expect(() => honoursRetryAfter({ scope: 'host' as never })).toThrow(/scope must be 'origin' or 'endpoint', got "host"/);
  });
});
