import type { RunRecord } from '../../src/harness/property.js';
import { fmtTime, plural } from '../../src/report/explain.js';
import type { TimelineRequest } from './timeline.js';

/** A create the service answered from its idempotency-key cache with a resource that was gone by then. */
export interface StaleReplay {
  /** The first such POST. */
  post: TimelineRequest;
  /** How many POSTs were answered so. */
  count: number;
  /** The resource the replayed answer names (its `location`). */
  resource: string;
  /** The create whose answer was replayed, when it is in the log. */
  original: TimelineRequest | undefined;
  /** When the resource went, and who removed it. */
  gone: { t: number; by: string };
  /** A look-up of the resource that found it missing before the POST (the controller did look). */
  lookUp: TimelineRequest | undefined;
}

const path = (url: string) => url.split('?')[0]!.split('#')[0]!;

/**
 * The idempotency-key replay after a deletion: a POST answered with `idempotent-replayed: true`
 * (the fake service's Stripe-style replay; any service that sets the header) whose `location`
 * names a resource that was deleted before it (out of band by the drift fault, or by a DELETE).
 * The key outlived what it created: the service hands back the old answer and creates nothing,
 * however carefully the controller looked first.
 */
export function staleReplay(run: RunRecord, requests: readonly TimelineRequest[], all: readonly TimelineRequest[] = requests): StaleReplay | undefined {
  const removals: { t: number; by: string; path: string }[] = [];
  for (const e of run.trace) {
    if (e.type === 'fault:inject' && e['kind'] === 'drift' && e['external'] === true && e['action'] === 'delete' && typeof e['collection'] === 'string' && typeof e['id'] === 'string') {
      removals.push({ t: e.t, by: `drift (${String(e['service'] ?? 'the service')})`, path: `/${encodeURIComponent(e['collection'])}/${encodeURIComponent(e['id'])}` });
    }
  }
  for (const r of all) if (r.method === 'DELETE' && r.status >= 200 && r.status < 300) removals.push({ t: r.t, by: r.actor, path: path(r.url) });
  let found: StaleReplay | undefined;
  for (const post of requests) {
    if (post.method !== 'POST' || post.headers?.['idempotent-replayed'] !== 'true') continue;
    const resource = post.headers['location'];
    if (resource === undefined) continue;
    const gone = removals.filter((d) => d.t <= post.t && (path(resource) === d.path || path(resource).endsWith(d.path))).sort((a, b) => b.t - a.t)[0];
    if (!gone) continue;
    if (found) {
      found.count++;
      continue;
    }
    const original = all.find((r) => r.method === 'POST' && r.t < post.t && r.headers?.['location'] === resource && r.headers['idempotent-replayed'] !== 'true');
    const lookUp = [...all].reverse().find((r) => r.method === 'GET' && r.actor === post.actor && r.t <= post.t && r.t >= gone.t && path(r.url) === path(resource) && r.status === 404);
    found = { post, count: 1, resource, original, gone: { t: gone.t, by: gone.by }, lookUp };
  }
  return found;
}

/** The advice for a {@link StaleReplay}, in words. */
export function staleReplayAdvice(s: StaleReplay): string {
  const others = s.count > 1 ? ` (and ${plural(s.count - 1, 'later POST')})` : '';
  const orig = s.original ? `the ${s.original.status} of the create at ${fmtTime(s.original.t)}` : 'the first answer to that key';
  const looked = s.lookUp ? `; the controller had looked it up (GET at ${fmtTime(s.lookUp.t)} → 404), so looking up first is not what is missing` : '';
  return (
    `the POST at ${fmtTime(s.post.t)}${others} was answered from the service's idempotency-key cache (idempotent-replayed: true) with ${orig}, naming ${s.resource}, which ${s.gone.by} had deleted at ${fmtTime(s.gone.t)}: nothing was created${looked}; ` +
    'the idempotency key outlived the resource it made: derive it from what the create replaces (the owner\'s uid and the id of the resource it replaces, or a create counter kept in status), so a create after a deletion sends a new key, and check that the id a create returns exists'
  );
}
