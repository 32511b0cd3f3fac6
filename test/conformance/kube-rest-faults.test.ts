import { describe, expect, it } from 'vitest';
import type { WatchDecision } from '../../src/runtime/seams.js';
import type { KubeRequestDecision } from '../../src/kube-rest/serve-context.js';
import { BASE, apiFixture, configMap, WatchReader } from './kube-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('createKubeApi: request seam (hooks.onRequest)', () => {
  it('injects 5xx and 429 Status errors (with Retry-After) without touching the store', async () => {
    let next: KubeRequestDecision | undefined;
    const f = apiFixture({ hooks: { onRequest: () => next } });
    next = { type: 'error', status: 429, retryAfterSeconds: 7 };
    const r = await f.req('POST', CMS, configMap('a'));
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', details: { retryAfterSeconds: 7 } });
    next = { type: 'error', status: 503 };
    expect((await f.req('POST', CMS, configMap('a'))).json).toMatchObject({ reason: 'ServiceUnavailable', code: 503 });
    next = { type: 'error', status: 500 };
    expect((await f.req('GET', CMS)).json).toMatchObject({ reason: 'InternalError', code: 500 });
    expect(f.store.peekAll('ConfigMap')).toEqual([]);
  });

  it('conflict: a genuine concurrent write happens first, so a conditional write gets a real 409', async () => {
    let next: KubeRequestDecision | undefined;
    const f = apiFixture({ hooks: { onRequest: () => next } });
    const a = (await f.req('POST', CMS, configMap('a'))).json;
    next = { type: 'conflict' };
    const r = await f.req('PUT', `${CMS}/a`, { ...a, data: { v: '1' } });
    expect(r.json).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(f.writes.map((w) => w.actor)).toEqual(['user', 'fault:api-conflict', 'user']);
  });

  it('timeout: 504 whether or not the write was applied', async () => {
    let next: KubeRequestDecision | undefined;
    const f = apiFixture({ hooks: { onRequest: () => next } });
    next = { type: 'timeout', applied: true };
    expect((await f.req('POST', CMS, configMap('applied'))).json).toMatchObject({ reason: 'Timeout', code: 504 });
    next = { type: 'timeout', applied: false };
    expect((await f.req('POST', CMS, configMap('lost'))).status).toBe(504);
    expect(f.store.peekAll('ConfigMap').map((o) => o.metadata.name)).toEqual(['applied']);
  });

  it('refused never reaches the server; reset fails after it did (applied or not): the transport destroys the socket', async () => {
    let next: KubeRequestDecision | undefined = { type: 'refused' };
    const fails: string[] = [];
    const f = apiFixture({ hooks: { onRequest: () => next } });
    const handle = (req: Request) => f.api.handle(req, { fail: (code) => void fails.push(code) });
    void handle(new Request(`${BASE}${CMS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(configMap('a')) }));
    await new Promise((r) => setTimeout(r, 5));
    expect(fails).toEqual(['ECONNREFUSED']);
    expect(f.store.peek('ConfigMap', 'default/a')).toBeUndefined();
    next = { type: 'reset', applied: true };
    void handle(new Request(`${BASE}${CMS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(configMap('b')) }));
    await new Promise((r) => setTimeout(r, 5));
    expect(fails).toEqual(['ECONNREFUSED', 'ECONNRESET']);
    expect(f.store.peek('ConfigMap', 'default/b')).toBeDefined();
    // without a transport to fail, a network error response
    next = { type: 'refused' };
    const r = await f.api.handle(new Request(`${BASE}${CMS}`));
    expect(r.type).toBe('error');
  });

  it('errors GET, LIST and the watch connect too, with kube-apiserver Status bodies', async () => {
    let next: KubeRequestDecision | undefined;
    const f = apiFixture({ hooks: { onRequest: (i) => (i.verb === 'create' ? undefined : next) } });
    await f.req('POST', CMS, configMap('a'));
    for (const [status, reason] of [[500, 'InternalError'], [503, 'ServiceUnavailable'], [429, 'TooManyRequests']] as const) {
      next = { type: 'error', status, ...(status === 429 ? { retryAfterSeconds: 2 } : {}) };
      for (const path of [`${CMS}/a`, CMS, `${CMS}?watch=true`]) {
        const r = await f.req('GET', path);
        expect(r.status).toBe(status);
        expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code: status });
        if (status === 429) expect(r.headers.get('retry-after')).toBe('2');
      }
    }
  });

  it('latency and requestLatencyMs run on the host clock; hang never answers', async () => {
    let next: KubeRequestDecision | undefined = { type: 'latency', ms: 500 };
    const f = apiFixture({ requestLatencyMs: 100, hooks: { onRequest: () => next } });
    let done = false;
    const p = f.req('POST', CMS, configMap('slow')).then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 10));
    f.host.advance(599);
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    expect(f.store.peek('ConfigMap', 'default/slow')).toBeUndefined();
    f.host.advance(1);
    expect((await p).status).toBe(201);
    next = { type: 'hang' };
    const hung = f.req('GET', CMS);
    f.host.advance(1_000_000);
    expect(await Promise.race([hung.then(() => 'answered'), new Promise((r) => setTimeout(() => r('hung'), 30))])).toBe('hung');
  });

  it('onResponse may make a served request hang (the client died after the write)', async () => {
    const f = apiFixture({ hooks: { onResponse: (i) => (i.verb === 'create' ? 'hang' : undefined) } });
    const p = f.req('POST', CMS, configMap('a'));
    expect(await Promise.race([p.then(() => 'answered'), new Promise((r) => setTimeout(() => r('hung'), 30))])).toBe('hung');
    expect(f.store.peek('ConfigMap', 'default/a')).toBeDefined();
  });

  it('passes verb, kind, namespace, name, subresource and actor to the hook', async () => {
    const seen: unknown[] = [];
    const f = apiFixture({ hooks: { onRequest: (i) => void seen.push(i) } });
    const token = f.api.issueToken('controller:c/0');
    await f.req('POST', CMS, configMap('a'), { authorization: `Bearer ${token}` });
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/a', {}, MERGE);
    await f.req('GET', '/api/v1/configmaps');
    expect(seen).toEqual([
      { t: 0, actor: 'controller:c/0', verb: 'create', kind: 'ConfigMap', namespace: 'default', name: 'a', seq: 0 },
      { t: 0, actor: 'user', verb: 'patch', kind: 'ConfigMap', namespace: 'default', name: 'a', seq: 1 },
      { t: 0, actor: 'user', verb: 'list', kind: 'ConfigMap', seq: 2 },
    ]);
  });

  it('onList shuffles list results deterministically (list-order fault)', async () => {
    const f = apiFixture({ hooks: { onList: () => ({ type: 'shuffle', seed: 42 }) } });
    for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await f.req('POST', CMS, configMap(n));
    const one = (await f.req('GET', CMS)).json.items.map((i: any) => i.metadata.name);
    const two = (await f.req('GET', CMS)).json.items.map((i: any) => i.metadata.name);
    expect(one).toEqual(two);
    expect(one).not.toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect([...one].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});

describe('createKubeApi: watch seam (hooks.onWatchEvent)', () => {
  async function watching(decide: (name: string, type: string) => WatchDecision | undefined) {
    const f = apiFixture({ hooks: { onWatchEvent: (i) => decide(i.event.object.metadata.name, i.event.type) } });
    const res = await f.api.handle(new Request(`${BASE}${CMS}?watch=true&resourceVersion=0`));
    return { f, w: new WatchReader(res) };
  }

  it('drops, duplicates and delays events (delay on the host clock); a delay holds back the rest of the stream, in order', async () => {
    const { f, w } = await watching((n) => (n === 'drop' ? { type: 'drop' } : n === 'dup' ? { type: 'duplicate' } : n === 'late' ? { type: 'delay', ms: 1000 } : undefined));
    for (const n of ['drop', 'dup', 'late', 'plain']) await f.req('POST', CMS, configMap(n));
    expect((await w.take(2)).map((e) => e.object.metadata.name)).toEqual(['dup', 'dup']);
    f.host.advance(1000);
    expect((await w.take(2)).map((e) => e.object.metadata.name)).toEqual(['late', 'plain']);
    await w.cancel();
  });

  it('a replay on one HTTP stream re-sends only the event just sent (the stream never goes back); a lag holds the stream k events behind', async () => {
    const replay = await watching((n, type) => (n === 'b' && type === 'ADDED' ? { type: 'duplicate', replay: 3 } : undefined));
    await replay.f.req('POST', CMS, configMap('a'));
    await replay.f.req('PATCH', `${CMS}/a`, { data: { v: '2' } }, { 'content-type': 'application/merge-patch+json' });
    await replay.f.req('POST', CMS, configMap('b'));
    await replay.f.req('POST', CMS, configMap('c'));
    const seen = (await replay.w.take(5)).map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`);
    expect(seen).toEqual(['ADDED a@1', 'MODIFIED a@2', 'ADDED b@3', 'ADDED b@3', 'ADDED c@4']);
    await replay.w.cancel();
    const lag = await watching(() => ({ type: 'lag', versions: 1, untilMs: 500 }));
    for (const n of ['x', 'y', 'z']) await lag.f.req('POST', CMS, configMap(n));
    expect((await lag.w.take(2)).map((e) => e.object.metadata.name)).toEqual(['x', 'y']);
    lag.f.host.advance(500);
    expect((await lag.w.take(1)).map((e) => e.object.metadata.name)).toEqual(['z']);
    await lag.w.cancel();
  });

  it('close ends the stream cleanly; error sends an ERROR event with a 500 Status first', async () => {
    const close = await watching((n) => (n === 'x' ? { type: 'close' } : undefined));
    await close.f.req('POST', CMS, configMap('x'));
    expect(await close.w.end()).toBe(true);
    expect(close.w.events).toEqual([]);
    const error = await watching((n) => (n === 'y' ? { type: 'error', status: 500 } : undefined));
    await error.f.req('POST', CMS, configMap('x'));
    await error.f.req('POST', CMS, configMap('y'));
    expect(await error.w.end()).toBe(true);
    expect(error.w.events.map((e) => e.type)).toEqual(['ADDED', 'ERROR']);
    expect(error.w.events[1]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError' } });
  });

  it('disconnect cuts the stream; gone expires it with 410 (and compacts the history)', async () => {
    const cut = await watching((n) => (n === 'x' ? { type: 'disconnect' } : undefined));
    await cut.f.req('POST', CMS, configMap('x'));
    expect(await cut.w.end()).toBe(true);
    expect(cut.w.events).toEqual([]);
    const gone = await watching((n) => (n === 'y' ? { type: 'gone' } : undefined));
    await gone.f.req('POST', CMS, configMap('x'));
    await gone.f.req('POST', CMS, configMap('y'));
    expect((await gone.w.take(2)).map((e) => e.type)).toEqual(['ADDED', 'ERROR']);
    expect(gone.w.events[1]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    expect(await gone.w.end()).toBe(true);
    const fromOld = new WatchReader(await gone.f.api.handle(new Request(`${BASE}${CMS}?watch=true&resourceVersion=1`)));
    expect((await fromOld.take(1))[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    const relisted = new WatchReader(await gone.f.api.handle(new Request(`${BASE}${CMS}?watch=true&resourceVersion=0`)));
    expect((await relisted.take(1))[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'x' } } });
    await relisted.cancel();
  });
});
