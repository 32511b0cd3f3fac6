import { describe, expect, it } from 'vitest';
import { fakeRestService, type FakeRestService } from '../../../src/downstream/fake-rest-service.js';
import type { FetchDecision } from '../../../src/downstream/fetch-decision.js';
import { createDownstream } from '../../../src/downstream/intercept.js';
import { Kernel, type Task } from '../../../src/sim/kernel.js';
import { hostFor, runTask } from './driver.js';

/** Calls the service directly (no downstream), parsing the reply. */
function call(svc: FakeRestService, method: string, url: string, body?: unknown, key?: string) {
  const route = svc.route(url);
  if (!route) throw new Error(`no route for ${url}`);
  const reply = svc.handle(route, method, body === undefined ? undefined : JSON.stringify(body), key);
  return { status: reply.status, body: reply.text === null ? undefined : (JSON.parse(reply.text) as unknown), headers: reply.headers };
}

describe('fakeRestService', () => {
  it('creates, reads, lists, updates, patches and deletes', () => {
    const svc = fakeRestService({ baseUrl: 'https://dns.example/' });
    expect(svc.baseUrl).toBe('https://dns.example');
    expect(svc.name).toBe('dns.example');

    const a = call(svc, 'POST', 'https://dns.example/records', { name: 'a', ip: '10.0.0.1', id: 'client-chosen' });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ id: '1', name: 'a', ip: '10.0.0.1' });
    expect(a.headers).toContainEqual(['location', 'https://dns.example/records/1']);
    call(svc, 'POST', 'https://dns.example/records', { name: 'b' });
    expect(svc.createdCount).toBe(2);

    expect(call(svc, 'GET', 'https://dns.example/records/1').body).toEqual({ id: '1', name: 'a', ip: '10.0.0.1' });
    expect(call(svc, 'GET', 'https://dns.example/records').body).toEqual([
      { id: '1', name: 'a', ip: '10.0.0.1' },
      { id: '2', name: 'b' },
    ]);
    expect(call(svc, 'GET', 'https://dns.example/records?name=b').body).toEqual([{ id: '2', name: 'b' }]);

    expect(call(svc, 'PATCH', 'https://dns.example/records/1', { ip: null, ttl: 60 }).body).toEqual({ id: '1', name: 'a', ttl: 60 });
    expect(call(svc, 'PUT', 'https://dns.example/records/2', { name: 'b2', id: '99' }).body).toEqual({ id: '2', name: 'b2' });

    expect(call(svc, 'DELETE', 'https://dns.example/records/1').status).toBe(204);
    expect(call(svc, 'DELETE', 'https://dns.example/records/1').status).toBe(404);
    expect(call(svc, 'GET', 'https://dns.example/records/1').status).toBe(404);
    expect(call(svc, 'PATCH', 'https://dns.example/records/1', {}).status).toBe(404);
    expect(svc.resources()).toEqual([{ id: '2', name: 'b2' }]);
  });

  it('rejects bad bodies and methods with 4xx, not exceptions', () => {
    const svc = fakeRestService({ baseUrl: 'https://x.example' });
    const route = svc.route('https://x.example/things')!;
    expect(svc.handle(route, 'POST', '{not json', undefined).status).toBe(400);
    expect(svc.handle(route, 'POST', '[1]', undefined).status).toBe(400);
    expect(svc.handle(route, 'POST', undefined, undefined).status).toBe(400);
    expect(svc.handle(route, 'DELETE', undefined, undefined).status).toBe(405);
    expect(svc.createdCount).toBe(0);
  });

  it('replays the first response for a repeated idempotency key', () => {
    const svc = fakeRestService({ baseUrl: 'https://pay.example', idempotencyKeyHeader: 'Idempotency-Key' });
    const first = call(svc, 'POST', 'https://pay.example/orders', { owner: 'o1' }, 'k1');
    const again = call(svc, 'POST', 'https://pay.example/orders', { owner: 'o1' }, 'k1');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers).toContainEqual(['idempotent-replayed', 'true']);
    expect(svc.createdCount).toBe(1);
    call(svc, 'POST', 'https://pay.example/orders', { owner: 'o1' }, 'k2');
    call(svc, 'POST', 'https://pay.example/orders', { owner: 'o1' });
    expect(svc.createdCount).toBe(3);
  });

  it('ignores idempotency keys when no header is configured', () => {
    const svc = fakeRestService({ baseUrl: 'https://pay.example' });
    call(svc, 'POST', 'https://pay.example/orders', {}, 'k1');
    call(svc, 'POST', 'https://pay.example/orders', {}, 'k1');
    expect(svc.createdCount).toBe(2);
  });

  it('groups resources by owner per collection (byOwner)', () => {
    const svc = fakeRestService({ baseUrl: 'https://dns.example' });
    call(svc, 'POST', 'https://dns.example/records', { owner: 'default/web' });
    call(svc, 'POST', 'https://dns.example/records', { owner: 'default/web' });
    call(svc, 'POST', 'https://dns.example/records', { owner: 'default/api' });
    call(svc, 'POST', 'https://dns.example/certs', { owner: 'default/web' });
    call(svc, 'POST', 'https://dns.example/records', { name: 'unowned' });
    const groups = svc.byOwner();
    expect(groups.map((g) => [g.collection, g.owner, g.resources.map((r) => r.id)])).toEqual([
      ['records', 'default/web', ['1', '2']],
      ['records', 'default/api', ['3']],
      ['certs', 'default/web', ['4']],
    ]);
    expect(groups.filter((g) => g.resources.length > 1)).toHaveLength(1);

    call(svc, 'POST', 'https://dns.example/records', { tags: { owner: 'x' } });
    expect(svc.byOwner('tags.owner')).toEqual([{ collection: 'records', owner: 'x', resources: [{ id: '6', tags: { owner: 'x' } }] }]);
  });

  it('supports out-of-band drift (mutate, remove) and hands out copies', () => {
    const svc = fakeRestService({ baseUrl: 'https://dns.example' });
    call(svc, 'POST', 'https://dns.example/records', { ip: '1.1.1.1' });
    expect(svc.mutate('records', '1', { ip: '6.6.6.6', id: 'nope' })).toBe(true);
    expect(svc.get('records', '1')).toEqual({ id: '1', ip: '6.6.6.6' });
    const copy = svc.resources('records')[0]!;
    copy['ip'] = 'changed';
    expect(svc.get('records', '1')!['ip']).toBe('6.6.6.6');
    expect(svc.remove('records', '1')).toBe(true);
    expect(svc.remove('records', '1')).toBe(false);
    expect(svc.mutate('records', '1', {})).toBe(false);
    expect(svc.resources()).toEqual([]);
  });

  it('starts with the resources it held before the run: first ids, not in history or createdCount', () => {
    const body = { name: 'vpn', owner: 'cluster-east' };
    const svc = fakeRestService({ baseUrl: 'https://dns.example', collections: ['records'], resources: { records: [{ name: 'mail' }, body] } });
    body.owner = 'changed later';
    expect(call(svc, 'GET', 'https://dns.example/records').body).toEqual([
      { id: '1', name: 'mail' },
      { id: '2', name: 'vpn', owner: 'cluster-east' },
    ]);
    expect(svc.history()).toEqual([]);
    expect(svc.createdCount).toBe(0);
    expect(call(svc, 'POST', 'https://dns.example/records', { name: 'www' }).body).toEqual({ id: '3', name: 'www' });
    expect(svc.history().map((h) => [h.op, h.id])).toEqual([['create', '3']]);
    expect(() => fakeRestService({ baseUrl: 'https://dns.example', collections: ['records'], resources: { zones: [{}] } })).toThrow(/resources names collection "zones", which is not among its collections/);
    expect(() => fakeRestService({ baseUrl: 'https://dns.example', resources: { records: [null as unknown as object] } })).toThrow(/resources\.records must be an array of JSON objects/);
  });

  it('refuses a PUT or PATCH that changes an immutable field with 422; drift (mutate) leaves it', () => {
    const svc = fakeRestService({ baseUrl: 'https://dns.example', immutableFields: ['zone'] });
    const { body } = call(svc, 'POST', 'https://dns.example/records', { zone: 'example.com', name: 'www', value: '1.2.3.4' });
    const id = (body as { id: string }).id;
    const url = `https://dns.example/records/${id}`;
    expect(call(svc, 'PATCH', url, { value: '5.6.7.8' }).status).toBe(200);
    const moved = call(svc, 'PATCH', url, { zone: 'example.org' });
    expect(moved.status).toBe(422);
    expect(moved.body).toEqual({ error: `zone cannot change once records/${id} exists (it is "example.com"); create a new resource for another zone` });
    expect(call(svc, 'PUT', url, { name: 'www', value: '5.6.7.8' }).status).toBe(422);
    expect(call(svc, 'PUT', url, { zone: 'example.com', name: 'www', value: '9.9.9.9' }).status).toBe(200);
    expect(svc.mutate('records', id, { zone: 'drifted.example', value: 'x' })).toBe(true);
    expect(svc.get('records', id)).toEqual({ id, zone: 'example.com', name: 'www', value: 'x' });
    expect(() => fakeRestService({ baseUrl: 'https://dns.example', immutableFields: ['spec.zone'] })).toThrow(/immutableFields holds top-level field names other than id/);
  });

  it('routes only its own URLs', () => {
    const svc = fakeRestService({ baseUrl: 'https://api.example/v1', collections: ['orders'] });
    expect(svc.route('https://api.example/v1/orders')).toMatchObject({ collection: 'orders', id: undefined, endpointPath: 'https://api.example/v1/orders' });
    expect(svc.route('https://api.example/v1/orders/7?x=1#f')).toMatchObject({ id: '7', query: 'x=1', endpointPath: 'https://api.example/v1/orders/:id' });
    expect(svc.route('https://api.example/v1/orders/7/items')).toBeUndefined();
    expect(svc.route('https://api.example/v1/users')).toBeUndefined();
    expect(svc.route('https://api.example/v1')).toBeUndefined();
    expect(svc.route('https://api.example/v10/orders')).toBeUndefined();
    expect(svc.route('https://api.example.org/v1/orders')).toBeUndefined();
  });

  it('validates options with messages that name the call', () => {
    expect(() => fakeRestService({ baseUrl: 'dns.example' })).toThrow(/steadystate\.fakeRestService: baseUrl "dns.example" is not an absolute URL/);
    expect(() => fakeRestService({ baseUrl: 'ftp://dns.example' })).toThrow(/http or https/);
    expect(() => fakeRestService({ baseUrl: 'https://x.example', collections: ['a/b'] })).toThrow(/single path segments/);
  });
});

describe('fakeRestService latencyMs (through createDownstream, on the virtual clock)', () => {
  const API = 'https://backup.example/v1';

  function world(latencyMs: number | undefined, decide?: (seq: number) => FetchDecision, timeoutMs?: number) {
    const kernel = new Kernel();
    const svc = fakeRestService({ baseUrl: API, ...(latencyMs === undefined ? {} : { latencyMs }) });
    const ds = createDownstream(hostFor(kernel, decide && ((i) => decide(i.seq))), { services: [svc], ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    return { kernel, svc, ds };
  }

  /** Look up by owner, create when missing: safe in one process, racy across two. */
  async function ensureSnapshot(ds: ReturnType<typeof world>['ds'], task: Task, actor: string): Promise<void> {
    const found = (await (await ds.fetch(task, actor, `${API}/snapshots?owner=db`)).json()) as unknown[];
    if (found.length === 0) await ds.fetch(task, actor, `${API}/snapshots`, { method: 'POST', body: '{"owner":"db"}' });
  }

  /** Replica 0 at t=0, replica 1 at t=50: two processes running the same check-then-create. */
  async function twoReplicas(latencyMs: number | undefined) {
    const w = world(latencyMs);
    const settled: unknown[] = [];
    for (const [replica, at] of [[0, 0], [1, 50]] as const) {
      w.kernel.at(at, () => {
        w.kernel.spawn(`replica-${replica}`, (task) => ensureSnapshot(w.ds, task, `replica-${replica}`), (e, failed) => failed && settled.push(e));
      });
    }
    await w.kernel.run(10_000);
    expect(settled).toEqual([]);
    return w;
  }

  it('defaults to 0: answers at the virtual time of the call', async () => {
    const { kernel, ds, svc } = world(undefined);
    expect(svc.options.latencyMs).toBe(0);
    const r = await runTask(kernel, async (task) => (await ds.fetch(task, 'ctl', `${API}/snapshots`)).status);
    expect(r).toEqual({ ok: true, value: 200, at: 0 });
    expect(ds.log[0]).toMatchObject({ t: 0, tEnd: 0, status: 200 });
    expect(ds.log[0]!.fault).toBeUndefined();
  });

  it('each request parks its caller for latencyMs of virtual time, then reaches the service (no fault recorded)', async () => {
    const { kernel, ds, svc } = world(200);
    const r = await runTask(kernel, async (task) => {
      const seen: number[] = [];
      const created = await ds.fetch(task, 'ctl', `${API}/snapshots`, { method: 'POST', body: '{"owner":"db"}' });
      seen.push(kernel.now(), svc.createdCount);
      await ds.fetch(task, 'ctl', `${API}/snapshots/1`);
      seen.push(kernel.now());
      return { status: created.status, seen };
    });
    expect(r).toEqual({ ok: true, value: { status: 201, seen: [200, 1, 400] }, at: 400 });
    expect(ds.log.map((x) => [x.t, x.tEnd, x.status, x.fault])).toEqual([
      [0, 200, 201, undefined],
      [200, 400, 200, undefined],
    ]);
  });

  it('makes two replicas overlap without a fault: check-then-create duplicates only with latency', async () => {
    // instant API: replica 1 (t=50) finds replica 0's snapshot
    const instant = await twoReplicas(0);
    expect(instant.svc.createdCount).toBe(1);
    // 200 ms API: replica 1's look-up (t=50..250) lands before replica 0's create (t=200..400)
    const slow = await twoReplicas(200);
    expect(slow.svc.createdCount).toBe(2);
    expect(slow.svc.byOwner()).toMatchObject([{ owner: 'db', resources: [{ id: '1' }, { id: '2' }] }]);
    const spans = slow.ds.log.map((x) => `${x.actor} ${x.method} ${x.t}-${x.tEnd}`).sort();
    expect(spans).toEqual(['replica-0 GET 0-200', 'replica-0 POST 200-400', 'replica-1 GET 50-250', 'replica-1 POST 250-450']);
  });

  it('adds to an injected latency; a sum at or past the client timeout times out before the service sees it', async () => {
    const sum = world(300, () => ({ type: 'latency', ms: 200 }));
    const ok = await runTask(sum.kernel, async (task) => (await sum.ds.fetch(task, 'ctl', `${API}/snapshots`, { method: 'POST', body: '{}' })).status);
    expect(ok).toEqual({ ok: true, value: 201, at: 500 });
    expect(sum.ds.log[0]).toMatchObject({ t: 0, tEnd: 500, fault: 'latency', applied: true });

    const late = world(600, () => ({ type: 'latency', ms: 400 }), 1_000);
    const timedOut = await runTask(late.kernel, (task) => late.ds.fetch(task, 'ctl', `${API}/snapshots`, { method: 'POST', body: '{}' }));
    expect(timedOut).toMatchObject({ ok: false, at: 1_000 });
    expect(late.svc.createdCount).toBe(0);
    expect(late.ds.log[0]).toMatchObject({ outcome: 'timeout', applied: false });

    const alone = world(1_000, undefined, 1_000);
    expect(await runTask(alone.kernel, (task) => alone.ds.fetch(task, 'ctl', `${API}/snapshots`, { method: 'POST', body: '{}' }))).toMatchObject({ ok: false, at: 1_000 });
    expect(alone.svc.createdCount).toBe(0);
  });

  it('does not delay answers a fault gives in the service\'s place (status, reset)', async () => {
    const { kernel, ds } = world(500, (seq) => (seq === 0 ? { type: 'status', status: 503 } : { type: 'reset' }));
    const r = await runTask(kernel, async (task) => {
      const first = (await ds.fetch(task, 'ctl', `${API}/snapshots`)).status;
      const second = await ds.fetch(task, 'ctl', `${API}/snapshots`).then(
        () => 'answered',
        () => 'reset',
      );
      return [first, second];
    });
    expect(r).toEqual({ ok: true, value: [503, 'reset'], at: 0 });
  });

  it('an abort during the latency rejects at once and the service never sees the request', async () => {
    const { kernel, ds, svc } = world(1_000);
    const controller = new AbortController();
    kernel.at(300, () => controller.abort(new Error('gave up')));
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${API}/snapshots`, { method: 'POST', body: '{}', signal: controller.signal }));
    expect(r).toMatchObject({ ok: false, at: 300 });
    expect(svc.createdCount).toBe(0);
    expect(ds.log[0]).toMatchObject({ outcome: 'aborted', applied: false });
  });

  it('rejects a negative or non-finite latencyMs with a message that names the call', () => {
    expect(() => fakeRestService({ baseUrl: API, latencyMs: -1 })).toThrow(/^steadystate\.fakeRestService: latencyMs must be a non-negative number of virtual ms, got -1/);
    expect(() => fakeRestService({ baseUrl: API, latencyMs: Number.NaN })).toThrow(/latencyMs .* got NaN/);
    expect(() => fakeRestService({ baseUrl: API, latencyMs: Infinity })).toThrow(/got Infinity/);
  });
});
