import { StoreError, TooManyRequestsError } from '../store/errors.js';
import type { PodEviction } from '../store/eviction.js';
import type { JsonObject } from '../store/object.js';
import type { DeleteOptions } from '../store/store.js';
import type { ServeContext } from './serve-context.js';
import { jsonResponse, KubeStatusError, statusFromError } from './status.js';
import { readJson } from './serve-write.js';

const POLICIES = new Set(['Background', 'Foreground', 'Orphan']);
const EVICTION_VERSIONS = new Set(['policy/v1', 'policy/v1beta1']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The Eviction's deleteOptions as the store takes them (a dryRun was read before: dry-run.ts); 400 for a policy kube does not know. */
function deleteOptionsOf(raw: unknown): DeleteOptions | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) throw new KubeStatusError('BadRequest', 'the Eviction\'s deleteOptions must be a DeleteOptions object');
  const policy = raw['propagationPolicy'];
  if (policy !== undefined && policy !== null && (typeof policy !== 'string' || !POLICIES.has(policy))) throw new KubeStatusError('BadRequest', `propagationPolicy must be Background, Foreground or Orphan, got ${JSON.stringify(policy)}`);
  const pre = isRecord(raw['preconditions']) ? raw['preconditions'] : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre['uid'] === 'string') preconditions.uid = pre['uid'];
  if (typeof pre['resourceVersion'] === 'string') preconditions.resourceVersion = pre['resourceVersion'];
  return {
    ...(typeof policy === 'string' ? { propagationPolicy: policy as NonNullable<DeleteOptions['propagationPolicy']> } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

/**
 * POST `pods/{name}/eviction`: evicts the Pod as kube-apiserver's EvictionREST does (the store's
 * `evict`): 201 with a success `Status` when the Pod was deleted; 429 TooManyRequests, `Cannot
 * evict pod as it would violate the pod's disruption budget.` with a `DisruptionBudget` cause, when
 * its PodDisruptionBudget allows no disruption now (Retry-After 10 s while the budget's status is
 * for an older generation); a `Status` with code 500 and no reason when two budgets select it;
 * 404 for a missing Pod. The body is a policy/v1 (or v1beta1) Eviction naming the Pod of the URL,
 * with optional deleteOptions (preconditions, propagationPolicy, dryRun: checked and answered, nothing deleted).
 * @internal
 */
export function serveEviction(c: ServeContext): Response {
  const body = readJson(c);
  if (!isRecord(body)) throw new KubeStatusError('BadRequest', 'the body of the request must be a policy/v1 Eviction object');
  if (body['kind'] !== undefined && body['kind'] !== 'Eviction') throw new KubeStatusError('BadRequest', `not a Eviction object: the body's kind is ${JSON.stringify(body['kind'])}`);
  if (body['apiVersion'] !== undefined && !EVICTION_VERSIONS.has(String(body['apiVersion']))) {
    throw new KubeStatusError('BadRequest', `the API version in the data (${String(body['apiVersion'])}) does not match the expected API version (policy/v1)`);
  }
  const meta = isRecord(body['metadata']) ? body['metadata'] : {};
  const ns = meta['namespace'];
  if (typeof ns === 'string' && ns !== '' && ns !== c.namespace) throw new KubeStatusError('BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  if (name !== c.name) throw new KubeStatusError('BadRequest', 'name in URL does not match name in Eviction object');
  const deleteOptions = deleteOptionsOf(body['deleteOptions']);
  const eviction: PodEviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: c.namespace }, ...(deleteOptions !== undefined ? { deleteOptions } : {}) };
  try {
    c.api.store.evict(c.info.actor, eviction);
  } catch (err) {
    const refused = evictionStatus(err, c, name);
    if (refused instanceof Response) return refused;
    throw refused;
  }
  return jsonResponse({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, 201);
}

/** A refused eviction as kube-apiserver answers it. */
function evictionStatus(err: unknown, c: ServeContext, name: string): KubeStatusError | Response {
  if (err instanceof TooManyRequestsError) {
    const details: JsonObject = {
      causes: err.causes.map((x) => ({ reason: x.type, message: x.message })),
      ...(err.retryAfterSeconds !== undefined && err.retryAfterSeconds > 0 ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
    };
    return new KubeStatusError('TooManyRequests', err.message, details, err.retryAfterSeconds !== undefined && err.retryAfterSeconds > 0 ? err.retryAfterSeconds : undefined);
  }
  if (err instanceof StoreError && err.reason === 'InternalError') {
    // EvictionREST returns this one as a Status object of its own: code 500, no reason
    return jsonResponse({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, code: 500 }, 500);
  }
  if (err instanceof StoreError && err.reason === 'Forbidden') {
    const pdb = /^poddisruptionbudget\.policy "([^"]*)"/.exec(err.message)?.[1] ?? '';
    return new KubeStatusError('Forbidden', err.message, { name: pdb, group: 'policy', kind: 'poddisruptionbudget' });
  }
  return statusFromError(err, c.resource, name);
}
