import { keyOf, type JsonObject } from '../store/object.js';
import { defaultPropagationPolicy, JOB_ORPHAN_WARNING } from '../store/gc-policy.js';
import type { DeleteOptions } from '../store/store.js';
import { createObjectFilter } from './object-filter.js';
import type { ServeContext } from './serve-context.js';
import { jsonResponse, KubeStatusError } from './status.js';
import { compareKeys } from './watch-stream.js';
import { toWire } from './wire.js';
import { fieldManagersOf } from './managed-fields.js';
import { servedBy } from './served-by.js';

const POLICIES = new Set(['Background', 'Foreground', 'Orphan']);

/** DeleteOptions from the body (kubectl, client-go) or the query (client-node, curl). */
function deleteOptions(c: ServeContext): DeleteOptions {
  const text = c.body;
  let body: JsonObject = {};
  if (text.trim() !== '') {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as JsonObject;
    } catch {
      throw new KubeStatusError('BadRequest', 'the DeleteOptions in the request body are not valid JSON');
    }
  }
  const q = c.url.searchParams;
  let policy = (typeof body['propagationPolicy'] === 'string' ? body['propagationPolicy'] : q.get('propagationPolicy')) ?? undefined;
  if (policy === undefined && (body['orphanDependents'] === true || q.get('orphanDependents') === 'true')) policy = 'Orphan';
  else if (policy === undefined && (body['orphanDependents'] === false || q.get('orphanDependents') === 'false')) policy = 'Background';
  if (policy !== undefined && !POLICIES.has(policy)) throw new KubeStatusError('BadRequest', `propagationPolicy must be Background, Foreground or Orphan, got "${policy}"`);
  const pre = (body['preconditions'] ?? {}) as JsonObject;
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre['uid'] === 'string') preconditions.uid = pre['uid'];
  if (typeof pre['resourceVersion'] === 'string') preconditions.resourceVersion = pre['resourceVersion'];
  // a dryRun was read before (dry-run.ts): the store is in its dry run
  return {
    ...(policy !== undefined ? { propagationPolicy: policy as NonNullable<DeleteOptions['propagationPolicy']> } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

/**
 * DELETE of one object: with finalizers it is only marked (`deletionTimestamp`, 202 Accepted)
 * until the last finalizer goes; without, it is removed (200, the object as deleted).
 * Preconditions (uid, resourceVersion) answer 409 when they do not hold.
 * @internal
 */
export function serveDelete(c: ServeContext): Response {
  const opts = deleteOptions(c);
  const { store } = c.api;
  const out = store.delete(c.info.actor, c.resource.kind, { namespace: c.namespace, name: c.name! }, opts);
  // a dry run's answer is the object as the delete would leave it: still there while finalizers hold it
  const stillThere = store.dryRunning ? out.metadata.deletionTimestamp !== undefined && out.metadata.finalizers.length > 0 : store.peek(c.resource.kind, keyOf({ namespace: c.namespace, name: c.name! })) !== undefined;
  // kube-apiserver's Job strategy warns when its backward-compatible default (orphan the Pods) applies
  const warn = c.resource.kind === 'Job' && opts.propagationPolicy === undefined && defaultPropagationPolicy('Job', c.resource.apiVersion) === 'Orphan';
  return jsonResponse(toWire(out, c.resource, fieldManagersOf(c.api.store)), stillThere ? 202 : 200, warn ? { warning: `299 - "${JOB_ORPHAN_WARNING}"` } : {});
}

/** DELETE of a collection (with selectors): deletes each match, answers the list of them. @internal */
export function serveDeleteCollection(c: ServeContext): Response {
  const opts = deleteOptions(c);
  const { store } = c.api;
  const q = c.url.searchParams;
  const filter = createObjectFilter(c.resource.kind, q.get('labelSelector'), q.get('fieldSelector'), c.api.store.selectableFields(c.resource.kind));
  const targets = store
    .select(c.resource.kind, c.namespace !== undefined ? { namespace: c.namespace } : {})
    .filter((o) => servedBy(o, c.resource) && (filter === undefined || filter(toWire(o, c.resource))))
    .sort((a, b) => compareKeys(keyOf(a.metadata), keyOf(b.metadata)));
  const items: JsonObject[] = [];
  for (const t of targets) {
    const { preconditions: _p, ...rest } = opts;
    items.push(toWire(store.delete(c.info.actor, c.resource.kind, { namespace: t.metadata.namespace, name: t.metadata.name }, rest), c.resource, fieldManagersOf(c.api.store)));
  }
  return jsonResponse({ apiVersion: c.resource.apiVersion, kind: `${c.resource.kind}List`, metadata: { resourceVersion: String(store.currentResourceVersion()) }, items });
}
