import { describe, expect, it } from 'vitest';
import { allFaults, defineProgram, simulate, type Scenario } from '../../src/index.js';
import { webAppController } from '../../examples/client-node/steadystate.js';

/**
 * Faults on the watch streams of a client-node controller (served over HTTP) end with the fault
 * window, and never lose what a real API server would still send: found by hunting the hosted
 * programs (`npx tsx bench/hunt-fp-rate.ts --only host:`), each a convergence failure of the
 * correct WebApp controller.
 */
const create = (at: number, replicas: number) => ({ at, type: 'create' as const, object: { kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas, image: 'nginx:1.27' } } });

function scenario(workload: Scenario['workload'], events: Scenario['faults']['events']): Scenario {
  return { seed: 1, controllers: [{ name: 'webapp' }], initialObjects: [], workload, faults: { events, background: [] } };
}

async function configMapWrites(s: Scenario): Promise<{ t: number; verb: string }[]> {
  const r = await simulate(s, { controllers: [webAppController], faults: allFaults });
  return r.run.writes.filter((w) => w.kind === 'ConfigMap' && w.key === 'default/web-web' && w.error === undefined && !w.noop).map((w) => ({ t: w.t, verb: w.verb }));
}

describe('hosted watch streams and the fault window', () => {
  it('a lag decided late in the window ends with it: the held events go out when the settle phase starts', async () => {
    // the WebApp is created 0.9 s before the window ends, its watch lags 8 versions for 30 s
    const writes = await configMapWrites(scenario([create(29_100, 1)], [{ kind: 'stale-snapshot', nth: 0, params: { versionsBehind: 8, forMs: 30_000, whole: true } }]));
    expect(writes[0]?.verb).toBe('create');
    // the settle phase starts at 30 s; before the fix the lag held the ADDED until t = 59.1 s
    expect(writes[0]!.t).toBeGreaterThanOrEqual(30_000);
    expect(writes[0]!.t).toBeLessThan(31_000);
  });

  it("a coalescing window dies with the incarnation whose watch fell behind: the restarted one's events are not skipped", async () => {
    // the watch goes quiet for 4.16 s at the finalizer's MODIFIED, and the controller crashes right after that write
    const writes = await configMapWrites(
      scenario(
        [create(21_300, 1), { at: 23_700, kind: 'WebApp', key: 'default/web', type: 'update', spec: { replicas: 3, image: 'nginx:1.27' } }],
        [
          { kind: 'coalescing', nth: 1, params: { ms: 4160 } },
          { kind: 'crash-restart', nth: 0, params: { point: 'after-write' } },
        ],
      ),
    );
    // before the fix the restarted replica never saw the update (its events were skipped, and the catch-up relist was the dead incarnation's)
    const update = writes.find((w) => w.verb !== 'create' && w.t >= 23_700);
    expect(update).toBeDefined();
    expect(update!.t).toBeLessThan(25_000);
  });
  it('a lost event is repaired at the window end even when the program is between watches then: its resume from an old version is answered 410 and it relists', async () => {
    // hunt host:ttl-expirer seed 9 run 183, shrunk: sandbox-0's ADDED is lost at 0.3 s; the watch is cut at 25.2 s and
    // the program re-watches 5 s later, from its last resourceVersion (client-node's informer does not list again).
    // The catch-up at 30 s found no open stream to expire; before the fix the resume skipped what was lost and
    // sandbox-0 never expired.
    const ttl = defineProgram({ entry: 'examples/operators/ttl-expirer/correct.ts', for: 'Sandbox', name: 'ttl-expirer', resources: [{ kind: 'Sandbox', plural: 'sandboxes', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ ttlSeconds: 3 }] });
    const sandbox = (at: number, name: string) => ({ at, type: 'create' as const, object: { kind: 'Sandbox', metadata: { name, namespace: 'default' }, spec: { ttlSeconds: 3 } } });
    const s: Scenario = {
      seed: 10,
      controllers: [{ name: 'ttl-expirer' }],
      initialObjects: [],
      workload: [sandbox(300, 'sandbox-0'), sandbox(22_200, 'sandbox-1')],
      faults: { events: [{ kind: 'watch-disconnect', nth: 3, params: { how: 'cut' } }, { kind: 'watch-event-loss', nth: 0 }], background: [] },
    };
    const r = await simulate(s, { controllers: [ttl], faults: allFaults });
    const expired = r.run.writes.filter((w) => w.kind === 'Sandbox' && w.error === undefined && !w.noop && w.changed.includes('status.phase')).map((w) => ({ key: w.key, t: w.t }));
    expect([...new Set(expired.map((w) => w.key))].sort()).toEqual(['default/sandbox-0', 'default/sandbox-1']);
    // sandbox-0 is repaired in the settle phase, right after the relist
    expect(expired.find((w) => w.key === 'default/sandbox-0')!.t).toBeGreaterThanOrEqual(30_000);
  });
});
