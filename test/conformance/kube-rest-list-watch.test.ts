import { describe, expect, it } from 'vitest';
import { BASE, apiFixture, configMap, WatchReader } from './kube-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

async function seed(f: ReturnType<typeof apiFixture>): Promise<void> {
  await f.req('POST', CMS, configMap('web-1', {}, { metadata: { labels: { app: 'web', tier: 'front' } } }));
  await f.req('POST', CMS, configMap('web-2', {}, { metadata: { labels: { app: 'web', tier: 'back' } } }));
  await f.req('POST', CMS, configMap('db', {}, { metadata: { labels: { app: 'db' } } }));
  await f.req('POST', '/api/v1/namespaces/other/configmaps', configMap('web-3', {}, { metadata: { labels: { app: 'web' } } }));
}

function names(r: { json: any }): string[] {
  return r.json.items.map((i: any) => i.metadata.name);
}

describe('createKubeApi: list', () => {
  it('filters by label selectors, spaces included, and by field selectors', async () => {
    const f = apiFixture();
    await seed(f);
    const q = (s: string) => f.req('GET', `${CMS}?${s}`);
    expect(names(await q(`labelSelector=${encodeURIComponent('app = web')}`))).toEqual(['web-1', 'web-2']);
    expect(names(await q(`labelSelector=${encodeURIComponent('app in (web, db), tier notin (back)')}`))).toEqual(['db', 'web-1']);
    expect(names(await q(`labelSelector=${encodeURIComponent('!tier')}`))).toEqual(['db']);
    expect(names(await q(`fieldSelector=${encodeURIComponent('metadata.name=db')}`))).toEqual(['db']);
    expect(names(await q(`fieldSelector=${encodeURIComponent('metadata.name!=db')}`))).toEqual(['web-1', 'web-2']);
    expect(names(await f.req('GET', '/api/v1/configmaps?labelSelector=app%3Dweb'))).toEqual(['web-1', 'web-2', 'web-3']);
    expect((await q(`labelSelector=${encodeURIComponent('app in (web')}`)).json).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  it('refuses the list options kube-apiserver refuses (R-2, R-4): 422 of ListOptions naming each, 400 for a resourceVersion with continue', async () => {
    const f = apiFixture();
    for (const n of ['a', 'b', 'c']) await f.req('POST', CMS, configMap(n));
    const q = (s: string) => f.req('GET', `${CMS}?${s}`);
    expect((await q('resourceVersionMatch=NotOlderThan')).json).toMatchObject({ code: 422, reason: 'Invalid', message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', details: { kind: 'ListOptions', group: 'meta.k8s.io', causes: [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden' }] } });
    expect((await q('resourceVersion=0&resourceVersionMatch=Exact')).json).toMatchObject({ code: 422, message: expect.stringContaining('resourceVersionMatch "exact" is forbidden for resourceVersion "0"') });
    expect((await q('resourceVersion=1&resourceVersionMatch=Newest')).json).toMatchObject({ code: 422, message: expect.stringContaining('Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""') });
    expect((await q('sendInitialEvents=true')).json).toMatchObject({ code: 422, message: expect.stringContaining('sendInitialEvents is forbidden for list') });
    // two at once: both named, in a list
    expect((await q('resourceVersionMatch=Latest')).json.message).toMatch(/is invalid: \[resourceVersionMatch: Forbidden: .*, resourceVersionMatch: Unsupported value: "Latest"/);
    const p1 = await q('limit=2');
    const next = encodeURIComponent(p1.json.metadata.continue);
    expect((await q(`limit=2&continue=${next}&resourceVersion=${p1.json.metadata.resourceVersion}`)).json).toMatchObject({ code: 400, reason: 'BadRequest', message: 'specifying resource version is not allowed when using continue' });
    expect((await q(`limit=2&continue=${next}&resourceVersionMatch=NotOlderThan&resourceVersion=0`)).json).toMatchObject({ code: 422, message: expect.stringContaining('resourceVersionMatch is forbidden when continue is provided') });
    // what kube serves still serves: resourceVersion=0 with continue, NotOlderThan and Exact with a version
    expect(names(await q(`limit=2&continue=${next}&resourceVersion=0`))).toEqual(['c']);
    expect(names(await q('resourceVersion=0&resourceVersionMatch=NotOlderThan'))).toEqual(['a', 'b', 'c']);
    expect(names(await q(`resourceVersion=${p1.json.metadata.resourceVersion}&resourceVersionMatch=Exact`))).toEqual(['a', 'b', 'c']);
  });

  it('serves resourceVersionMatch=Exact from the state at that resourceVersion (R-3), and 504 for one past the current', async () => {
    const f = apiFixture();
    for (const n of ['a', 'b']) await f.req('POST', CMS, configMap(n));
    const then = (await f.req('GET', CMS)).json.metadata.resourceVersion as string;
    await f.req('POST', CMS, configMap('c'));
    await f.req('DELETE', `${CMS}/a`);
    const exact = await f.req('GET', `${CMS}?resourceVersion=${then}&resourceVersionMatch=Exact`);
    expect(names(exact)).toEqual(['a', 'b']);
    expect(exact.json.metadata.resourceVersion).toBe(then);
    expect(names(await f.req('GET', `${CMS}?resourceVersion=${then}&resourceVersionMatch=NotOlderThan`))).toEqual(['b', 'c']);
    const future = Number((await f.req('GET', CMS)).json.metadata.resourceVersion) + 5;
    expect((await f.req('GET', `${CMS}?resourceVersion=${future}&resourceVersionMatch=Exact`)).json).toMatchObject({ code: 504, reason: 'Timeout', message: expect.stringMatching(/^Too large resource version: \d+, current: \d+$/) });
  });

  it('pages with limit and continue, with remainingItemCount', async () => {
    const f = apiFixture();
    for (const n of ['e', 'a', 'd', 'c', 'b']) await f.req('POST', CMS, configMap(n));
    const p1 = await f.req('GET', `${CMS}?limit=2`);
    expect(names(p1)).toEqual(['a', 'b']);
    expect(p1.json.metadata.remainingItemCount).toBe(3);
    const p2 = await f.req('GET', `${CMS}?limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
    expect(names(p2)).toEqual(['c', 'd']);
    expect(p2.json.metadata.resourceVersion).toBe(p1.json.metadata.resourceVersion);
    const p3 = await f.req('GET', `${CMS}?limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
    expect(names(p3)).toEqual(['e']);
    expect(p3.json.metadata.continue).toBeUndefined();
    expect((await f.req('GET', `${CMS}?continue=garbage`)).json).toMatchObject({ reason: 'BadRequest' });
  });
});

describe('createKubeApi: watch', () => {
  const open = async (f: ReturnType<typeof apiFixture>, path: string, signal?: AbortSignal) => {
    const res = await f.api.handle(new Request(`${BASE}${path}`, signal ? { signal } : {}));
    expect(res.status).toBe(200);
    return new WatchReader(res);
  };

  it('without a resourceVersion sends existing objects as ADDED first, then changes', async () => {
    const f = apiFixture();
    await seed(f);
    const w = await open(f, `${CMS}?watch=true`);
    const first = await w.take(3);
    expect(first.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'db'],
      ['ADDED', 'web-1'],
      ['ADDED', 'web-2'],
    ]);
    expect(first[0].object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    await f.req('PATCH', `${CMS}/db`, { data: { a: '1' } }, { 'content-type': 'application/merge-patch+json' });
    await f.req('DELETE', `${CMS}/web-1`);
    expect((await w.take(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['MODIFIED', 'db'],
      ['DELETED', 'web-1'],
    ]);
    await w.cancel();
    expect(f.api.openWatches()).toBe(0);
  });

  it('from a resourceVersion replays what came after it', async () => {
    const f = apiFixture();
    await seed(f); // rv 1..4
    const w = await open(f, `${CMS}?watch=1&resourceVersion=2`);
    expect((await w.take(1)).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([['ADDED', 'db', '3']]);
    await w.cancel();
  });

  it('a selected watch resumed from a resourceVersion replays a DELETED of an object gone before it opened, and translates by the objects as they were then', async () => {
    const f = apiFixture();
    await seed(f); // rv 1..4: web-1, web-2, db, other/web-3
    await f.req('DELETE', `${CMS}/web-1`); // rv 5
    await f.req('PATCH', `${CMS}/web-2`, { metadata: { labels: { app: 'gone' } } }, { 'content-type': 'application/merge-patch+json' }); // rv 6: leaves the selection
    await f.req('PATCH', `${CMS}/db`, { metadata: { labels: { app: 'web' } } }, { 'content-type': 'application/merge-patch+json' }); // rv 7: enters it
    // a client that last saw rv 4 (its informer's cache holds web-1 and web-2) reconnects
    const w = await open(f, `${CMS}?watch=true&resourceVersion=4&labelSelector=${encodeURIComponent('app=web')}`);
    expect((await w.take(3)).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([
      ['DELETED', 'web-1', '5'],
      ['DELETED', 'web-2', '6'],
      ['ADDED', 'db', '7'],
    ]);
    await w.cancel();
  });

  it('answers a too-old resourceVersion with a 410 Expired ERROR event and ends the stream', async () => {
    const f = apiFixture();
    await seed(f);
    f.store.compact();
    const w = await open(f, `${CMS}?watch=true&resourceVersion=1`);
    const [ev] = await w.take(1);
    expect(ev).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 } });
    expect(await w.end()).toBe(true);
  });

  it('applies selectors per event: leaving the selection is DELETED, entering it is ADDED', async () => {
    const f = apiFixture();
    await seed(f);
    const w = await open(f, `${CMS}?watch=true&labelSelector=${encodeURIComponent('app in (web)')}`);
    expect((await w.take(2)).map((e) => e.object.metadata.name)).toEqual(['web-1', 'web-2']);
    await f.req('PATCH', `${CMS}/web-1`, { metadata: { labels: { app: 'gone' } } }, { 'content-type': 'application/merge-patch+json' });
    await f.req('PATCH', `${CMS}/db`, { metadata: { labels: { app: 'web' } } }, { 'content-type': 'application/merge-patch+json' });
    expect((await w.take(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['DELETED', 'web-1'],
      ['ADDED', 'db'],
    ]);
    await w.cancel();
  });

  it('serves legacy /watch/ paths, for one object by name too', async () => {
    const f = apiFixture();
    await seed(f);
    const all = await open(f, '/api/v1/watch/namespaces/default/configmaps');
    expect(await all.take(3)).toHaveLength(3);
    const one = await open(f, '/api/v1/watch/namespaces/default/configmaps/db');
    expect((await one.take(1)).map((e) => e.object.metadata.name)).toEqual(['db']);
    await f.req('PATCH', `${CMS}/web-1`, { data: { a: '1' } }, { 'content-type': 'application/merge-patch+json' });
    await f.req('PATCH', `${CMS}/db`, { data: { a: '1' } }, { 'content-type': 'application/merge-patch+json' });
    expect((await one.take(1)).map((e) => [e.type, e.object.metadata.name])).toEqual([['MODIFIED', 'db']]);
    const cluster = await open(f, '/api/v1/watch/configmaps?labelSelector=app%3Dweb');
    expect((await cluster.take(3)).map((e) => e.object.metadata.name)).toEqual(['web-1', 'web-2', 'web-3']);
    await Promise.all([all.cancel(), one.cancel(), cluster.cancel()]);
  });

  it('sends BOOKMARK events on the host clock when asked, and closes after timeoutSeconds', async () => {
    const f = apiFixture({ bookmarkIntervalMs: 1000 });
    await seed(f);
    const w = await open(f, `${CMS}?watch=true&resourceVersion=4&allowWatchBookmarks=true&timeoutSeconds=3`);
    f.host.advance(1000);
    const [b] = await w.take(1);
    expect(b).toEqual({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '4' } } });
    f.host.advance(2000);
    expect(await w.end()).toBe(true);
    expect(w.events.filter((e) => e.type === 'BOOKMARK')).toHaveLength(2); // at 1 s and 2 s; the timeout wins at 3 s
    const plain = await open(f, `${CMS}?watch=true&resourceVersion=4`);
    f.host.advance(5000);
    expect(await plain.take(1, 100)).toEqual([]);
    await plain.cancel();
  });

  it('streaming list (sendInitialEvents): initial objects, then the initial-events-end bookmark', async () => {
    const f = apiFixture();
    await seed(f);
    const w = await open(f, `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const evs = await w.take(4);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'BOOKMARK']);
    expect(evs[3].object.metadata).toEqual({ resourceVersion: '4', annotations: { 'k8s.io/initial-events-end': 'true' } });
    await w.cancel();
  });

  it('ends promptly when the client aborts (request.signal), releasing the store watch', async () => {
    const f = apiFixture();
    const ac = new AbortController();
    const w = await open(f, `${CMS}?watch=true`, ac.signal);
    expect(f.api.openWatches()).toBe(1);
    ac.abort();
    expect(f.api.openWatches()).toBe(0);
    await f.req('POST', CMS, configMap('late'));
    expect(await w.take(1, 50)).toEqual([]);
  });

  it('expireNextWatch: the next watch the actor resumes from a resourceVersion gets 410 (its client relists); a fresh watch, another kind and the resume after that are served', async () => {
    const f = apiFixture();
    await seed(f);
    const actor = f.api.issueToken('controller:web/0');
    const as = async (path: string) => {
      const res = await f.api.handle(new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${actor}` } }));
      expect(res.status).toBe(200);
      return new WatchReader(res);
    };
    f.api.expireNextWatch('controller:web/0', 'ConfigMap');
    const fresh = await as(`${CMS}?watch=true`);
    expect((await fresh.take(1))[0]).toMatchObject({ type: 'ADDED' });
    await fresh.cancel();
    const other = await as('/api/v1/namespaces/default/secrets?watch=true&resourceVersion=2');
    expect(other.ended).toBe(false);
    await other.cancel();
    const resumed = await as(`${CMS}?watch=true&resourceVersion=2`);
    expect((await resumed.take(1))[0]).toMatchObject({ type: 'ERROR', object: { reason: 'Expired', code: 410 } });
    expect(await resumed.end()).toBe(true);
    const again = await as(`${CMS}?watch=true&resourceVersion=2`);
    expect((await again.take(1))[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'db' } } });
    await again.cancel();
  });

  it('endWatches: expire sends 410 (clients relist), cut errors the stream', async () => {
    const f = apiFixture();
    const a = await open(f, `${CMS}?watch=true`);
    const b = await open(f, `${CMS}?watch=true`);
    expect(f.api.endWatches('expire', (x) => x.kind === 'ConfigMap' && a !== undefined)).toBe(2);
    expect((await a.take(1))[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    expect(await b.end()).toBe(true);
    const c = await open(f, `${CMS}?watch=true`);
    f.api.endWatches('cut');
    expect(await c.end()).toBe(true);
    expect(c.events).toEqual([]);
  });
});
