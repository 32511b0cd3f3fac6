// npx tsx scratch/rt48/probe-update.ts : unconditional updates and patch-body preconditions
import { apiFixture, webAppResource } from '../../test/conformance/kube-helpers.js';
const f = apiFixture({ resources: [webAppResource] } as never);
const show = (tag: string, r: { status: number; json: any }) => console.log(tag, r.status, JSON.stringify(r.json).slice(0, 220));
const base = `/apis/${webAppResource.group}/${webAppResource.version}/namespaces/default/${webAppResource.plural}`;
show('U0 create CR', await f.req('POST', base, { apiVersion: `${webAppResource.group}/${webAppResource.version}`, kind: webAppResource.kind, metadata: { name: 'w' }, spec: { replicas: 1 } }));
const cur = (await f.req('GET', `${base}/w`)).json;
const { resourceVersion: _rv, ...meta } = cur.metadata;
show('U1 PUT CR without resourceVersion (kube: 422 must be specified for an update)', await f.req('PUT', `${base}/w`, { ...cur, metadata: meta, spec: { replicas: 2 } }));
show('U2 PUT CR status without resourceVersion (kube: 422)', await f.req('PUT', `${base}/w/status`, { ...cur, metadata: meta, status: { ready: 1 } }));
const CM = '/api/v1/namespaces/default/configmaps';
await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
const c = (await f.req('GET', `${CM}/c`)).json;
const { resourceVersion: _r2, ...cmeta } = c.metadata;
show('U3 PUT ConfigMap without resourceVersion (kube: allowed, 200)', await f.req('PUT', `${CM}/c`, { ...c, metadata: cmeta, data: { a: '2' } }));
show('U4 merge patch with a stale metadata.resourceVersion in the body (kube: 409)', await f.req('PATCH', `${CM}/c`, { metadata: { resourceVersion: '1' }, data: { a: '3' } }, { 'content-type': 'application/merge-patch+json' }));
