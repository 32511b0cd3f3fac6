import { describe, expect, it } from 'vitest';
import { SimResponse } from '../../../src/downstream/sim-response.js';

describe('SimResponse', () => {
  it('reads like a Response, once', async () => {
    const res = new SimResponse(201, '{"id":"1"}', [['Content-Type', 'application/json']], 'https://x.example/a');
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe('Created');
    expect(res.headers.get('content-type')).toBe('application/json');
    const copy = res.clone();
    expect(await res.json()).toEqual({ id: '1' });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(/Body is unusable/);
    expect(() => res.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe('{"id":"1"}');
  });

  it('has no body for 204 and fails json() like Response', async () => {
    const res = new SimResponse(204, null, [], 'https://x.example/a/1');
    expect(res.ok).toBe(true);
    await expect(res.json()).rejects.toThrow(SyntaxError);
    const err = new SimResponse(503, '{}', [['retry-after', '2']], 'u');
    expect(err.ok).toBe(false);
    expect([...err.headers]).toEqual([['retry-after', '2']]);
  });
});
