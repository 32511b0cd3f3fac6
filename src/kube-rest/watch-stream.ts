import { GoneError } from '../store/errors.js';
import { keyOf, type JsonObject, type StoredObject } from '../store/object.js';
import type { ObjectStore, Watch, WatchEvent } from '../store/store.js';
import type { WatchDecision } from '../runtime/seams.js';
import type { KubeApiHost } from './kube-api-host.js';
import type { ObjectFilter } from './object-filter.js';
import type { ResolvedResource } from './resource-definition.js';
import { kubeStatus } from './status.js';
import { toWire } from './wire.js';

/** One event about to be written to a watch stream (the HTTP-layer watch seam). @public */
export interface KubeWatchEventInfo {
  t: number;
  /** Actor of the watching client. */
  actor: string;
  kind: string;
  /** The store event (after selector translation, `type` is the one the client will see). */
  event: WatchEvent;
  /** Stream id, stable within a run: the n-th watch the API opened. */
  stream: number;
}

/** @internal */
export interface WatchStreamOptions {
  store: ObjectStore;
  host: KubeApiHost;
  resource: ResolvedResource;
  actor: string;
  stream: number;
  namespace: string | undefined;
  filter: ObjectFilter | undefined;
  /** Undefined: start with the current objects as ADDED events (no or "0" resourceVersion). */
  fromRv: number | undefined;
  bookmarks: boolean;
  /** `sendInitialEvents=true`: end the initial ADDED events with an `initial-events-end` BOOKMARK. */
  initialEventsEnd: boolean;
  bookmarkIntervalMs: number;
  /** Close cleanly after this many ms (`timeoutSeconds`). */
  timeoutMs: number | undefined;
  latencyMs: number;
  signal: AbortSignal | undefined;
  /** Cuts the connection the way the transport can (destroys the socket); default: errors the body. */
  cut: (() => void) | undefined;
  decide: ((info: KubeWatchEventInfo) => WatchDecision | undefined) | undefined;
  /** Called when the stream ends for any reason. */
  onEnd: () => void;
}

/** An open watch stream. @internal */
export interface WatchStream {
  readonly body: ReadableStream<Uint8Array>;
  /** Ends the stream: `expire` sends a 410 Expired ERROR event first (forces a relist). */
  end(how: 'close' | 'expire' | 'cut'): void;
  readonly actor: string;
  readonly kind: string;
  readonly ended: boolean;
}

const encoder = new TextEncoder();

/** Responses that are watch streams (transports flush their headers at once). @internal */
export const watchResponses = new WeakSet<Response>();

/**
 * A watch as kube-apiserver streams it: one JSON event per line (`ADDED`, `MODIFIED`,
 * `DELETED`, `BOOKMARK`, `ERROR`). Selectors are applied per event, so an object that stops
 * matching arrives as DELETED and one that starts matching as ADDED. A resourceVersion older
 * than the store's history answers with an `ERROR` event carrying a 410 Expired Status. The
 * stream ends when the client aborts (`signal`), on `timeoutSeconds`, or when a fault ends it.
 * @internal
 */
export function openWatchStream(o: WatchStreamOptions): WatchStream {
  const { store, host, resource } = o;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let watch: Watch | undefined;
  let ended = false;
  const cancels: (() => void)[] = [];
  /** Keys that matched the selectors at the last event seen (for ADDED/DELETED translation). */
  const matching = new Set<string>();

  const write = (type: string, object: JsonObject): void => {
    if (ended) return;
    try {
      controller.enqueue(encoder.encode(`${JSON.stringify({ type, object })}\n`));
    } catch {
      finish();
      return;
    }
    host.activity();
  };

  const finish = (): void => {
    if (ended) return;
    ended = true;
    watch?.stop();
    watch = undefined;
    for (const c of cancels) c();
    o.signal?.removeEventListener('abort', onAbort);
    o.onEnd();
  };

  const end = (how: 'close' | 'expire' | 'cut'): void => {
    if (ended) return;
    if (how === 'expire') write('ERROR', kubeStatus('Expired', `too old resource version: ${store.currentResourceVersion()}`));
    finish();
    host.activity();
    if (how === 'cut' && !o.cut) {
      controller.error(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    } else {
      // after a transport cut the body is closed too, so nothing keeps reading it
      if (how === 'cut') o.cut?.();
      try {
        controller.close();
      } catch {
        // already closed by the client
      }
    }
  };

  const onAbort = (): void => finish();

  const deliver = (type: WatchEvent['type'], ev: WatchEvent): void => {
    const d = o.decide?.({ t: host.now(), actor: o.actor, kind: resource.kind, event: { ...ev, type }, stream: o.stream });
    const wire = toWire(ev.object, resource);
    const send = (): void => write(type, wire);
    const later = (ms: number, fn: () => void): void => {
      if (ms <= 0) fn();
      else cancels.push(host.after(ms, fn));
    };
    switch (d?.type ?? 'deliver') {
      case 'deliver':
        later(o.latencyMs, send);
        return;
      case 'drop':
        return;
      case 'duplicate':
        later(o.latencyMs, send);
        later(o.latencyMs + (d?.type === 'duplicate' ? (d.afterMs ?? 0) : 0), send);
        return;
      case 'delay':
        later(o.latencyMs + (d?.type === 'delay' ? d.ms : 0), send);
        return;
      case 'disconnect':
        end('cut');
        return;
      case 'gone':
        store.compact(resource.kind);
        end('expire');
        return;
    }
  };

  const onEvent = (ev: WatchEvent): void => {
    if (ended) return;
    if (ev.type === 'BOOKMARK') {
      if (o.bookmarks) write('BOOKMARK', bookmarkObject(resource, String(ev.rv)));
      return;
    }
    const key = keyOf(ev.object.metadata);
    const was = o.filter === undefined || matching.has(key);
    const now = ev.type !== 'DELETED' && (o.filter === undefined || o.filter(toWire(ev.object, resource)));
    if (o.filter !== undefined) {
      if (now) matching.add(key);
      else matching.delete(key);
    }
    let type: WatchEvent['type'] | undefined;
    if (ev.type === 'DELETED') type = was ? 'DELETED' : undefined;
    else if (now) type = was && ev.type !== 'ADDED' ? 'MODIFIED' : 'ADDED';
    else type = was ? 'DELETED' : undefined;
    if (type !== undefined) deliver(type, ev);
  };

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      finish();
    },
  });

  if (o.signal?.aborted) {
    finish();
  } else {
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const current = (): StoredObject[] => store.select(resource.kind, o.namespace !== undefined ? { namespace: o.namespace } : {});
    if (o.filter !== undefined) for (const obj of current()) if (o.filter(toWire(obj, resource))) matching.add(keyOf(obj.metadata));
    try {
      if (o.fromRv === undefined) {
        const existing = current()
          .filter((obj) => o.filter === undefined || matching.has(keyOf(obj.metadata)))
          .sort((a, b) => compareKeys(keyOf(a.metadata), keyOf(b.metadata)));
        for (const obj of existing) write('ADDED', toWire(obj, resource));
        if (o.initialEventsEnd) {
          const end = bookmarkObject(resource, String(store.currentResourceVersion()));
          (end['metadata'] as JsonObject)['annotations'] = { 'k8s.io/initial-events-end': 'true' };
          write('BOOKMARK', end);
        }
        watch = store.watch(resource.kind, store.currentResourceVersion(), onEvent, o.namespace !== undefined ? { namespace: o.namespace } : {});
      } else {
        watch = store.watch(resource.kind, o.fromRv, onEvent, o.namespace !== undefined ? { namespace: o.namespace } : {});
      }
    } catch (err) {
      if (!(err instanceof GoneError)) throw err;
      end('expire');
    }
    if (!ended && o.bookmarks) {
      const tick = (): void => {
        if (ended) return;
        write('BOOKMARK', bookmarkObject(resource, String(store.currentResourceVersion())));
        cancels.push(host.after(o.bookmarkIntervalMs, tick));
      };
      cancels.push(host.after(o.bookmarkIntervalMs, tick));
    }
    if (!ended && o.timeoutMs !== undefined) cancels.push(host.after(o.timeoutMs, () => end('close')));
  }
  return {
    body,
    end,
    actor: o.actor,
    kind: resource.kind,
    get ended() {
      return ended;
    },
  };
}

function bookmarkObject(resource: ResolvedResource, rv: string): JsonObject {
  return { kind: resource.kind, apiVersion: resource.apiVersion, metadata: { resourceVersion: rv } };
}

/** kube-apiserver lists in etcd key order: namespace, then name. @internal */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
