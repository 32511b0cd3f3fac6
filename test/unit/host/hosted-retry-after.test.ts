import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineProgram, fakeRestService, simulate, type Scenario } from '../../../src/index.js';
import { honoursRetryAfter } from '../../../properties/honours-retry-after.js';

/**
 * honours-retry-after excuses a process that crashed between a 429 and its next request (a
 * restart forgets what it was told). It matches the crash to the requests by actor, so a hosted
 * program's global `fetch` calls must be recorded as its replica's: recorded as "unknown" they
 * were held to what the dead incarnation heard, a false alarm on a correct program.
 */
const entry = fileURLToPath(new URL('./programs/retry-after.ts', import.meta.url));
const program = defineProgram({ entry, for: 'ConfigMap', name: 'poller' });
const downstream = () => ({ services: [fakeRestService({ baseUrl: 'https://metering.example' })] });
const scenario = (events: Scenario['faults']['events']): Scenario => ({
  seed: 1,
  controllers: [{ name: 'poller' }],
  initialObjects: [],
  workload: [],
  // the first poll (t=1 s) is answered 429 Retry-After: 30; the process crashes at t=2.5 s
  faults: { events, background: [] },
  options: { faultWindowMs: 5_000, settleMs: 5_000 },
});
const throttled = { kind: 'flaky-downstream', nth: 0, params: { fail: 'status', status: 429, retryAfterSeconds: 30 } };

describe('honours-retry-after on a hosted program', () => {
  it('excuses the poll of a restarted incarnation (it has nothing in memory)', async () => {
    const { run } = await simulate(scenario([throttled, { kind: 'crash-restart', at: 2_500 }]), { controllers: [program], downstream, tailMs: 0 });
    expect(run.escapes).toEqual([]);
    const polls = run.trace.filter((e) => e.type === 'downstream:request');
    expect(polls.length).toBeGreaterThan(1);
    expect(run.trace.some((e) => e.type === 'controller:crash')).toBe(true);
    expect(honoursRetryAfter().judge(run, undefined)).toEqual({ ok: true });
  });

  it("fails its buggy twin, which polls again before the Retry-After time without crashing", async () => {
    const ignoring = defineProgram({ entry: fileURLToPath(new URL('./programs/retry-after-ignored.ts', import.meta.url)), for: 'ConfigMap', name: 'poller' });
    const { run } = await simulate(scenario([throttled]), { controllers: [ignoring], downstream, tailMs: 0 });
    const verdict = honoursRetryAfter().judge(run, undefined);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.explanation).toMatch(/controller:poller|poller/);
  });
});
