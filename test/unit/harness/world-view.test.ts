import { describe, expect, it } from 'vitest';
import { convergence } from '../../../properties/convergence.js';
import { safetyInvariants } from '../../../properties/safety-invariants.js';
import { dnsCorrect, dnsDownstream, dnsNoLookupBuggy, domain, DOMAIN } from '../../../examples/property-targets/dns.js';
import { simulate } from '../../../src/harness/simulate.js';
import type { Probe } from '../../../src/harness/property.js';
import type { WorldView } from '../../../src/harness/world.js';
import { flakyDownstream } from '../../../faults/flaky-downstream.js';
import { scenario } from '../../helpers/fixtures.js';

/** Records of one Domain. */
const recordsOf = (v: WorldView, name: string) => v.downstream('dns.example', 'records').filter((r) => r['owner'] === `default/${name}`);
/** "Exactly one DNS record per Domain": one line over the downstream's contents (a converged predicate). */
const oneRecordPerDomain = (v: WorldView) => v.list(DOMAIN).every((d) => recordsOf(v, d.metadata.name).length === 1);
/** The safety side: never two. */
const atMostOne = (v: WorldView) => v.list(DOMAIN).every((d) => recordsOf(v, d.metadata.name).length <= 1);

const twoDomains = scenario({
  controllers: [{ name: 'dns' }],
  workload: [
    { at: 0, type: 'create', object: domain('a') },
    { at: 0, type: 'create', object: domain('b') },
  ],
});

describe('WorldView: predicates see the fake downstream services and the request log', () => {
  it('downstream(service, collection) holds the service contents at that moment; requests() the log so far', async () => {
    const seen: { t: number; records: number; requests: number; services: string[] }[] = [];
    const probe: Probe = {
      name: 'look',
      everyMs: 500,
      phases: ['faults', 'settle'],
      fn: (v) => {
        seen.push({ t: v.now(), records: v.downstream('dns.example', 'records').length, requests: v.requests().length, services: v.services() });
        return true;
      },
    };
    const { run } = await simulate(twoDomains, { controllers: [dnsCorrect], downstream: dnsDownstream, probes: [probe], tailMs: 0 });
    expect(seen[0]).toEqual({ t: 0, records: 0, requests: 0, services: ['dns.example'] });
    expect(seen.at(-1)!.records).toBe(2);
    expect(seen.at(-1)!.requests).toBeLessThanOrEqual(run.requests.length);
    expect(seen.at(-1)!.requests).toBeGreaterThan(0);
    // the log grows in order and matches the run's
    expect(seen.map((s) => s.requests)).toEqual([...seen.map((s) => s.requests)].sort((x, y) => x - y));
    expect(seen.every((s) => s.services.length === 1)).toBe(true);
  });

  it('an unknown service makes the predicate throw with the names there are (it counts as false, with the message)', async () => {
    const probe: Probe = { name: 'bad', everyMs: 10_000, phases: ['faults'], fn: (v) => v.downstream('dns', 'records').length === 0 };
    const { run } = await simulate(twoDomains, { controllers: [dnsCorrect], downstream: dnsDownstream, probes: [probe], tailMs: 0 });
    expect(run.probes['bad']![0]).toMatchObject({ ok: false, detail: expect.stringMatching(/view\.downstream\("dns"\): the run has no fake downstream service of that name \(its services: "dns\.example"\)/) });
  });

  it('"exactly one DNS record per Domain" is a one-line converged predicate (and "at most one" an invariant): caught on the buggy controller, holds on the correct one', async () => {
    const properties = [convergence({ converged: oneRecordPerDomain }), safetyInvariants({ invariants: { 'at most one record per domain': atMostOne } })];
    // the first POST is applied but its response is lost: the buggy controller creates again
    const lost = { ...twoDomains, faults: { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } }], background: [] }, options: { faultWindowMs: 5000, settleMs: 10_000 } };
    const judge = async (c: typeof dnsCorrect) => {
      const { run } = await simulate(lost, { controllers: [c], downstream: dnsDownstream, faults: [flakyDownstream], properties, tailMs: 0 });
      return properties.map((p) => p.judge(run, undefined));
    };
    const [converged, safe] = await judge(dnsNoLookupBuggy);
    expect(converged!.ok).toBe(false);
    expect(safe!.ok ? '' : safe!.summary).toMatch(/at most one record per domain/);
    expect((await judge(dnsCorrect)).map((v) => v.ok)).toEqual([true, true]);
  });

  it('the request log is there too: "no record is deleted while its Domain lives"', async () => {
    const noEarlyDelete = (v: WorldView) => v.requests().every((r) => r.method !== 'DELETE') || v.list(DOMAIN).length < 2 || v.list(DOMAIN).some((d) => d.metadata.deletionTimestamp !== undefined);
    const withDelete = { ...twoDomains, workload: [...twoDomains.workload, { at: 3000, type: 'delete' as const, kind: DOMAIN, key: 'default/a' }] };
    const prop = convergence();
    const invariant = safetyInvariants({ invariants: { 'no early delete': noEarlyDelete } });
    const { run } = await simulate(withDelete, { controllers: [dnsCorrect], downstream: dnsDownstream, properties: [invariant, prop], tailMs: 0 });
    expect(run.requests.some((r) => r.method === 'DELETE')).toBe(true);
    expect(invariant.judge(run, undefined).ok).toBe(true);
  });
});
