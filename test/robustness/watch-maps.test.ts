import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineController, type WatchMapping } from '../../src/index.js';
import { scenario } from '../helpers/fixtures.js';
import { words } from './hostile.js';

const thing = { kind: 'Thing', metadata: { name: 'a', namespace: 'default' }, spec: {} };
const pod = { kind: 'Pod', metadata: { name: 'pod-0', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };

/**
 * Issue 17 item 13: a watch map that throws (at once, after sleeping, or by rejecting) fails the
 * run with a verdict naming it, like any broken contract, instead of aborting the whole check.
 */
const maps: { attack: string; map: WatchMapping['map']; says: RegExp }[] = [
  { attack: 'a map that throws', map: () => { throw new TypeError("Cannot read properties of undefined (reading 'owner')"); }, says: /the watch map of mapper for Pod threw TypeError: Cannot read properties of undefined \(reading 'owner'\) on the ADDED event of default\/pod-0/ },
  { attack: 'a map that rejects', map: () => Promise.reject(new Error('lookup failed')), says: /the watch map of mapper for Pod threw Error: lookup failed/ },
  { attack: 'a map that sleeps, then throws', map: async (_o, ctx) => { await ctx.clock.sleep(10); throw new Error('late'); }, says: /threw Error: late/ },
  { attack: 'a map that throws a plain object', map: () => { throw { reason: 'nope' }; }, says: /threw \{"reason":"nope"\}/ },
  { attack: 'a map that returns no list', map: (() => 'default/a') as unknown as WatchMapping['map'], says: /did not return a list of keys/ },
];

describe('watch maps that fail (item 13)', () => {
  for (const m of maps) {
    it(`${m.attack}: the check ends with the watch-maps verdict`, async () => {
      const c = defineController({
        name: 'mapper',
        for: 'Thing',
        resyncPeriodMs: 0,
        watches: [{ kind: 'Pod', map: m.map }],
        async reconcile(ctx) {
          const t = await ctx.client.tryGet('Thing', ctx.key);
          if (t && t.status['observedGeneration'] !== t.metadata.generation) await ctx.client.updateStatus({ ...t, status: { observedGeneration: t.metadata.generation } });
        },
      });
      // a fixed scenario (replayed first, as a corpus entry): a Thing, then a Pod the map sees
      const r = await check(c, { runs: 1, seed: 1, faults: [], corpus: { scenarios: [scenario({ controllers: [{ name: 'mapper' }], initialObjects: [thing], workload: [{ at: 100, type: 'create', object: pod }] })] } });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.property).toBe('watch-maps');
      expect(words(r)).toMatch(m.says);
    });
  }
});

/**
 * Red team rt47 H-1: the object a map is handed was the API server's own (the informer cache shares
 * stored objects). A map that mutated it, by accident (an in-place sort while hashing) or to forge a
 * status, changed stored state with no write, and every later live read served the forgery.
 */
describe("a watch map mutating what it is handed (rt47 H-1)", () => {
  it('changes neither the stored object nor what later reads see', async () => {
    let seenLive: unknown;
    const forger = defineController({
      name: 'forger',
      for: 'Thing',
      resyncPeriodMs: 1_000,
      watches: [{ kind: 'Pod', map: (p) => { (p.status as Record<string, unknown>)['forged'] = true; p.metadata.labels = { forged: 'yes' }; return []; } }],
      async reconcile(ctx) {
        const t = await ctx.client.tryGet('Thing', ctx.key);
        if (!t) return;
        const live = await ctx.client.tryGet('Pod', { namespace: 'default', name: 'pod-0' }, { live: true });
        if (live) seenLive = { status: live.status, labels: live.metadata.labels };
        else await ctx.client.create({ ...pod, spec: { containers: [{ name: 'c', image: 'x' }] } });
      },
    });
    const { simulate } = await import('../../src/index.js');
    const { run } = await simulate(scenario({ controllers: [{ name: 'forger' }], initialObjects: [thing], workload: [] }), { controllers: [forger] });
    const stored = run.finalObjects.find((o) => o.kind === 'Pod');
    expect(stored).toBeDefined();
    expect(stored?.status['forged']).toBeUndefined();
    expect(stored?.metadata.labels?.['forged']).toBeUndefined();
    expect(seenLive).toBeDefined();
    expect(JSON.stringify(seenLive)).not.toMatch(/forged/);
  });
});
