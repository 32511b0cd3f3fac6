import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { kubeController, simulate, type FaultPlan, type Scenario } from '../../src/index.js';
import { watchViolations } from '../helpers/realism.js';

/**
 * stale-snapshot's lagging (re)list over HTTP (issue 11 item 1, for `kubeController` processes):
 * only a list an API server may answer from its watch cache (`resourceVersion=0`, or `=N`: not
 * older than N) can come from a lagging replica; a quorum list (no resourceVersion) is read from
 * etcd and is always current. The jump back is recorded as `informer:time-travel`.
 */
interface Answer {
  status: number;
  body: { metadata?: { resourceVersion?: string }; items?: { metadata: { name: string } }[] };
}

function call(server: string, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${server}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const CMS = '/api/v1/namespaces/default/configmaps';
const names = (a: Answer) => (a.body.items ?? []).map((i) => i.metadata.name).sort();

async function runLists(faults: FaultPlan) {
  const lists: Record<string, Answer> = {};
  let createdRv = 0;
  const raw = kubeController({
    name: 'raw',
    for: 'ConfigMap',
    start: async ({ server, token }) => {
      await call(server, token, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: 'v' } });
      const c = await call(server, token, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } });
      createdRv = Number((c.body.metadata ?? {}).resourceVersion);
      lists['first'] = await call(server, token, 'GET', `${CMS}?resourceVersion=0`);
      lists['quorum'] = await call(server, token, 'GET', CMS);
      lists['any'] = await call(server, token, 'GET', `${CMS}?resourceVersion=0`);
      lists['notOlderThan'] = await call(server, token, 'GET', `${CMS}?resourceVersion=${createdRv}`);
    },
  });
  const scenario: Scenario = {
    seed: 1,
    controllers: [{ name: 'raw' }],
    initialObjects: [{ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } }],
    workload: [],
    faults,
    options: { faultWindowMs: 1_000, settleMs: 1_000 },
  };
  const { run } = await simulate(scenario, { controllers: [raw], faults: [staleSnapshot], tailMs: 0 });
  return { run, lists, createdRv };
}

describe('stale-snapshot: lagging lists over HTTP', () => {
  // the first and second relists of the process (its first cache-served list is its start's)
  const lagging: FaultPlan = {
    events: [
      { kind: 'stale-snapshot', nth: 0, params: { list: true, versionsBack: 1 } },
      { kind: 'stale-snapshot', nth: 1, params: { list: true, versionsBack: 5 } },
    ],
    background: [],
  };

  it('a resourceVersion=0 relist may come from a lagging replica (older items and resourceVersion), recorded as time travel', async () => {
    const { run, lists, createdRv } = await runLists(lagging);
    expect(names(lists['first']!)).toEqual(['a', 'b', 'c']);
    expect(names(lists['any']!)).toEqual(['a', 'b']);
    expect(lists['any']!.body.metadata?.resourceVersion).toBe(String(createdRv - 1));
    expect(run.trace.filter((e) => e.type === 'informer:time-travel')).toEqual([expect.objectContaining({ controller: 'raw', kind: 'ConfigMap', reason: 'relist', fromRv: createdRv, toRv: createdRv - 1, via: 'http' })]);
    expect(watchViolations(run.trace)).toEqual([]);
  });

  it('a quorum list is never stale, and a list not older than N is never older than N', async () => {
    const { lists, createdRv } = await runLists(lagging);
    expect(names(lists['quorum']!)).toEqual(['a', 'b', 'c']);
    expect(lists['quorum']!.body.metadata?.resourceVersion).toBe(String(createdRv));
    // the second lagging list asks for 5 back, but the client asked for at least createdRv
    expect(names(lists['notOlderThan']!)).toEqual(['a', 'b', 'c']);
    expect(lists['notOlderThan']!.body.metadata?.resourceVersion).toBe(String(createdRv));
  });

  it('without the fault every list is current', async () => {
    const { run, lists, createdRv } = await runLists({ events: [], background: [] });
    for (const l of Object.values(lists)) expect(names(l)).toEqual(['a', 'b', 'c']);
    expect(lists['any']!.body.metadata?.resourceVersion).toBe(String(createdRv));
    expect(run.trace.some((e) => e.type === 'informer:time-travel')).toBe(false);
  });
});
