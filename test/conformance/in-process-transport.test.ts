import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { kubeController, simulate, type Scenario } from '../../src/index.js';
import { transportInstalled } from '../../src/kube-rest/in-process-transport.js';

/**
 * The in-process transport serves node's own https client as the simulated API server would:
 * a plain `https.request` / `https.get` (not only node-fetch, which client-node uses) gets a real
 * IncomingMessage, and the transport is gone when no simulation needs it.
 */
const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'raw' }],
  initialObjects: [{ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } }],
  workload: [],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 1_000, settleMs: 1_000 },
};

function get(server: string, token: string, path: string): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${server}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
  });
}

describe('the in-process transport', () => {
  it('answers node:https requests with the API, through a real IncomingMessage', async () => {
    const seen: { status: number; body: string; type: string | undefined }[] = [];
    const raw = kubeController({
      name: 'raw',
      for: 'ConfigMap',
      start: async (ctx) => {
        seen.push(await get(ctx.server, ctx.token, '/api/v1/namespaces/default/configmaps/a'));
        seen.push(await get(ctx.server, ctx.token, '/api/v1/namespaces/default/configmaps/missing'));
      },
    });
    const { run } = await simulate(scenario, { controllers: [raw], tailMs: 0 });
    expect(seen.map((s) => s.status)).toEqual([200, 404]);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    expect(JSON.parse(seen[1]!.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    expect(seen[0]!.type).toBe('application/json');
    expect(run.trace.filter((e) => e.type === 'http:request').map((e) => `${String(e['method'])} ${String(e['path'])} ${String(e['status'])} ${String(e['ms'])}`)).toEqual([
      'GET /api/v1/namespaces/default/configmaps/a 200 5',
      'GET /api/v1/namespaces/default/configmaps/missing 404 5',
    ]);
  });

  it('is installed only while a simulation needs it', async () => {
    expect(transportInstalled()).toBe(false);
    const raw = kubeController({ name: 'raw', for: 'ConfigMap', start: () => expect(transportInstalled()).toBe(true) });
    await simulate(scenario, { controllers: [raw], tailMs: 0 });
    expect(transportInstalled()).toBe(false);
  });
});
