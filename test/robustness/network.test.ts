import { createServer, get as namedGet, type Server } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import * as dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAttack, words, type Attack } from './hostile.js';

/**
 * Issue 17 item 2: no request leaves the process, whatever the reconciler reaches for, and the
 * verdict names the request. A real server on 127.0.0.1 counts what reaches it: nothing may.
 */

/** Saved the way a module does at load, before any run patches the global. */
const savedFetch = globalThis.fetch;

let server: Server;
let udp: dgram.Socket;
let reached = 0;
let port = 0;
let udpPort = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('real'));
  server.on('connection', () => reached++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as net.AddressInfo).port;
  udp = dgram.createSocket('udp4');
  udp.on('message', () => reached++);
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  udpPort = udp.address().port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  udp.close();
});

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const settle = (p: Promise<unknown>) => p.then(() => undefined, () => undefined);
const request = (fn: (cb: () => void) => { on(ev: 'error', f: () => void): unknown }) =>
  new Promise<void>((resolve) => {
    fn(() => resolve()).on('error', () => resolve());
  });

const attacks: Attack[] = [
  {
    attack: 'a fetch saved at module load, before the run patched globalThis.fetch',
    reconcile: () => settle(savedFetch(url('/saved'))),
    property: 'isolation',
    says: [/reconcile of default\/thing-0.* sent GET http:\/\/127\.0\.0\.1:\d+\/saved through fetch/, /no simulated service answers it/],
  },
  {
    attack: 'node:http get (namespace import)',
    reconcile: () => request((cb) => http.get(url('/http'), cb)),
    property: 'isolation',
    says: [/sent GET http:\/\/127\.0\.0\.1:\d+\/http through node:http/],
  },
  {
    attack: 'node:http get (named import bound at load)',
    reconcile: () => request((cb) => namedGet(url('/named'), cb)),
    property: 'isolation',
    says: [/sent GET http:\/\/127\.0\.0\.1:\d+\/named through node:http/],
  },
  {
    attack: 'node:http POST with a body',
    reconcile: () =>
      new Promise<void>((resolve) => {
        const req = http.request(url('/post'), { method: 'POST' }, () => resolve());
        req.on('error', () => resolve());
        req.end('{"a":1}');
      }),
    property: 'isolation',
    says: [/sent POST http:\/\/127\.0\.0\.1:\d+\/post through node:http/],
  },
  {
    attack: 'node:https request',
    reconcile: () => request((cb) => https.get(`https://127.0.0.1:${port}/tls`, { rejectUnauthorized: false }, cb)),
    property: 'isolation',
    says: [/sent GET https:\/\/127\.0\.0\.1:\d+\/tls through node:https/],
  },
  {
    attack: 'node:net connect',
    reconcile: () => request((cb) => net.connect(port, '127.0.0.1', cb)),
    property: 'isolation',
    says: [/opened a connection to 127\.0\.0\.1:\d+ through node:net/],
  },
  {
    attack: 'node:tls connect',
    reconcile: () => request((cb) => tls.connect(port, '127.0.0.1', { rejectUnauthorized: false }, cb)),
    property: 'isolation',
    says: [/opened a connection to 127\.0\.0\.1:\d+ through node:tls/],
  },
  {
    attack: 'node:dgram send (a metrics client)',
    reconcile: () =>
      new Promise<void>((resolve) => {
        const s = dgram.createSocket('udp4');
        s.on('error', () => resolve());
        s.send('metric:1|c', udpPort, '127.0.0.1', () => {
          s.close();
          resolve();
        });
      }),
    property: 'isolation',
    says: [/sent a datagram to 127\.0\.0\.1:\d+ through node:dgram/],
  },
  {
    attack: 'the patched global fetch to a URL no simulated service answers',
    reconcile: () => settle(fetch(url('/global'))),
    property: 'isolation',
    says: [/sent GET http:\/\/127\.0\.0\.1:\d+\/global through globalThis\.fetch/],
  },
  {
    attack: 'ctx.fetch to a URL no simulated service answers',
    reconcile: (ctx) => settle(ctx.fetch(url('/ctx'))),
    property: 'isolation',
    says: [/reconcile of default\/thing-0 by hostile sent GET http:\/\/127\.0\.0\.1:\d+\/ctx through ctx\.fetch/],
  },
];

describe('hostile reconcilers cannot reach the network (issue 17 item 2)', () => {
  for (const a of attacks) {
    it(a.attack, async () => {
      reached = 0;
      const r = await runAttack(a);
      expect(reached, 'requests that reached the real server').toBe(0);
      expect(r.ok, 'the check must fail').toBe(false);
      if (r.ok) return;
      expect(r.property).toBe(a.property);
      for (const re of a.says) expect(words(r)).toMatch(re);
    });
  }
});
