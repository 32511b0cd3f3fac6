import { describe, expect, it } from 'vitest';
import { fakeRestService, type FakeRestService } from '../../../src/downstream/fake-rest-service.js';

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
