import { describe, expect, it } from 'vitest';
import { apiFixture, configMap } from './kube-helpers.js';

/*
 * Size limits as kube-apiserver answers them over HTTP (red team round 9, L-1: an object that
 * grows without bound): a request body over 3 MiB is 413 before anything else (limitedReadBody,
 * MaxRequestBodyBytes); an object etcd refuses (over 1.5 MiB) is a 500 whose Status carries etcd's
 * words and no reason (kubernetes/kubernetes#74600, #112152); a ConfigMap over 1 MiB is 422.
 */
const MiB = 1024 * 1024;
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const widgetResource = { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', statusSubresource: true };
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('kube-rest: size limits', () => {
  it('answers a body over 3 MiB with 413 RequestEntityTooLarge (POST, PUT, PATCH), and stores nothing', async () => {
    const f = apiFixture({ resources: [widgetResource] });
    const created = await f.req('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
    expect(created.status).toBe(201);
    const big = 'x'.repeat(3 * MiB);
    const answers = [
      await f.req('POST', CONFIGMAPS, configMap('big', { k: big })),
      await f.req('PUT', `${WIDGETS}/w/status`, { ...created.json, status: { log: big } }),
      await f.req('PATCH', `${WIDGETS}/w`, { spec: { blob: big } }, { 'content-type': 'application/merge-patch+json' }),
    ];
    for (const r of answers) {
      expect(r.status).toBe(413);
      expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 });
    }
    expect(f.writes.filter((w) => w.error !== undefined)).toEqual([]);
    expect(f.store.peek('ConfigMap', 'default/big')).toBeUndefined();
  });

  it('answers an object over 1.5 MiB (a body under 3 MiB) with a 500 whose Status has no reason, as etcd refuses it', async () => {
    const f = apiFixture({ resources: [widgetResource] });
    const created = (await f.req('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } })).json;
    const put = await f.req('PUT', `${WIDGETS}/w/status`, { ...created, status: { log: 'x'.repeat(1.6 * MiB) } });
    expect(put.status).toBe(500);
    expect(put.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
    expect(f.writes.at(-1)).toMatchObject({ verb: 'updateStatus', error: 'InternalError' });
    // just under: stored
    expect((await f.req('PUT', `${WIDGETS}/w/status`, { ...created, status: { log: 'x'.repeat(1.4 * MiB) } })).status).toBe(200);
  });

  it('answers a ConfigMap whose data is over 1 MiB (a body under 3 MiB) with 422', async () => {
    const f = apiFixture();
    const r = await f.req('POST', CONFIGMAPS, configMap('big', { k: 'x'.repeat(MiB) }));
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/^ConfigMap "big" is invalid: data: Too long: must have at most 1048576 bytes/);
  });
});
