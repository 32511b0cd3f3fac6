/**
 * The socket-level guard (SPEC §2.3): while a run (or a CLI command) holds it, no connection
 * leaves the process, whatever a reconciler reaches for. Every TCP, TLS and IPC client socket
 * of node goes through `net.Socket.prototype.connect` (node:net, node:tls, node:http(s),
 * http2 and undici, so also a `fetch` saved before a run patched `globalThis.fetch`), and every
 * datagram through `dgram.Socket.prototype.send`: the guard patches those two, once, and refuses
 * what no allow rule (a loopback API server of ours, tsx's channel to its parent) lets through.
 * The caller gets an `ECONNREFUSED` error naming the request; the holder of the guard (the run)
 * is told, so the verdict can name it too.
 *
 * Known limits: a connection opened before the guard was held and kept alive is not cut;
 * `dns` lookups, child processes and worker threads started by user code are not guarded.
 */
import { subscribe } from 'node:diagnostics_channel';
import dgram from 'node:dgram';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { realSetImmediate } from '../sim/globals.js';

/** Where a refused request was going and how it was sent. @public */
export interface RefusedRequest {
  /**
   * The API that sent it: `'fetch'` is node's own fetch reached without our patch (a copy saved
   * before the run, or undici), `'globalThis.fetch'` and `'ctx.fetch'` the simulation's fetch.
   */
  via: 'fetch' | 'globalThis.fetch' | 'ctx.fetch' | 'node:http' | 'node:https' | 'node:net' | 'node:tls' | 'node:dgram';
  /** `host:port`, or the socket path. */
  target: string;
  /** For HTTP requests. */
  method?: string;
  url?: string;
}

/** A connection or datagram about to leave the process, as allow rules see it. @public */
export interface NetworkTarget {
  protocol: 'tcp' | 'udp' | 'ipc';
  host?: string;
  port?: number;
  /** IPC socket path. */
  path?: string;
}

/** Who holds the guard and wants to hear about refusals (a run). @internal */
export interface GuardSink {
  /** Describes the code running now, called synchronously at the refused call; undefined when none of this holder's. */
  caller(): string | undefined;
  refused(request: RefusedRequest, caller: string | undefined): void;
}

/**
 * The error a refused connection fails with: a system error like the one a closed port gives
 * (`code: 'ECONNREFUSED'`), so client code takes its usual error path.
 * @public
 */
export class NetworkRefusedError extends Error {
  readonly code = 'ECONNREFUSED';
  readonly errno = -111;
  readonly syscall = 'connect';
  constructor(readonly request: RefusedRequest) {
    super(`steadystate refused this: the code ${describeRefused(request)}, and no request may leave the process during a simulation. Call simulated services through ctx.fetch (a fakeRestService or an msw handler answers them) and the cluster through ctx.client.`);
    this.name = 'NetworkRefusedError';
  }
}

/** What the caller did, in words: "sent GET http://… through node:http", "opened a connection to h:p through node:net". @public */
export function describeRefused(r: RefusedRequest): string {
  if (r.method !== undefined && r.url !== undefined) return `sent ${r.method} ${r.url} through ${r.via}`;
  if (r.via === 'node:dgram') return `sent a datagram to ${r.target} through node:dgram`;
  return `opened a connection to ${r.target} through ${r.via}`;
}

let holds = 0;
const sinks: GuardSink[] = [];
const rules = new Set<(t: NetworkTarget) => boolean>();
let installed = false;

/**
 * Holds the guard until the returned function is called (safe to call twice). With a sink,
 * refusals made while it holds are reported to it.
 * @internal
 */
export function guardNetwork(sink?: GuardSink): () => void {
  install();
  holds++;
  if (sink) sinks.push(sink);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    if (sink) sinks.splice(sinks.indexOf(sink), 1);
  };
}

/**
 * Lets connections through that `test` accepts, until the returned function is called: a
 * simulated service served over a real socket (`startLoopback`'s port) registers here.
 * @public
 */
export function allowNetwork(test: (target: NetworkTarget) => boolean): () => void {
  const rule = (t: NetworkTarget) => test(t);
  rules.add(rule);
  return () => void rules.delete(rule);
}

/** Whether the guard is held now. @internal */
export function networkGuarded(): boolean {
  return holds > 0;
}

/** tsx's loader talks to a parent `tsx` process over this pipe: the CLI's own channel. */
const tsxPipes = join(tmpdir(), 'tsx-');

function allowed(t: NetworkTarget): boolean {
  if (t.protocol === 'ipc' && t.path?.startsWith(tsxPipes)) return true;
  for (const rule of rules) if (rule(t)) return true;
  return false;
}

/** The holders at a refused call, with who of theirs was running then. */
type Callers = { sink: GuardSink; caller: string | undefined }[];

function callersNow(): Callers {
  return sinks.map((sink) => ({ sink, caller: sink.caller() }));
}

/** Tells the holders: those whose code was running get it; when none was, the newest holder. */
function report(request: RefusedRequest, callers: Callers): void {
  let told = false;
  for (const { sink, caller } of callers) {
    if (caller === undefined || !sinks.includes(sink)) continue;
    told = true;
    sink.refused(request, caller);
  }
  if (!told && sinks.length > 0) sinks[sinks.length - 1]!.refused(request, undefined);
}

/** A fetch of node's own undici, seen on its diagnostics channel before it connects. */
interface PendingFetch {
  method: string;
  url: string;
  hostPort: string;
  callers: Callers;
}
const pendingFetches: PendingFetch[] = [];

function install(): void {
  if (installed) return;
  installed = true;
  const realConnect = net.Socket.prototype.connect as unknown as (this: net.Socket, ...args: unknown[]) => net.Socket;
  (net.Socket.prototype as { connect: unknown }).connect = function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
    if (holds === 0) return realConnect.apply(this, args);
    const target = connectTarget(args);
    if (allowed(target)) return realConnect.apply(this, args);
    const hostPort = target.path ?? joinHostPort(target.host ?? 'localhost', target.port ?? 0);
    const pending = takePending(hostPort);
    const callers = pending?.callers ?? callersNow();
    // writes buffer as on a connecting socket; the error comes a macrotask later, once an http
    // request has attached itself (so it can be named)
    (this as { connecting: boolean }).connecting = true;
    realSetImmediate(() => {
      const request = pending ? { via: 'fetch' as const, target: hostPort, method: pending.method, url: pending.url } : describeSocket(this, hostPort);
      report(request, callers);
      this.destroy(new NetworkRefusedError(request));
    });
    return this;
  };

  const realSend = dgram.Socket.prototype.send as unknown as (this: dgram.Socket, ...args: unknown[]) => void;
  (dgram.Socket.prototype as { send: unknown }).send = function guardedSend(this: dgram.Socket, ...args: unknown[]): void {
    if (holds === 0) return realSend.apply(this, args);
    const rest = args.slice(1);
    const callback = typeof rest[rest.length - 1] === 'function' ? (rest.pop() as (err: Error | null) => void) : undefined;
    const [port, address] = typeof rest[0] === 'number' && typeof rest[1] === 'number' && rest.length >= 3 ? [rest[2], rest[3]] : [rest[0], rest[1]];
    let target: NetworkTarget;
    if (typeof port === 'number') target = { protocol: 'udp', host: typeof address === 'string' ? address : 'localhost', port };
    else {
      let remote: { address: string; port: number } | undefined;
      try {
        remote = this.remoteAddress();
      } catch {
        remote = undefined;
      }
      target = { protocol: 'udp', host: remote?.address ?? 'unknown', port: remote?.port ?? 0 };
    }
    if (allowed(target)) return realSend.apply(this, args);
    const callers = callersNow();
    const request: RefusedRequest = { via: 'node:dgram', target: joinHostPort(target.host!, target.port!) };
    realSetImmediate(() => {
      report(request, callers);
      const err = new NetworkRefusedError(request);
      if (callback) callback(err);
      else this.emit('error', err);
    });
  };

  subscribe('undici:request:create', (message) => {
    if (holds === 0) return;
    const request = (message as { request?: { method?: unknown; origin?: unknown; path?: unknown } }).request;
    if (!request || typeof request.method !== 'string') return;
    let origin: URL;
    try {
      origin = new URL(String(request.origin));
    } catch {
      return;
    }
    const port = origin.port !== '' ? Number(origin.port) : origin.protocol === 'https:' ? 443 : 80;
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    pendingFetches.push({ method: request.method, url: `${origin.origin}${typeof request.path === 'string' ? request.path : ''}`, hostPort: joinHostPort(host, port), callers: callersNow() });
    if (pendingFetches.length > 64) pendingFetches.shift();
  });
}

function takePending(hostPort: string): PendingFetch | undefined {
  const i = pendingFetches.findIndex((p) => p.hostPort === hostPort);
  return i < 0 ? undefined : pendingFetches.splice(i, 1)[0];
}

/** The target of `socket.connect(...)` in any of its call forms (node passes normalized args as an array). */
function connectTarget(args: unknown[]): NetworkTarget {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first !== null && typeof first === 'object') {
    const o = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof o.path === 'string' && o.path !== '') return { protocol: 'ipc', path: o.path };
    return { protocol: 'tcp', host: typeof o.host === 'string' ? o.host : 'localhost', port: Number(o.port) };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { protocol: 'ipc', path: first };
  const host = Array.isArray(args[0]) ? undefined : args[1];
  return { protocol: 'tcp', host: typeof host === 'string' ? host : 'localhost', port: Number(first) };
}

/** An http(s) request that attached itself to the socket, else the bare connection. */
function describeSocket(socket: net.Socket, hostPort: string): RefusedRequest {
  const tlsSocket = socket instanceof tls.TLSSocket;
  const m = (socket as { _httpMessage?: { method?: unknown; path?: unknown; protocol?: unknown } })._httpMessage;
  if (m && typeof m.method === 'string' && typeof m.path === 'string') {
    const protocol = typeof m.protocol === 'string' ? m.protocol : tlsSocket ? 'https:' : 'http:';
    const defaultPort = protocol === 'https:' ? ':443' : ':80';
    const authority = hostPort.endsWith(defaultPort) ? hostPort.slice(0, -defaultPort.length) : hostPort;
    return { via: protocol === 'https:' ? 'node:https' : 'node:http', target: hostPort, method: m.method, url: `${protocol}//${authority}${m.path}` };
  }
  return { via: tlsSocket ? 'node:tls' : 'node:net', target: hostPort };
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
