import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';
import { createDownstream } from '../../../src/downstream/intercept.js';
import { fakeRestService } from '../../../src/downstream/fake-rest-service.js';
import { installGlobalFetch, originalFetch } from '../../../src/downstream/install-global-fetch.js';
import { hostFor, runTask } from './driver.js';

const DNS = 'https://dns.example';

function setup() {
  const kernel = new Kernel();
  const dns = fakeRestService({ baseUrl: DNS });
  const ds = createDownstream(hostFor(kernel, (i) => (i.seq === 1 ? { type: 'latency', ms: 100 } : { type: 'pass' })), { services: [dns] });
  return { kernel, dns, ds };
}

describe('installGlobalFetch', () => {
  const before = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = before;
  });

  it('routes the global fetch to the downstream until restored', async () => {
    const { kernel, ds, dns } = setup();
    const restore = installGlobalFetch(ds, () => 'global-user');
    try {
      const r = await runTask(kernel, async () => {
        const res = await fetch(`${DNS}/records`, { method: 'POST', body: '{"owner":"x"}' });
        await fetch(`${DNS}/records/1`); // parked on the virtual clock without a task
        return res.status;
      });
      expect(r).toEqual({ ok: true, value: 201, at: 100 });
    } finally {
      restore();
    }
    expect(globalThis.fetch).toBe(before);
    expect(dns.createdCount).toBe(1);
    expect(ds.log.map((x) => x.actor)).toEqual(['global-user', 'global-user']);
  });

  it('is restored when the run throws (restore in finally)', async () => {
    const { ds } = setup();
    async function failingRun(): Promise<void> {
      const restore = installGlobalFetch(ds, () => 'a');
      try {
        expect(globalThis.fetch).not.toBe(before);
        throw new Error('run failed');
      } finally {
        restore();
      }
    }
    await expect(failingRun()).rejects.toThrow('run failed');
    expect(globalThis.fetch).toBe(before);
  });

  it('restores at most once and never chains onto a leftover patch', () => {
    const { ds } = setup();
    const leaked = installGlobalFetch(ds, () => 'a');
    const restore = installGlobalFetch(ds, () => 'b');
    restore();
    expect(globalThis.fetch).toBe(originalFetch);
    globalThis.fetch = before;
    restore();
    expect(globalThis.fetch).toBe(before);
    leaked();
    expect(globalThis.fetch).toBe(before);
  });
});
