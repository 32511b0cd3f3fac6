import { keyOf, type JsonObject, type StoredObject } from '../store/object.js';
import { createObjectFilter } from './object-filter.js';
import type { ServeContext } from './serve-context.js';
import { jsonResponse, KubeStatusError } from './status.js';
import { compareKeys, openWatchStream, watchResponses, type WatchStream } from './watch-stream.js';
import { toWire } from './wire.js';
import { fieldManagersOf } from './managed-fields.js';
import { servedBy } from './served-by.js';

/** A resourceVersion query parameter: a decimal counter, as kube-apiserver's etcd3 store. */
export function parseResourceVersion(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new KubeStatusError('BadRequest', `invalid resource version "${raw}": resourceVersion must be an unsigned integer`);
  return Number(raw);
}

/** GET of one object (also `/status`). @internal */
export function serveGet(c: ServeContext): Response {
  const { store } = c.api;
  const obj = store.peek(c.resource.kind, keyOf({ namespace: c.namespace, name: c.name! }));
  if (!obj) throw new KubeStatusError('NotFound', `${what(c)} not found`, details(c));
  return jsonResponse(toWire(obj, c.resource, fieldManagersOf(c.api.store)));
}

function what(c: ServeContext): string {
  return `${c.resource.plural}${c.resource.group !== '' ? `.${c.resource.group}` : ''} "${c.name ?? ''}"`;
}

function details(c: ServeContext): JsonObject {
  return { ...(c.name !== undefined ? { name: c.name } : {}), ...(c.resource.group !== '' ? { group: c.resource.group } : {}), kind: c.resource.plural };
}

interface ContinueToken {
  rv: number;
  start: string;
}

function decodeContinue(raw: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (t !== null && typeof t === 'object' && typeof (t as ContinueToken).rv === 'number' && typeof (t as ContinueToken).start === 'string') return t as ContinueToken;
  } catch {
    // fall through
  }
  throw new KubeStatusError('BadRequest', `invalid continue token "${raw}": pass back metadata.continue of the previous page unchanged`);
}

/**
 * LIST with label and field selectors and paging (`limit`/`continue`), in kube-apiserver's
 * key order. Later pages show the objects as they are now (not a snapshot at the first page's
 * resourceVersion, which kube-apiserver keeps for a few minutes). `resourceVersionMatch=Exact`
 * answers with the objects as they were at that resourceVersion (410 once the history no longer
 * reaches it, 504 "Too large resource version" past the current one).
 * @internal
 */
export function serveList(c: ServeContext): Response {
  const { store, options } = c.api;
  const q = c.url.searchParams;
  parseResourceVersion(q.get('resourceVersion'));
  validateListOptions(q);
  const filter = createObjectFilter(c.resource.kind, q.get('labelSelector'), q.get('fieldSelector'), c.api.store.selectableFields(c.resource.kind));
  const limitRaw = q.get('limit');
  const limit = limitRaw === null || limitRaw === '' ? 0 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 0) throw new KubeStatusError('BadRequest', `limit must be a non-negative integer, got "${limitRaw}"`);
  const token = q.get('continue') ? decodeContinue(q.get('continue')!) : undefined;

  let objs: StoredObject[] = store.select(c.resource.kind, c.namespace !== undefined ? { namespace: c.namespace } : {});
  // a list any replica may serve from its watch cache (resourceVersion set, not Exact): a lagging
  // replica answers with the state of an older resourceVersion
  let laggingRv: number | undefined;
  const rvParam = q.get('resourceVersion');
  const fromCache = token === undefined && rvParam !== null && rvParam !== '' && q.get('resourceVersionMatch') !== 'Exact';
  const lag = fromCache ? options.hooks.onListFrom?.({ ...c.info, notOlderThan: Number(rvParam) }) : undefined;
  if (lag !== undefined) {
    objs = c.namespace !== undefined ? lag.objects.filter((o) => o.metadata.namespace === c.namespace) : [...lag.objects];
    laggingRv = lag.rv;
  }
  // Exact: the state at that resourceVersion, read from storage (R-3), as etcd serves a past revision
  const exact = token === undefined && q.get('resourceVersionMatch') === 'Exact' ? parseResourceVersion(rvParam) : undefined;
  if (exact !== undefined) {
    const current = store.currentResourceVersion();
    if (exact > current) throw new KubeStatusError('Timeout', `Too large resource version: ${exact}, current: ${current}`, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 }, 1);
    const past = exact < current ? store.snapshotAt(c.resource.kind, exact) : undefined;
    if (exact < current && past === undefined) throw new KubeStatusError('Expired', 'The resourceVersion for the provided list is too old.');
    if (past !== undefined) objs = c.namespace !== undefined ? past.filter((o) => o.metadata.namespace === c.namespace) : [...past];
    laggingRv = exact;
  }
  // only this group's objects, where another group defines the kind too (served-by.ts)
  objs = objs.filter((o) => servedBy(o, c.resource)).sort((a, b) => compareKeys(keyOf(a.metadata), keyOf(b.metadata)));
  let items = objs.map((o) => toWire(o, c.resource, fieldManagersOf(c.api.store)));
  if (filter) items = items.filter(filter);
  const d = options.hooks.onList?.({ ...c.info, count: items.length });
  if (d?.type === 'shuffle' && limit === 0 && token === undefined) items = shuffle(items, d.seed);

  const rv = token?.rv ?? laggingRv ?? store.currentResourceVersion();
  const meta: JsonObject = { resourceVersion: String(rv) };
  if (token) items = items.filter((i) => compareKeys(keyOfWire(i), token.start) > 0);
  if (limit > 0 && items.length > limit) {
    const rest = items.length - limit;
    items = items.slice(0, limit);
    meta['continue'] = Buffer.from(JSON.stringify({ rv, start: keyOfWire(items[items.length - 1]!) }), 'utf8').toString('base64url');
    meta['remainingItemCount'] = rest;
  }
  return jsonResponse({ apiVersion: c.resource.apiVersion, kind: `${c.resource.kind}List`, metadata: meta, items });
}

/**
 * The list options kube-apiserver refuses before it reads anything: apimachinery's
 * ValidateListOptions (422 Invalid of ListOptions.meta.k8s.io, every error at once), and the
 * storage's "specifying resource version is not allowed when using continue" (400). A client that
 * sent them got a list here, and behaved as it never could against a cluster.
 */
function validateListOptions(q: URLSearchParams): void {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const errors: { reason: string; message: string; field: string }[] = [];
  if (match !== '') {
    if (rv === '') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' });
    if (cont !== '') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided', field: 'resourceVersionMatch' });
    if (match !== 'Exact' && match !== 'NotOlderThan') errors.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`, field: 'resourceVersionMatch' });
    if (match === 'Exact' && rv === '0') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"', field: 'resourceVersionMatch' });
  }
  if (q.has('sendInitialEvents')) errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' });
  if (errors.length > 0) {
    const text = errors.map((e) => `${e.field}: ${e.message}`);
    throw new KubeStatusError('Invalid', `ListOptions.meta.k8s.io "" is invalid: ${text.length === 1 ? text[0]! : `[${text.join(', ')}]`}`, { group: 'meta.k8s.io', kind: 'ListOptions', causes: errors });
  }
  if (cont !== '' && rv !== '' && rv !== '0') throw new KubeStatusError('BadRequest', 'specifying resource version is not allowed when using continue');
}

function keyOfWire(o: JsonObject): string {
  const m = o['metadata'] as { name: string; namespace?: string };
  return keyOf(m);
}

/** Deterministic Fisher–Yates from a seed (the list-order fault). */
function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * WATCH (`?watch=true` or a legacy `/watch/` path): a streaming response of JSON lines. With
 * no resourceVersion (or "0", or `sendInitialEvents=true`) the existing objects come first as
 * ADDED events (then, for a streaming list with bookmarks, the `initial-events-end` BOOKMARK).
 * @internal
 */
export function serveWatch(c: ServeContext): Response {
  const { api } = c;
  const q = c.url.searchParams;
  const rvRaw = q.get('resourceVersion');
  const parsed = parseResourceVersion(rvRaw);
  const fromRv = parsed === undefined || parsed === 0 || q.get('sendInitialEvents') === 'true' ? undefined : parsed;
  let fieldSelector = q.get('fieldSelector');
  if (c.name !== undefined) fieldSelector = `metadata.name=${c.name}${fieldSelector ? `,${fieldSelector}` : ''}`;
  const filter = createObjectFilter(c.resource.kind, q.get('labelSelector'), fieldSelector, c.api.store.selectableFields(c.resource.kind));
  const timeoutRaw = q.get('timeoutSeconds');
  const timeoutMs = timeoutRaw !== null && /^\d+$/.test(timeoutRaw) && Number(timeoutRaw) > 0 ? Number(timeoutRaw) * 1000 : undefined;
  const bookmarks = q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1';
  // a streaming list (client-go's WatchList): initial events, then a bookmark that marks their end
  const initialEvents = q.get('sendInitialEvents') === 'true';
  let stream: WatchStream | undefined = undefined;
  stream = openWatchStream({
    store: api.store,
    host: api.host,
    resource: c.resource,
    actor: c.info.actor,
    stream: api.streamSeq++,
    namespace: c.namespace,
    filter,
    fromRv,
    // a resume the API server no longer serves (KubeApi.expireNextWatch): 410, the client relists
    expired: fromRv !== undefined && api.expireNext.delete(`${c.info.actor}\0${c.resource.kind}`),
    bookmarks,
    initialEventsEnd: initialEvents && bookmarks,
    bookmarkIntervalMs: api.options.bookmarkIntervalMs,
    timeoutMs,
    latencyMs: api.options.watchLatencyMs,
    signal: c.handle.signal ?? c.request.signal,
    cut: c.handle.cut,
    decide: api.options.hooks.onWatchEvent,
    onEnd: () => {
      if (stream) api.streams.delete(stream);
    },
  });
  if (!stream.ended) api.streams.add(stream);
  const response = new Response(stream.body, { status: 200, headers: { 'content-type': 'application/json' } });
  watchResponses.add(response);
  return response;
}
