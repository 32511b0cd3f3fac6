import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore, type WriteRecord } from '../../src/store/store.js';
import { createKubeApi, type KubeApi, type KubeApiOptions } from '../../src/kube-rest/kube-api.js';
import type { KubeApiHost } from '../../src/kube-rest/kube-api-host.js';

/** A host whose timers run when the test advances the clock (no real time). */
export class ManualHost implements KubeApiHost {
  private t = 0;
  private timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  activityCount = 0;
  now(): number {
    return this.t;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }
  activity(): void {
    this.activityCount++;
  }
  /** Runs every timer due up to now + ms, in time order. */
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => !x.cancelled && x.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      this.t = due.at;
      due.fn();
    }
    this.t = until;
  }
}

export interface ApiFixture {
  store: ObjectStore;
  clock: VirtualClock;
  host: ManualHost;
  api: KubeApi;
  writes: WriteRecord[];
  /** Sends a request; `body` objects are sent as JSON. */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Headers }>;
}

export const BASE = 'http://kube.test';

export function apiFixture(options: Partial<KubeApiOptions> = {}): ApiFixture {
  const clock = new VirtualClock();
  const writes: WriteRecord[] = [];
  const store = new ObjectStore({ clock, onWrite: (w) => writes.push(w) });
  const host = new ManualHost();
  const api = createKubeApi({ store, host, ...options });
  return {
    store,
    clock,
    host,
    api,
    writes,
    async req(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const res = await api.handle(new Request(`${BASE}${path}`, init));
      const text = await res.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        // plain text (health checks)
      }
      return { status: res.status, json, headers: res.headers };
    },
  };
}

/** Collects the JSON lines of a streaming (watch) response in the background. */
export class WatchReader {
  readonly events: any[] = [];
  ended = false;
  private taken = 0;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  constructor(res: Response) {
    this.reader = res.body!.getReader();
    void this.pump();
  }
  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await this.reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let i: number;
        while ((i = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 1);
          if (line.trim() !== '') this.events.push(JSON.parse(line));
        }
      }
    } catch {
      // an errored (cut) stream ends like a closed one for the reader
    }
    this.ended = true;
  }
  /** Waits until `n` events arrived after the last take (or the stream ended, or 2 s passed); returns them. */
  async take(n = 1, timeoutMs = 2000): Promise<any[]> {
    const until = Date.now() + timeoutMs;
    while (this.events.length - this.taken < n && !this.ended && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    const out = this.events.slice(this.taken);
    this.taken = this.events.length;
    return out;
  }
  /** Waits for the end of the stream (or 2 s). */
  async end(timeoutMs = 2000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    return this.ended;
  }
  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

export const webAppResource = { group: 'example.com', version: 'v1', kind: 'WebApp', plural: 'webapps' };

export function configMap(name: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...((extra['metadata'] as object) ?? {}) }, data, ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')) };
}
