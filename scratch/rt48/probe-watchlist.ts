// npx tsx scratch/rt48/probe-watchlist.ts : streaming list (sendInitialEvents) and bookmarks
import { apiFixture, WatchReader } from '../../test/conformance/kube-helpers.js';
const f = apiFixture();
const CM = '/api/v1/namespaces/default/configmaps';
for (const n of ['a', 'b']) await f.req('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n } });
const res = await f.api.handle(new Request(`http://kube.test${CM}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`));
console.log('W1 status', res.status);
if (res.status === 200) {
  const w = new WatchReader(res);
  const ev = await w.take(3, 500);
  console.log('W1 events', JSON.stringify(ev.map((e) => [e.type, e.object?.metadata?.name, e.object?.metadata?.annotations])));
} else console.log(await res.text());
const r2 = await f.api.handle(new Request(`http://kube.test${CM}?watch=true&sendInitialEvents=true`));
console.log('W2 sendInitialEvents without resourceVersionMatch (kube: 422)', r2.status, r2.status !== 200 ? (await r2.text()).slice(0, 300) : '');
const r3 = await f.api.handle(new Request(`http://kube.test${CM}?watch=true&resourceVersion=0`));
console.log('W3 rv=0 watch', r3.status);
if (r3.status === 200) { const w = new WatchReader(r3); console.log('W3 events', JSON.stringify((await w.take(2, 300)).map((e) => [e.type, e.object?.metadata?.name]))); }
const r4 = await f.api.handle(new Request(`http://kube.test${CM}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`));
console.log('W4 watch with resourceVersionMatch, no sendInitialEvents (kube: 422)', r4.status);
const r5 = await f.req('GET', `${CM}?sendInitialEvents=true`);
console.log('W5 list with sendInitialEvents (kube: 422 forbidden for list)', r5.status);
