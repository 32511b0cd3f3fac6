import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowNetwork, guardNetwork, NetworkRefusedError, type RefusedRequest } from '../../../src/downstream/net-guard.js';
import { createKubeApi } from '../../../src/kube-rest/kube-api.js';
import { startLoopback } from '../../../src/kube-rest/loopback.js';
import { ObjectStore } from '../../../src/store/store.js';
import { VirtualClock } from '../../../src/sim/clock.js';

async function withServer<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((_req, res) => res.end('real'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    return await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

describe('the network guard', () => {
  it('refuses while held, tells the holder, and lets everything through once released', async () => {
    await withServer(async (url) => {
      const told: RefusedRequest[] = [];
      const release = guardNetwork({ caller: () => 'me', refused: (r) => told.push(r) });
      const err = await fetch(`${url}/a`).then(() => undefined, (e: unknown) => e);
      release();
      expect((err as Error).cause).toBeInstanceOf(NetworkRefusedError);
      expect(told).toEqual([{ via: 'fetch', target: url.slice('http://'.length), method: 'GET', url: `${url}/a` }]);
      expect(await (await fetch(`${url}/b`)).text()).toBe('real');
    });
  });

  it('lets an allowed target through (a loopback API server is allowed while it is open)', async () => {
    await withServer(async (url) => {
      const release = guardNetwork();
      const disallow = allowNetwork((t) => t.port === Number(new URL(url).port));
      try {
        expect(await (await fetch(`${url}/ok`)).text()).toBe('real');
      } finally {
        disallow();
      }
      await expect(fetch(`${url}/no`)).rejects.toThrow('fetch failed');
      const loop = await startLoopback(createKubeApi({ store: new ObjectStore({ clock: new VirtualClock() }) }));
      try {
        expect((await fetch(`${loop.url}/api`)).status).toBe(200);
      } finally {
        await loop.close();
        release();
      }
    });
  });
});
