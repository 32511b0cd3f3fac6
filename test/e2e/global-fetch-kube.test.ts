import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineProgram, simulate, type Scenario } from '../../src/index.js';
import { apiError } from '../../faults/index.js';

/**
 * A hosted program that calls the simulated API server with Node's global `fetch` (undici) is
 * answered by the same in-process API as node's http: bearer-token routing to its replica (its
 * writes are its own), the wire record, watches, and the HTTP-layer faults.
 */
const entry = fileURLToPath(new URL('./fixtures/global-fetch-kube.ts', import.meta.url));

function scenario(over: Partial<Scenario> = {}): Scenario {
  return {
    seed: 5,
    controllers: [{ name: 'fetcher' }],
    initialObjects: [{ kind: 'ConfigMap', metadata: { name: 'seed', namespace: 'default' }, data: { k: 'v' } }],
    workload: [],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 2_000, settleMs: 2_000 },
    ...over,
  };
}

const wire = (trace: { type: string; [k: string]: unknown }[]) =>
  trace.filter((e) => e.type === 'http:request').map((e) => `${String(e['method'])} ${String(e['path']).replace(/resourceVersion=\d+/, 'resourceVersion=N')} ${String(e['status'])}${e['watch'] ? ' watch' : ''}`);

describe('global fetch to the simulated API server', () => {
  it('answers health checks and API calls made with the kubeconfig headers, as node http does', async () => {
    const program = defineProgram({ entry, for: 'ConfigMap', name: 'fetcher', args: ['basics'], requestLatencyMs: 5 });
    const { run } = await simulate(scenario(), { controllers: [program], tailMs: 0 });
    const exits = run.trace.filter((e) => e.type === 'process:exit');
    expect(exits).toEqual([]);
    const report = run.finalObjects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'report')?.['data'];
    expect(report).toEqual({
      anonymous: '200 ok',
      readyz: '200 ok',
      list: '200 application/json ConfigMapList seed={"k":"v"}',
      missing: '404 NotFound',
      create: '201 via-fetch',
      watch: '200 ADDED via-fetch',
      afterAbort: 'AbortError',
      anonymousLater: '200',
    });
    // the bearer token routes to the replica: its writes are its own
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'ConfigMap' && w.actor !== 'user').map((w) => `${w.actor} ${w.key}`)).toEqual(['controller:fetcher/0 default/via-fetch', 'controller:fetcher/0 default/report']);
    // on the wire of the process (a token-less request before any other is served, but no process is known to have sent it)
    expect(wire(run.trace)).toEqual([
      'GET /readyz 200',
      'GET /api/v1/namespaces/default/configmaps 200',
      'GET /api/v1/namespaces/default/configmaps/missing 404',
      'GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion=N 200 watch',
      'POST /api/v1/namespaces/default/configmaps 201',
      'GET /livez 200',
      'POST /api/v1/namespaces/default/configmaps 201',
    ]);
    const closes = run.trace.filter((e) => e.type === 'watch:close').map((e) => `${String(e['by'])} ${String(e['how'])} ${String(e['events'])}`);
    expect(closes).toEqual(['client abort 1']);
    // and replays exactly
    const again = await simulate(scenario(), { controllers: [program], tailMs: 0 });
    expect(again.run.hash).toBe(run.hash);
  });

  it('applies the HTTP-layer faults: a refused connection fails as undici does, an error status is answered', async () => {
    const program = defineProgram({ entry, for: 'ConfigMap', name: 'fetcher', args: ['faulted'] });
    const logs = async (status: number | string) => {
      const { run } = await simulate(scenario({ faults: { events: [], background: [{ kind: 'api-error', rate: 1, params: { status } }] } }), { controllers: [program], faults: [apiError], tailMs: 0 });
      return run.trace.filter((e) => e.type === 'log').map((e) => String(e['message']));
    };
    expect(await logs('refused')).toEqual(['GET /api/v1/namespaces/default/configmaps: TypeError: fetch failed (ECONNREFUSED)', 'GET /readyz: 200 ok']);
    expect(await logs('reset')).toEqual(['GET /api/v1/namespaces/default/configmaps: TypeError: fetch failed (ECONNRESET)', 'GET /readyz: 200 ok']);
    const [failed] = await logs(503);
    expect(failed).toMatch(/^GET \/api\/v1\/namespaces\/default\/configmaps: 503 \{"kind":"Status"/);
  });
});
