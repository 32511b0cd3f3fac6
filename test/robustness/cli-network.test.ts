import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, runCli } from '../e2e/cli-helpers.js';

/**
 * Issue 17 item 2 through the real CLI: a module that saved `fetch` at load (before the CLI's
 * first run), node:http and node:net. Nothing reaches the server, the exit code is the verdict's.
 */
let server: Server;
let reached = 0;
let url = '';

beforeAll(async () => {
  server = createServer((_req, res) => res.end('real'));
  server.on('connection', () => reached++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('steadystate check: nothing leaves the process', () => {
  it('refuses every escape, names the first in the verdict and exits 1', async () => {
    const r = await runCli(['check', join(root, 'test/robustness/fixtures/escapes.ts'), '--runs', '2', '--seed', '1'], { env: { STEADYSTATE_ESCAPE_URL: url } });
    expect(reached, 'connections that reached the real server').toBe(0);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/isolation/);
    // the saved fetch is the CLI's pinned one: it routes into the run, which refuses it by URL
    expect(r.stdout).toMatch(/reconcile of default\/thing-0 by escapes sent GET http:\/\/127\.0\.0\.1:\d+\/saved through globalThis\.fetch; no simulated service answers it/);
  });
});
