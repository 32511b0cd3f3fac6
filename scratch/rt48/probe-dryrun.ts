// npx tsx scratch/rt48/probe-dryrun.ts : dryRun on every verb (README: "refused, 400")
import { apiFixture } from '../../test/conformance/kube-helpers.js';
const f = apiFixture();
const CM = '/api/v1/namespaces/default/configmaps';
const show = (tag: string, r: { status: number; json: any }) => console.log(tag, r.status, JSON.stringify(r.json).slice(0, 160));
await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
show('POST dryRun=All', await f.req('POST', `${CM}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } }));
const cur = (await f.req('GET', `${CM}/c`)).json;
show('PUT dryRun=All', await f.req('PUT', `${CM}/c?dryRun=All`, { ...cur, data: { a: 'put' } }));
show('merge PATCH dryRun=All', await f.req('PATCH', `${CM}/c?dryRun=All`, { data: { a: 'merge' } }, { 'content-type': 'application/merge-patch+json' }));
show('json PATCH dryRun=All', await f.req('PATCH', `${CM}/c?dryRun=All`, [{ op: 'replace', path: '/data/a', value: 'json' }], { 'content-type': 'application/json-patch+json' }));
show('DELETE dryRun=All', await f.req('DELETE', `${CM}/c?dryRun=All`));
show('POST dryRun=Bogus', await f.req('POST', `${CM}?dryRun=Bogus`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry2' } }));
show('GET c now', await f.req('GET', `${CM}/c`));
console.log('writes', f.writes.length);
