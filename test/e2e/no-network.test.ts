import { describe, expect, it } from 'vitest';
import { defineController, simulate } from '../../src/index.js';
import { scenario } from '../helpers/fixtures.js';

describe('no request leaves the process', () => {
  it('without any downstream configured, global fetch and ctx.fetch fail with a message naming the URL and the fix', async () => {
    const errors: string[] = [];
    const c = defineController({
      name: 'c',
      for: 'Thing',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        for (const call of [() => fetch('https://example.com/real'), () => ctx.fetch('https://example.com/ctx')]) {
          try {
            await call();
            errors.push('reached the network');
          } catch (err) {
            errors.push((err as Error).message);
          }
        }
      },
    });
    const before = globalThis.fetch;
    const { run } = await simulate(scenario({ controllers: [{ name: 'c' }], initialObjects: [{ kind: 'Thing', metadata: { name: 'a' }, spec: {} }] }), { controllers: [c], tailMs: 0 });
    expect(globalThis.fetch).toBe(before);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('https://example.com/real');
    expect(errors[1]).toContain('https://example.com/ctx');
    for (const e of errors) expect(e).toMatch(/fakeRestService|msw handler/);
    expect(run.requests.map((r) => r.outcome)).toEqual(['unhandled', 'unhandled']);
  });
});
