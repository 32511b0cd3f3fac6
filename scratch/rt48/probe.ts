// npx tsx scratch/rt48/probe.ts : kube-rest realism probes (rt48)
import { apiFixture } from '../../test/conformance/kube-helpers.js';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const JP = { 'content-type': 'application/json-patch+json' };
const show = (tag: string, r: { status: number; json: any }) => console.log(tag, r.status, JSON.stringify(r.json).slice(0, 400));
const f = apiFixture();
f.host.advance(5_000);
const CM = '/api/v1/namespaces/default/configmaps';
// SSA removal and conflicts
show('S1 apply a,b by m1', await f.req('PATCH', `${CM}/c?fieldManager=m1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } }, APPLY));
show('S2 apply a by m1 (b removed?)', await f.req('PATCH', `${CM}/c?fieldManager=m1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, APPLY));
show('S3 apply a=9 by m2 no force (409?)', await f.req('PATCH', `${CM}/c?fieldManager=m2`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '9' } }, APPLY));
show('S4 apply a=1 by m2 (shared)', await f.req('PATCH', `${CM}/c?fieldManager=m2`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', x: 'y' } }, APPLY));
show('S5 m1 applies {} (a stays: shared with m2)', await f.req('PATCH', `${CM}/c?fieldManager=m1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, APPLY));
// update (PUT) by a user then apply a different value
const cur = (await f.req('GET', `${CM}/c`)).json;
show('S6 PUT by kubectl-edit sets x=z', await f.req('PUT', `${CM}/c?fieldManager=kubectl-edit`, { ...cur, data: { ...cur.data, x: 'z' } }));
show('S7 m2 applies x=y again (conflict with kubectl-edit?)', await f.req('PATCH', `${CM}/c?fieldManager=m2`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', x: 'y' } }, APPLY));
// SSA apply without fieldManager -> 422 in kube
show('S8 apply without fieldManager (kube: 422 fieldManager is required)', await f.req('PATCH', `${CM}/c`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, APPLY));
// immutable configmap
show('I1 create immutable', await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm' }, immutable: true, data: { a: '1' } }));
show('I2 apply data change on immutable (422?)', await f.req('PATCH', `${CM}/imm?fieldManager=m1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm' }, data: { a: '2' } }, APPLY));
show('I3 JSON patch metadata label on immutable (ok)', await f.req('PATCH', `${CM}/imm`, [{ op: 'add', path: '/metadata/labels', value: { l: 'v' } }], JP));
// eviction
await f.req('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } });
show('E1 eviction', await f.req('POST', '/api/v1/namespaces/default/pods/p/eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'default' } }));
// json patch test op
show('J1 json patch test fails (422?)', await f.req('PATCH', `${CM}/c`, [{ op: 'test', path: '/data/a', value: 'nope' }, { op: 'replace', path: '/data/a', value: 'q' }], JP));
// list paging: limit + continue, rv=0
for (const n of ['a1', 'a2', 'a3', 'a4']) await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n } });
const p1 = await f.req('GET', `${CM}?limit=2`);
show('L1 page1', { status: p1.status, json: { md: p1.json.metadata, n: p1.json.items.map((i: any) => i.metadata.name) } });
await f.req('DELETE', `${CM}/c`);
const p2 = await f.req('GET', `${CM}?limit=2&continue=${p1.json.metadata.continue}`);
show('L2 page2 after deleting c (snapshot: still has c)', { status: p2.status, json: { md: p2.json.metadata, n: p2.json.items.map((i: any) => i.metadata.name) } });
const r0 = await f.req('GET', `${CM}?limit=2&resourceVersion=0`);
show('L3 rv=0 limit=2 (kube watch cache: limit ignored pre-1.31?)', { status: r0.status, json: { md: r0.json.metadata, n: r0.json.items.map((i: any) => i.metadata.name) } });
// generateName via REST
show('G1 generateName', await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } }));
// Lease microtime
show('T1 lease with ms renewTime', await f.req('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:05.123Z', acquireTime: '2026-01-01T00:00:05.123456Z' } }));
show('T2 lease with bad renewTime', await f.req('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l2' }, spec: { holderIdentity: 'a', renewTime: 'yesterday' } }));
// dryRun
show('D1 dryRun create', await f.req('POST', `${CM}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } }));
show('D2 dry object exists?', await f.req('GET', `${CM}/dry`));
