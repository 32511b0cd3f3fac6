import { GoneError } from '../store/errors.js';
import { keyOf, type JsonObject, type StoredObject } from '../store/object.js';
import type { ObjectStore, Watch, WatchEvent } from '../store/store.js';
import type { WatchDecision } from '../runtime/seams.js';
import type { KubeApiHost } from './kube-api-host.js';
import type { ObjectFilter } from './object-filter.js';
import type { ResolvedResource } from './resource-definition.js';
import { kubeStatus } from './status.js';
import { toWire } from './wire.js';
import { fieldManagersOf } from './managed-fields.js';
import { servedBy } from './served-by.js';

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
  /** A resume from `fromRv` the server no longer serves: the stream sends only a 410 Expired ERROR (see KubeApi.expireNextWatch). */
  expired?: boolean;
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
  /**
   * Ends the stream: `close` cleanly (as after `timeoutSeconds`), `expire` after a 410 Expired
   * ERROR event (forces a relist), `error` after a 500 (or `status`) ERROR event, `cut` by
   * destroying the connection.
   */
  end(how: 'close' | 'expire' | 'cut' | 'error', status?: 500 | 503): void;
  /** Ends what faults held back or delayed: those lines go out now, in order (the fault window ended). */
  endLags(): void;
  readonly actor: string;
  readonly kind: string;
  readonly ended: boolean;
}

const encoder = new TextEncoder();

/** One line of a watch stream, queued. */
interface Line {
  type: string;
  object: JsonObject;
}

/** One line a watch stream wrote (its bytes, `text`), or its end; `stream` is unique in the process. @internal */
export type WatchStreamTap = (line: { stream: number; actor: string; kind: string; text: string } | { stream: number; actor: string; kind: string; end: true }) => void;

const taps = new Set<WatchStreamTap>();
/** Streams opened in this process: ids for taps, unique across API instances (never in a trace). */
let opened = 0;

/**
 * Receives every line every watch stream writes, and each stream's end, until the returned
 * function is called: how the realism law checks that streams are byte for byte what
 * kube-apiserver sends. No effect on a run. @internal
 */
export function tapWatchStreams(tap: WatchStreamTap): () => void {
  taps.add(tap);
  return () => void taps.delete(tap);
}

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
  const tapId = ++opened;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let watch: Watch | undefined;
  let ended = false;
  const cancels: (() => void)[] = [];
  /** Keys that matched the selectors at the last event seen (for ADDED/DELETED translation). */
  const matching = new Set<string>();

  const write = (type: string, object: JsonObject): void => {
    if (ended) return;
    const text = `${JSON.stringify({ type, object })}\n`;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish();
      return;
    }
    for (const tap of taps) tap({ stream: tapId, actor: o.actor, kind: resource.kind, text });
    host.activity();
  };

  const finish = (): void => {
    if (ended) return;
    ended = true;
    for (const tap of taps) tap({ stream: tapId, actor: o.actor, kind: resource.kind, end: true });
    watch?.stop();
    watch = undefined;
    for (const c of cancels) c();
    o.signal?.removeEventListener('abort', onAbort);
    o.onEnd();
  };

  const end = (how: 'close' | 'expire' | 'cut' | 'error', status?: 500 | 503): void => {
    if (ended) return;
    if (how === 'expire') write('ERROR', kubeStatus('Expired', `too old resource version: ${store.currentResourceVersion()}`));
    if (how === 'error') write('ERROR', status === 503 ? kubeStatus('ServiceUnavailable', 'the server is currently unable to handle the request') : kubeStatus('InternalError', 'Internal error occurred: etcdserver: request timed out'));
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

  /**
   * The fault window ended: what a fault delayed or held back goes out now, in order, one watch
   * latency later (a lag ends, the stream catches up), as the native runtime's informers are
   * repaired by the settle phase. Without it a lag decided late in the window would outlive it.
   */
  const endLags = (): void => {
    if (ended) return;
    const now = host.now();
    const lines = inFlight;
    inFlight = [];
    for (const e of lines) e.cancel();
    tail = now;
    holdVersions = 0;
    for (const e of lines) schedule(e.line, now + o.latencyMs);
    release();
  };

  // ---- the ordered stream: whatever a fault decides, lines go out in the order they were queued
  /** Host time of the last line scheduled; a later one never goes out earlier. */
  let tail = 0;
  /** Lines scheduled and not yet written, in order, with the timers that write them. */
  let inFlight: { line: Line; cancel: () => void }[] = [];
  /** Lines held back by a lag (stale-snapshot) until fewer than `holdVersions` remain. */
  let held: Line[] = [];
  let holdVersions = 0;

  const schedule = (line: Line, at: number): void => {
    const now = host.now();
    const when = Math.max(at, tail);
    tail = when;
    if (when <= now && inFlight.length === 0) {
      write(line.type, line.object);
      return;
    }
    const entry = { line, cancel: () => {} };
    inFlight.push(entry);
    entry.cancel = host.after(when - now, () => {
      inFlight.shift();
      write(line.type, line.object);
    });
    cancels.push(() => entry.cancel());
  };
  /** Queues a line behind everything queued before it (and behind held lines unless `replay`). */
  const queue = (line: Line, at: number, replay = false, released = false): void => {
    if (!replay && !released && held.length > 0) {
      held.push(line);
      release();
      return;
    }
    schedule(line, at);
  };
  const release = (): void => {
    while (held.length > holdVersions) queue(held.shift()!, host.now() + o.latencyMs, false, true);
  };

  const deliver = (type: WatchEvent['type'], ev: WatchEvent): void => {
    const d = o.decide?.({ t: host.now(), actor: o.actor, kind: resource.kind, event: { ...ev, type }, stream: o.stream });
    const line: Line = { type, object: toWire(ev.object, resource, fieldManagersOf(store)) };
    const at = host.now() + o.latencyMs;
    switch (d?.type ?? 'deliver') {
      case 'deliver':
        queue(line, at);
        return;
      case 'drop':
        return;
      case 'duplicate': {
        queue(line, at);
        // one HTTP stream never goes back in resourceVersion (kube-apiserver sends it in order), so
        // a replay here is of the event just sent: the same line again, `afterMs` later
        queue(line, at + ((d as Extract<WatchDecision, { type: 'duplicate' }>).afterMs ?? 0), true);
        return;
      }
      case 'delay':
        queue(line, at + (d as Extract<WatchDecision, { type: 'delay' }>).ms);
        return;
      case 'lag': {
        const lag = d as Extract<WatchDecision, { type: 'lag' }>;
        holdVersions = Math.max(0, lag.versions);
        held.push(line);
        release();
        cancels.push(
          host.after(Math.max(0, lag.untilMs - host.now()), () => {
            holdVersions = 0;
            release();
          }),
        );
        return;
      }
      case 'disconnect':
        end('cut');
        return;
      case 'gone':
        store.compact(resource.kind);
        end('expire');
        return;
      case 'close':
        end('close');
        return;
      case 'error':
        end('error', (d as Extract<WatchDecision, { type: 'error' }>).status);
        return;
    }
  };

  const onEvent = (ev: WatchEvent): void => {
    if (ended) return;
    if (ev.type === 'BOOKMARK') {
      // in line with the events: a bookmark never overtakes an event queued before it
      if (o.bookmarks) queue({ type: 'BOOKMARK', object: bookmarkObject(resource, String(ev.rv)) }, host.now() + o.latencyMs);
      return;
    }
    // another group's object of the kind (served-by.ts)
    if (!servedBy(ev.object, resource)) return;
    const key = keyOf(ev.object.metadata);
    // a DELETED event carries the object's last state: it was in the selection if that matches
    const was = o.filter === undefined || matching.has(key) || (ev.type === 'DELETED' && o.filter(toWire(ev.object, resource)));
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
    const current = (): StoredObject[] => store.select(resource.kind, o.namespace !== undefined ? { namespace: o.namespace } : {}).filter((obj) => servedBy(obj, resource));
    // what matched when the stream starts: at `fromRv` for a resumed watch (its replayed events are
    // translated against the objects as they were then, as kube-apiserver's watch cache does with
    // each event's previous object), else now
    const initial = o.fromRv !== undefined ? store.snapshotAt(resource.kind, o.fromRv)?.filter((obj) => (o.namespace === undefined || obj.metadata.namespace === o.namespace) && servedBy(obj, resource)) : undefined;
    if (o.filter !== undefined) for (const obj of initial ?? current()) if (o.filter(toWire(obj, resource))) matching.add(keyOf(obj.metadata));
    try {
      if (o.fromRv === undefined) {
        const existing = current()
          .filter((obj) => o.filter === undefined || matching.has(keyOf(obj.metadata)))
          .sort((a, b) => compareKeys(keyOf(a.metadata), keyOf(b.metadata)));
        for (const obj of existing) write('ADDED', toWire(obj, resource, fieldManagersOf(store)));
        if (o.initialEventsEnd) {
          const end = bookmarkObject(resource, String(store.currentResourceVersion()));
          (end['metadata'] as JsonObject)['annotations'] = { 'k8s.io/initial-events-end': 'true' };
          write('BOOKMARK', end);
        }
        watch = store.watch(resource.kind, store.currentResourceVersion(), onEvent, o.namespace !== undefined ? { namespace: o.namespace } : {});
      } else if (o.expired) {
        end('expire');
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
        queue({ type: 'BOOKMARK', object: bookmarkObject(resource, String(store.currentResourceVersion())) }, host.now());
        cancels.push(host.after(o.bookmarkIntervalMs, tick));
      };
      cancels.push(host.after(o.bookmarkIntervalMs, tick));
    }
    if (!ended && o.timeoutMs !== undefined) cancels.push(host.after(o.timeoutMs, () => end('close')));
  }
  return {
    body,
    end,
    endLags,
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
