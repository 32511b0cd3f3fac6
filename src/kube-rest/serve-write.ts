import { ConflictError, StoreError } from '../store/errors.js';
import { keysSorted } from '../store/key-order.js';
import { cloneJson, keyOf, type JsonObject, type StoredObject } from '../store/object.js';
import type { ServeContext } from './serve-context.js';
import { jsonResponse, KubeStatusError, statusFromError } from './status.js';
import { fieldManagersOf, recordUpdate } from './managed-fields.js';
import { fromWire, toWire } from './wire.js';

/** Parses the JSON request body; 400 when it is not JSON. @internal */
export function readJson(c: ServeContext): unknown {
  const text = c.body;
  if (text.trim() === '') throw new KubeStatusError('BadRequest', 'the request body is empty; send the object as JSON');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new KubeStatusError('BadRequest', `the body of the request was in an unknown format: ${err instanceof Error ? err.message : String(err)} (steadystate accepts application/json)`);
  }
}

/**
 * POST: creates the object (201). Status is dropped for kinds with a status subresource, as
 * kube-apiserver resets it on create. A new CustomResourceDefinition is `Established` at once
 * and its kind is served from then on.
 * @internal
 */
export function serveCreate(c: ServeContext): Response {
  const body = readJson(c);
  const input = fromWire(body, c.resource, { namespace: c.namespace, name: undefined });
  checkOwnerApiVersions(c, input.metadata.ownerReferences, undefined);
  return jsonResponse(toWire(createObject(c, input), c.resource), 201);
}

/**
 * 422 for a new ownerReference without apiVersion, as kube-apiserver's ValidateOwnerReferences
 * answers (the in-process store takes one: kinds have no group there). References the stored
 * object already has are not judged again.
 */
function checkOwnerApiVersions(c: ServeContext, refs: readonly { apiVersion?: string | undefined; kind: string; name: string; uid: string }[] | undefined, cur: StoredObject | undefined): void {
  for (const r of refs ?? []) {
    if (typeof r.apiVersion === 'string' && r.apiVersion !== '') continue;
    if (cur?.metadata.ownerReferences.some((o) => o.uid === r.uid && o.apiVersion === r.apiVersion)) continue;
    const what = `${c.resource.kind}${c.resource.group !== '' ? `.${c.resource.group}` : ''} "${c.name ?? ''}"`;
    const message = 'Invalid value: "": version must not be empty';
    throw new KubeStatusError('Invalid', `${what} is invalid: metadata.ownerReferences.apiVersion: ${message} (set apiVersion of the owner ${r.kind} "${r.name}", e.g. "apps/v1" or "example.com/v1")`, {
      ...(c.name !== undefined ? { name: c.name } : {}),
      ...(c.resource.group !== '' ? { group: c.resource.group } : {}),
      kind: c.resource.kind,
      causes: [{ reason: 'FieldValueInvalid', message, field: 'metadata.ownerReferences.apiVersion' }],
    });
  }
}

/** Creates an object as POST does (status reset, a CRD established); also server-side apply's create. @internal */
export function createObject(c: ServeContext, input: ReturnType<typeof fromWire>): StoredObject {
  if (c.resource.statusSubresource) input.status = {};
  if (c.resource.kind === 'Namespace') input.status = { phase: 'Active' };
  const created = c.api.store.create(c.info.actor, input);
  // (a dry run created nothing to establish)
  if (c.resource.kind === 'CustomResourceDefinition' && !c.api.store.dryRunning) return establish(c, created.metadata.name);
  return created;
}

/** kube-apiserver's apiextensions controller accepts the names and marks the CRD Established. */
function establish(c: ServeContext, name: string): StoredObject {
  const { store } = c.api;
  const cur = store.get('CustomResourceDefinition', { name });
  const at = cur.metadata.creationTimestamp;
  const conditions = [
    { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: at },
    { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: at },
  ];
  const spec = cur.spec as JsonObject;
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as JsonObject[]) : [];
  return store.updateStatus('environment:apiextensions', {
    ...cur,
    status: { conditions, acceptedNames: cloneJson((spec['names'] ?? {}) as JsonObject), storedVersions: versions.filter((v) => v['storage'] === true).map((v) => String(v['name'])) },
  });
}

/**
 * POST `pods/{name}/binding` (or `bindings`): binds the Pod to the Binding's target Node, as
 * kube-apiserver's BindingREST does (the store's `bind`), and answers 201 with a success `Status`.
 * 400 when the Binding names another Pod than the URL or another namespace; 409 (on
 * `pods/binding`) when the Pod is bound already, being deleted or gated.
 * @internal
 */
export function serveBinding(c: ServeContext): Response {
  const body = readJson(c);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new KubeStatusError('BadRequest', 'the body of the request must be a v1 Binding object');
  const b = body as { kind?: unknown; apiVersion?: unknown; metadata?: Record<string, unknown>; target?: unknown };
  if (b.kind !== undefined && b.kind !== 'Binding') throw new KubeStatusError('BadRequest', `not a Binding object: the body's kind is ${JSON.stringify(b.kind)}`);
  const meta = b.metadata !== null && typeof b.metadata === 'object' ? b.metadata : {};
  const ns = meta['namespace'];
  if (typeof ns === 'string' && ns !== '' && ns !== c.namespace) throw new KubeStatusError('BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  if (c.name !== undefined && name !== c.name) throw new KubeStatusError('BadRequest', 'name in URL does not match name in Binding object');
  const target = b.target !== null && typeof b.target === 'object' ? (b.target as Record<string, unknown>) : {};
  try {
    c.api.store.bind(c.info.actor, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { ...(meta as { name: string }), name, namespace: c.namespace },
      target: { ...(target as { name: string }) },
    });
  } catch (err) {
    // BindingREST's own conflicts are on pods/binding; a precondition's or a missing Pod's on pods
    if (err instanceof ConflictError && err.message.startsWith('Operation cannot be fulfilled on pods/binding ')) throw new KubeStatusError('Conflict', err.message, { name, kind: 'pods/binding' });
    // ValidatePodBinding's errors come back unwrapped, as a 500 with their own text
    if (err instanceof StoreError && err.reason === 'InternalError') throw new KubeStatusError('InternalError', err.message);
    throw statusFromError(err, c.resource, name);
  }
  return jsonResponse({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, 201);
}

/**
 * PUT: replaces the object (or, on `/status`, its status). With `metadata.resourceVersion` the
 * write is conditional (409 when stale); without, unconditional.
 * @internal
 */
export function serveUpdate(c: ServeContext): Response {
  const body = readJson(c);
  const { store } = c.api;
  const input = fromWire(body, c.resource, { namespace: c.namespace, name: c.name });
  const obj = { ...input, metadata: { ...input.metadata, name: c.name! } };
  const fields = fieldManagersOf(store);
  const before = store.peek(c.resource.kind, keyOf({ namespace: c.namespace, name: c.name! }));
  if (c.subresource === 'status') {
    if (!c.resource.statusSubresource) throw notFound(c);
    // nor on its status (the status strategy embeds the resource's)
    const updated = store.updateStatus(c.info.actor, obj, { requireResourceVersion: keysSorted(c.resource.kind, c.resource.apiVersion) });
    recordUpdate(c, before, updated);
    return jsonResponse(toWire(updated, c.resource, fields));
  }
  if (!before) {
    throw new KubeStatusError('NotFound', `${c.resource.plural}${c.resource.group !== '' ? `.${c.resource.group}` : ''} "${c.name}" not found`, { name: c.name!, kind: c.resource.plural });
  }
  // a kind without /status (a CRD without subresources.status) stores the status a PUT sends
  checkOwnerApiVersions(c, obj.metadata.ownerReferences, before);
  // a custom resource allows no unconditional PUT (customResourceStrategy.AllowUnconditionalUpdate)
  const updated = store.update(c.info.actor, obj, { statusSubresource: c.resource.statusSubresource, requireResourceVersion: keysSorted(c.resource.kind, c.resource.apiVersion) });
  recordUpdate(c, before, updated);
  return jsonResponse(toWire(updated, c.resource, fields));
}

/** 404 for a subresource the kind does not have. @internal */
export function notFound(c: ServeContext): KubeStatusError {
  return new KubeStatusError('NotFound', 'the server could not find the requested resource', { ...(c.name !== undefined ? { name: c.name } : {}), kind: c.resource.plural });
}

/** A patched wire object back in the store's shape; the store keeps only what the verb may change (patch, server-side apply). @internal */
export function storedFromPatched(patched: JsonObject, cur: StoredObject, c: ServeContext): StoredObject {
  const input = fromWire({ ...patched, apiVersion: c.resource.apiVersion, kind: c.resource.kind }, c.resource, { namespace: c.namespace, name: undefined });
  const m = input.metadata;
  checkOwnerApiVersions(c, m.ownerReferences, cur);
  return {
    ...input,
    ...(cur.apiVersion !== undefined ? { apiVersion: cur.apiVersion } : {}),
    kind: cur.kind,
    metadata: {
      ...cur.metadata,
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      finalizers: m.finalizers ?? [],
      ownerReferences: m.ownerReferences ?? [],
      resourceVersion: m.resourceVersion ?? cur.metadata.resourceVersion,
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
    },
    spec: input.spec ?? {},
    status: input.status ?? {},
  };
}
