import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowNetwork } from '../downstream/net-guard.js';
import type { KubeApi } from './kube-api.js';
import { kubeconfigFor } from './kubeconfig.js';
import { watchResponses } from './watch-stream.js';

/** Options of {@link startLoopback}. @public */
export interface LoopbackOptions {
  /** TCP port; 0 picks a free one. @defaultValue 0 */
  port?: number;
}

/** A running loopback API server. @public */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** A kubeconfig (JSON text) pointing at this server; `token` from `api.issueToken(actor)`. */
  kubeconfig(options?: { token?: string; namespace?: string }): string;
  /** Writes {@link LoopbackServer.kubeconfig} to `path`; returns the path. */
  writeKubeconfig(path: string, options?: { token?: string; namespace?: string }): Promise<string>;
  /** Stops accepting, cuts open watches and resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves `api` over plain HTTP on 127.0.0.1 (random port by default), for clients msw cannot
 * intercept: `kubectl`, `@kubernetes/client-node` 2.x (undici), controllers in other languages.
 * Watch streams flush their headers at once; a watch-cut fault destroys the client's socket.
 * Requests cross a real socket, so runs through it are not deterministic in virtual time.
 * @example
 * const server = await startLoopback(createKubeApi({ store }));
 * await server.writeKubeconfig('/tmp/kubeconfig');   // kubectl --kubeconfig /tmp/kubeconfig get pods
 * @public
 */
export async function startLoopback(api: KubeApi, options: LoopbackOptions = {}): Promise<LoopbackServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`steadystate.startLoopback: port must be an integer in 0..65535 (0 picks a free one), got ${JSON.stringify(options.port)}`);
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    serve(api, req, res, base).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${actual}`;
  // a simulated service on a real socket: the network guard of a run lets its clients through
  const disallow = allowNetwork((t) => t.protocol === 'tcp' && t.port === actual && (t.host === '127.0.0.1' || t.host === 'localhost'));
  return {
    url: base,
    port: actual,
    kubeconfig: (o = {}) => kubeconfigFor({ server: base, ...o }),
    async writeKubeconfig(path, o = {}) {
      await writeFile(path, kubeconfigFor({ server: base, ...o }), 'utf8');
      return path;
    },
    close: () =>
      new Promise<void>((resolve) => {
        disallow();
        api.endWatches('cut');
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serve(api: KubeApi, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
  const aborted = new AbortController();
  res.once('close', () => aborted.abort());
  const chunks: Buffer[] = [];
  if (req.method !== 'GET' && req.method !== 'HEAD') for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  const request = new Request(new URL(req.url ?? '/', base), {
    method: req.method ?? 'GET',
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  const response = await api.handle(request, { signal: aborted.signal, cut: () => req.socket.destroy(), fail: () => req.socket.destroy() });
  if (res.destroyed) return;
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((v, k) => (outHeaders[k] = v));
  res.writeHead(response.status, outHeaders);
  if (response.body === null) {
    res.end();
    return;
  }
  if (watchResponses.has(response)) res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value) && !res.destroyed) await new Promise<void>((r) => res.once('drain', () => r()).once('close', () => r()));
    if (res.destroyed) return;
  }
  res.end();
}
