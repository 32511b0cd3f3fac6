import { http, HttpResponse, passthrough } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';
import { createDownstream, type Downstream } from '../../../src/downstream/intercept.js';
import { fakeRestService, type FakeRestService } from '../../../src/downstream/fake-rest-service.js';
import type { FetchDecision } from '../../../src/downstream/fetch-decision.js';
import { UnhandledRequestError } from '../../../src/downstream/errors.js';
import { SimResponse } from '../../../src/downstream/sim-response.js';
import { hostFor, lcg, runTask } from './driver.js';

const DNS = 'https://dns.example';
const post = (body: unknown, headers?: Record<string, string>): RequestInit => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});

function setup(decide?: (seq: number) => FetchDecision, timeoutMs?: number) {
  const kernel = new Kernel();
  const dns = fakeRestService({ baseUrl: DNS, idempotencyKeyHeader: 'Idempotency-Key' });
  const ds = createDownstream(hostFor(kernel, decide && ((info) => decide(info.seq))), {
    services: [dns],
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  return { kernel, dns, ds };
}

describe('createDownstream: fast path', () => {
  const saved = { Request: globalThis.Request, Response: globalThis.Response };
  afterEach(() => {
    globalThis.Request = saved.Request;
    globalThis.Response = saved.Response;
  });

  it('serves fake services without building a web Request or Response', async () => {
    let built = 0;
    globalThis.Request = class extends saved.Request {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        built++;
      }
    };
    globalThis.Response = class extends saved.Response {
      constructor(...args: ConstructorParameters<typeof Response>) {
        super(...args);
        built++;
      }
    };
    const { kernel, ds, dns } = setup();
    const r = await runTask(kernel, async (task) => {
      const created = await ds.fetch(task, 'ctl', `${DNS}/records`, post({ owner: 'web' }));
      const { id } = (await created.json()) as { id: string };
      const got = await ds.fetch(task, 'ctl', new URL(`${DNS}/records/${id}`));
      const patched = await ds.fetch(task, 'ctl', `${DNS}/records/${id}`, { method: 'PATCH', body: '{"ttl":5}' });
      const deleted = await ds.fetch(task, 'ctl', `${DNS}/records/${id}`, { method: 'delete' });
      return { created, got: await got.json(), patched: await patched.json(), deleted: deleted.status };
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.created).toBeInstanceOf(SimResponse);
    expect(r.value.created.status).toBe(201);
    expect(r.value.got).toEqual({ id: '1', owner: 'web' });
    expect(r.value.patched).toEqual({ id: '1', owner: 'web', ttl: 5 });
    expect(r.value.deleted).toBe(204);
    expect(built).toBe(0);
    expect(dns.createdCount).toBe(1);
    expect(r.at).toBe(0); // no virtual time passes without a fault
  });

  it('honours idempotency keys from any header form', async () => {
    const { kernel, ds, dns } = setup();
    await runTask(kernel, async (task) => {
      await ds.fetch(task, 'ctl', `${DNS}/records`, post({ owner: 'web' }, { 'idempotency-key': 'k' }));
      await ds.fetch(task, 'ctl', `${DNS}/records`, { method: 'POST', body: '{}', headers: [['Idempotency-Key', 'k']] });
      await ds.fetch(task, 'ctl', `${DNS}/records`, { method: 'POST', body: '{}', headers: new Headers({ 'IDEMPOTENCY-KEY': 'k' }) });
      await ds.fetch(task, 'ctl', new Request(`${DNS}/records`, { method: 'POST', body: '{}', headers: { 'Idempotency-Key': 'k' } }));
    });
    expect(dns.createdCount).toBe(1);
    expect(ds.log.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    // the log shows which answers were replays (properties read it: a key reused after a deletion)
    expect(ds.log.map((r) => r.responseHeaders?.['idempotent-replayed'] ?? null)).toEqual([null, 'true', 'true', 'true']);
    expect(ds.log.every((r) => r.responseHeaders?.['location'] === `${DNS}/records/1`)).toBe(true);
  });

  it('records every request with its fields', async () => {
    const { kernel, ds } = setup((seq) => (seq === 1 ? { type: 'latency', ms: 40 } : { type: 'pass' }));
    await runTask(kernel, async (task) => {
      await kernel.sleep(task, 10);
      await ds.fetch(task, 'dns-controller/0', `${DNS}/records`, post({ owner: 'a' }));
      await ds.fetch(task, 'dns-controller/0', `${DNS}/records/1?verbose=1`);
      await ds.fetch(task, 'dns-controller/0', `${DNS}/records/99`, { method: 'DELETE' });
    });
    expect(ds.log).toEqual([
      { seq: 0, t: 10, tEnd: 10, actor: 'dns-controller/0', method: 'POST', url: `${DNS}/records`, endpoint: `POST ${DNS}/records`, status: 201, outcome: 'ok', mutating: true, applied: true, responseHeaders: { 'content-type': 'application/json', location: `${DNS}/records/1` } },
      {
        seq: 1, t: 10, tEnd: 50, actor: 'dns-controller/0', method: 'GET', url: `${DNS}/records/1?verbose=1`, endpoint: `GET ${DNS}/records/:id`,
        status: 200, outcome: 'ok', mutating: false, fault: 'latency', applied: true, responseHeaders: { 'content-type': 'application/json' },
      },
      { seq: 2, t: 50, tEnd: 50, actor: 'dns-controller/0', method: 'DELETE', url: `${DNS}/records/99`, endpoint: `DELETE ${DNS}/records/:id`, status: 404, outcome: 'http-error', mutating: true, applied: true, responseHeaders: { 'content-type': 'application/json' } },
    ]);
  });

  it('calls onRecord for each record', async () => {
    const kernel = new Kernel();
    const seen: string[] = [];
    const ds = createDownstream({ ...hostFor(kernel), onRecord: (r) => seen.push(`${r.seq}:${r.outcome}`) }, { services: [fakeRestService({ baseUrl: DNS })] });
    await runTask(kernel, async (task) => {
      await ds.fetch(task, 'a', `${DNS}/records`);
      await ds.fetch(task, 'a', 'https://nowhere.example/x').catch(() => undefined);
    });
    expect(seen).toEqual(['0:ok', '1:unhandled']);
  });
});

describe('createDownstream: options', () => {
  it('routes to the most specific base URL and keeps the services in the order given', async () => {
    const kernel = new Kernel();
    const root = fakeRestService({ baseUrl: 'https://api.example', name: 'root' });
    const v2 = fakeRestService({ baseUrl: 'https://api.example/v2', name: 'v2' });
    const ds = createDownstream(kernel, { services: [root, v2] });
    await runTask(kernel, async (task) => {
      await ds.fetch(task, 'a', 'https://api.example/v2/things', post({}));
      await ds.fetch(task, 'a', 'https://api.example/things', post({}));
    });
    expect([root.createdCount, v2.createdCount]).toEqual([1, 1]);
    expect(ds.services.map((s) => s.name)).toEqual(['root', 'v2']);
  });

  it('validates options with messages that name the call', () => {
    const kernel = new Kernel();
    expect(() => createDownstream(kernel, { timeoutMs: 0 })).toThrow(/steadystate\.createDownstream: timeoutMs must be a positive/);
    const a = fakeRestService({ baseUrl: DNS });
    expect(() => createDownstream(kernel, { services: [a, fakeRestService({ baseUrl: `${DNS}/` })] })).toThrow(/share baseUrl/);
  });
});

describe('createDownstream: fault decisions', () => {
  it('status: answers with the status and Retry-After without reaching the service', async () => {
    const { kernel, ds, dns } = setup(() => ({ type: 'status', status: 429, retryAfterSeconds: 3 }));
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, post({})));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.status).toBe(429);
    expect(r.value.ok).toBe(false);
    expect(r.value.headers.get('Retry-After')).toBe('3');
    expect(dns.createdCount).toBe(0);
    expect(ds.log[0]).toMatchObject({ status: 429, outcome: 'http-error', fault: 'status', applied: false, responseHeaders: { 'content-type': 'application/json', 'retry-after': '3' } });
  });

  it('latency: advances virtual time only', async () => {
    const { kernel, ds, dns } = setup(() => ({ type: 'latency', ms: 600_000 }), 3_600_000);
    const wallStart = performance.now();
    const r = await runTask(kernel, async (task) => (await ds.fetch(task, 'ctl', `${DNS}/records`, post({}))).status);
    expect(performance.now() - wallStart).toBeLessThan(5_000);
    expect(r).toEqual({ ok: true, value: 201, at: 600_000 });
    expect(dns.createdCount).toBe(1);
    expect(ds.log[0]).toMatchObject({ t: 0, tEnd: 600_000, fault: 'latency', applied: true });
  });

  it('latency beyond the timeout times out', async () => {
    const { kernel, ds, dns } = setup(() => ({ type: 'latency', ms: 50_000 }), 1_000);
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, post({})));
    expect(r.ok).toBe(false);
    expect(r.at).toBe(1_000);
    expect(dns.createdCount).toBe(0);
    expect(ds.log[0]).toMatchObject({ outcome: 'timeout', fault: 'latency', applied: false });
  });

  it('hang: rejects with TimeoutError after timeoutMs of virtual time (default 30 s)', async () => {
    const { kernel, ds, dns } = setup(() => ({ type: 'hang' }));
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, post({})));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect((r.error as Error).name).toBe('TimeoutError');
    expect((r.error as Error).message).toMatch(/POST https:\/\/dns\.example\/records got no response within 30000 ms/);
    expect(r.at).toBe(30_000);
    expect(dns.createdCount).toBe(0);
    expect(ds.log[0]).toMatchObject({ t: 0, tEnd: 30_000, status: 0, outcome: 'timeout', fault: 'hang', applied: false });
  });

  it('hang: an AbortSignal ends the wait early', async () => {
    const { kernel, ds } = setup(() => ({ type: 'hang' }));
    const ac = new AbortController();
    kernel.after(500, () => ac.abort());
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, { signal: ac.signal }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect((r.error as Error).name).toBe('AbortError');
    expect(r.at).toBe(500);
    expect(ds.log[0]).toMatchObject({ tEnd: 500, outcome: 'aborted', applied: false });
  });

  it('a call without a task (a hosted program, a global fetch) is answered when its latency ends, not when the kernel next yields', async () => {
    const kernel = new Kernel();
    const dns = fakeRestService({ baseUrl: DNS, latencyMs: 50 });
    const ds = createDownstream(hostFor(kernel), { services: [dns] });
    const heard: string[] = [];
    const ac = new AbortController();
    kernel.at(100, () => {
      // code outside any kernel task: nothing but the downstream can tell the kernel it waits
      void ds.fetch(undefined, 'unknown', `${DNS}/records`, post({})).then((r) => heard.push(`${r.status} at ${kernel.now()}`));
      void ds.fetch(undefined, 'unknown', `${DNS}/records`, { signal: ac.signal }).catch((e: Error) => heard.push(`${e.name} at ${kernel.now()}`));
    });
    kernel.at(120, () => ac.abort());
    kernel.at(5_000, () => undefined);
    await kernel.run(10_000);
    expect(heard).toEqual(['AbortError at 120', '201 at 150']);
    expect(ds.log.map((r) => `${r.outcome} ${r.t}-${r.tEnd}`)).toEqual(['aborted 100-120', 'ok 100-150']);
  });

  it('an already aborted signal rejects at once', async () => {
    const { kernel, ds, dns } = setup();
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, { ...post({}), signal: AbortSignal.abort() }));
    expect(r.ok).toBe(false);
    expect(dns.createdCount).toBe(0);
    expect(ds.log[0]?.outcome).toBe('aborted');
  });

  it('reset: rejects like undici without reaching the service', async () => {
    const { kernel, ds, dns } = setup(() => ({ type: 'reset' }));
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', `${DNS}/records`, post({})));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(TypeError);
    expect((r.error as Error).message).toBe('fetch failed');
    expect(((r.error as Error).cause as { code: string }).code).toBe('ECONNRESET');
    expect(dns.createdCount).toBe(0);
    expect(ds.log[0]).toMatchObject({ status: 0, outcome: 'reset', fault: 'reset', applied: false });
  });

  it('applied-but-lost: the service changes, the caller gets a reset', async () => {
    const { kernel, ds, dns } = setup((seq) => (seq === 0 ? { type: 'applied-but-lost' } : { type: 'pass' }));
    const r = await runTask(kernel, async (task) => {
      // A naive retry without an idempotency key creates a duplicate: the bug this fault exposes.
      try {
        await ds.fetch(task, 'ctl', `${DNS}/records`, post({ owner: 'web' }));
      } catch (err) {
        await ds.fetch(task, 'ctl', `${DNS}/records`, post({ owner: 'web' }));
        throw err;
      }
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(((r.error as Error).cause as { code: string }).code).toBe('ECONNRESET');
    expect(dns.createdCount).toBe(2);
    expect(dns.byOwner().filter((g) => g.resources.length > 1)).toHaveLength(1);
    expect(ds.log[0]).toMatchObject({ status: 0, outcome: 'reset', fault: 'applied-but-lost', applied: true });
  });

  it('applied-but-lost with an idempotency key does not duplicate', async () => {
    const { kernel, ds, dns } = setup((seq) => (seq === 0 ? { type: 'applied-but-lost' } : { type: 'pass' }));
    const init = post({ owner: 'web' }, { 'Idempotency-Key': 'web-create' });
    const r = await runTask(kernel, async (task) => {
      await ds.fetch(task, 'ctl', `${DNS}/records`, init).catch(() => undefined);
      return (await ds.fetch(task, 'ctl', `${DNS}/records`, init)).json();
    });
    expect(r).toMatchObject({ ok: true, value: { id: '1', owner: 'web' } });
    expect(dns.createdCount).toBe(1);
  });
});

describe('createDownstream: unhandled requests', () => {
  it('rejects with a message naming the URL and the fix', async () => {
    const { kernel, ds } = setup();
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', 'https://billing.example/v1/invoices/77?expand=1'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(UnhandledRequestError);
    const msg = (r.error as Error).message;
    expect(msg).toContain('steadystate.downstream: no handler for GET https://billing.example/v1/invoices/77?expand=1');
    expect(msg).toContain("add an msw handler (e.g. http.get('https://billing.example/v1/invoices/77', …))");
    expect(msg).toContain("fakeRestService({ baseUrl: 'https://billing.example' }) for https://billing.example");
    expect(ds.log[0]).toMatchObject({ endpoint: 'GET https://billing.example/v1/invoices/:id', outcome: 'unhandled', status: 0, applied: false });
  });

  it('is still an error when a fault would have answered in its place', async () => {
    const kernel = new Kernel();
    const ds = createDownstream(hostFor(kernel, () => ({ type: 'status', status: 503 })), {
      handlers: [http.get('https://status.example/health', () => HttpResponse.json({ up: true }))],
    });
    const r = await runTask(kernel, async (task) => {
      const injected = await ds.fetch(task, 'ctl', 'https://status.example/health');
      expect(injected.status).toBe(503);
      return ds.fetch(task, 'ctl', 'https://status.example/other');
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(UnhandledRequestError);
  });

  it('rejects relative URLs the way fetch does', async () => {
    const { kernel, ds } = setup();
    const r = await runTask(kernel, (task) => ds.fetch(task, 'ctl', '/records'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect((r.error as Error).message).toBe('Failed to parse URL from /records');
  });
});

describe('createDownstream: msw handlers', () => {
  const handlers = [
    http.get('https://status.example/items/:id', ({ params }) => HttpResponse.json({ id: params['id'], up: true })),
    http.post('https://status.example/items', async ({ request }) => HttpResponse.json({ got: await request.json() }, { status: 201 })),
    http.get('https://status.example/boom', () => {
      throw new Error('handler bug');
    }),
    http.get('https://status.example/down', () => HttpResponse.error()),
    http.get('https://status.example/real', () => passthrough()),
  ];

  function mswSetup(decide?: (seq: number) => FetchDecision): { kernel: Kernel; ds: Downstream; dns: FakeRestService } {
    const kernel = new Kernel();
    const dns = fakeRestService({ baseUrl: DNS });
    const ds = createDownstream(hostFor(kernel, decide && ((i) => decide(i.seq))), { services: [dns], handlers });
    return { kernel, ds, dns };
  }

  it('serves through the handlers with real Responses', async () => {
    const { kernel, ds } = mswSetup();
    const r = await runTask(kernel, async (task) => {
      const a = await ds.fetch(task, 'ctl', 'https://status.example/items/12345');
      const b = await ds.fetch(task, 'ctl', 'https://status.example/items', { method: 'POST', body: '{"x":1}' });
      return [a instanceof Response, await a.json(), b.status, await b.json()];
    });
    expect(r).toEqual({ ok: true, value: [true, { id: '12345', up: true }, 201, { got: { x: 1 } }], at: 0 });
    expect(ds.log.map((x) => [x.endpoint, x.status, x.outcome, x.responseHeaders?.['content-type']])).toEqual([
      ['GET https://status.example/items/:id', 200, 'ok', 'application/json'],
      ['POST https://status.example/items', 201, 'ok', 'application/json'],
    ]);
  });

  it('turns a throwing handler into a 500, HttpResponse.error() into a network error, passthrough() into unhandled', async () => {
    const { kernel, ds } = mswSetup();
    const r = await runTask(kernel, async (task) => {
      const boom = await ds.fetch(task, 'ctl', 'https://status.example/boom');
      const down = await ds.fetch(task, 'ctl', 'https://status.example/down').catch((e: unknown) => e);
      const real = await ds.fetch(task, 'ctl', 'https://status.example/real').catch((e: unknown) => e);
      return [boom.status, ((await boom.json()) as { message: string }).message, down, real];
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value[0]).toBe(500);
    expect(r.value[1]).toMatch(/handler bug/);
    expect(r.value[2]).toBeInstanceOf(TypeError);
    expect((r.value[3] as Error).message).toMatch(/passthrough\(\)/);
    expect(ds.log.map((x) => x.outcome)).toEqual(['http-error', 'reset', 'unhandled']);
  });

  it('applies decisions to handler requests too', async () => {
    const { kernel, ds } = mswSetup((seq) => (seq === 0 ? { type: 'latency', ms: 75 } : { type: 'applied-but-lost' }));
    const r = await runTask(kernel, async (task) => {
      const a = await ds.fetch(task, 'ctl', 'https://status.example/items/1');
      const b = await ds.fetch(task, 'ctl', 'https://status.example/items/2').catch((e: unknown) => e);
      return [a.status, b instanceof TypeError];
    });
    expect(r).toEqual({ ok: true, value: [200, true], at: 75 });
    expect(ds.log[1]).toMatchObject({ outcome: 'reset', fault: 'applied-but-lost', applied: true });
  });
});

describe('createDownstream: determinism', () => {
  async function scriptedRun(seed: number) {
    const rand = lcg(seed);
    const kernel = new Kernel();
    const dns = fakeRestService({ baseUrl: DNS });
    const decide = (): FetchDecision => {
      const x = rand();
      if (x < 0.1) return { type: 'status', status: 503, retryAfterSeconds: 1 };
      if (x < 0.2) return { type: 'latency', ms: Math.floor(rand() * 1000) };
      if (x < 0.25) return { type: 'hang' };
      if (x < 0.3) return { type: 'reset' };
      if (x < 0.35) return { type: 'applied-but-lost' };
      return { type: 'pass' };
    };
    const ds = createDownstream(hostFor(kernel, decide), { services: [dns], timeoutMs: 2_000 });
    for (let w = 0; w < 3; w++) {
      kernel.spawn(
        `worker-${w}`,
        async (task) => {
          for (let i = 0; i < 20; i++) {
            const res = await ds.fetch(task, `w${w}`, `${DNS}/records`, post({ owner: `o${i % 4}` })).catch(() => undefined);
            if (res?.ok) await ds.fetch(task, `w${w}`, `${DNS}/records/${((await res.json()) as { id: string }).id}`).catch(() => undefined);
            await kernel.sleep(task, 10 * (w + 1));
          }
        },
        () => undefined,
      );
    }
    await kernel.run(1_000_000);
    return { log: ds.log, resources: dns.resources() };
  }

  it('same inputs give the same log and state', async () => {
    const a = await scriptedRun(7);
    const b = await scriptedRun(7);
    expect(a.log.length).toBeGreaterThan(60);
    expect(new Set(a.log.map((r) => r.fault ?? 'pass')).size).toBeGreaterThan(3);
    expect(b).toEqual(a);
  });
});
