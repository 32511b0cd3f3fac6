import { applyMergePatch } from '../store/merge-patch.js';
import type { Json, JsonObject, StoredObject } from '../store/object.js';
import { applyJsonPatch } from './json-patch.js';
import type { ServeContext } from './serve-context.js';
import { notFound, readJson } from './serve-write.js';
import { jsonResponse, KubeStatusError } from './status.js';
import { applyStrategicMergePatch, PatchError } from './strategic-merge-patch.js';
import { fromWire, toWire } from './wire.js';

const ACCEPTED = 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (built-in kinds)';

/**
 * PATCH of the object or its `/status`, by content type: JSON patch (RFC 6902; 422 on a path
 * that does not exist), merge patch (RFC 7386) or strategic merge patch (built-in kinds only;
 * custom kinds answer 415 as in kube-apiserver). A `metadata.resourceVersion` in the patch is a
 * precondition (409 when stale). Server-side apply is not implemented (415).
 * @internal
 */
export function servePatch(c: ServeContext): Response {
  const type = (c.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const status = c.subresource === 'status';
  if (status && !c.resource.statusSubresource) throw notFound(c);
  let apply: (wire: JsonObject) => JsonObject;
  switch (type) {
    case 'application/json-patch+json': {
      const ops = readJson(c);
      apply = (wire) => applyJsonPatch(wire, ops);
      break;
    }
    case 'application/merge-patch+json': {
      const patch = readJson(c);
      apply = (wire) => {
        const out = applyMergePatch(wire, patch as Json);
        if (out === null || typeof out !== 'object' || Array.isArray(out)) throw new KubeStatusError('BadRequest', 'a merge patch must be a JSON object');
        return out;
      };
      break;
    }
    case 'application/strategic-merge-patch+json': {
      const schema = c.resource.strategicMerge;
      if (schema === undefined) {
        throw new KubeStatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (strategic merge patch is not supported for ${c.resource.kind}, a custom resource)`);
      }
      const patch = readJson(c);
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw new KubeStatusError('BadRequest', 'a strategic merge patch must be a JSON object');
      apply = (wire) => {
        try {
          return applyStrategicMergePatch(wire, patch as JsonObject, schema);
        } catch (err) {
          if (err instanceof PatchError) throw new KubeStatusError('BadRequest', err.message);
          throw err;
        }
      };
      break;
    }
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      throw new KubeStatusError('UnsupportedMediaType', `server-side apply is not implemented by steadystate's API server; use client-side apply (kubectl apply without --server-side) or a merge patch. Accepted: ${ACCEPTED}`);
    default:
      throw new KubeStatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${ACCEPTED}; got "${type}"`);
  }
  const { store } = c.api;
  const resource = c.resource;
  const result = store.transform(
    c.info.actor,
    resource.kind,
    { namespace: c.namespace, name: c.name! },
    (cur) => storedFromPatched(apply(toWire(cur, resource)), cur, c),
    status ? { subresource: 'status' } : {},
  );
  return jsonResponse(toWire(result, resource));
}

/** A patched wire object back in the store's shape; the store keeps only what the verb may change. */
function storedFromPatched(patched: JsonObject, cur: StoredObject, c: ServeContext): StoredObject {
  const input = fromWire({ ...patched, apiVersion: c.resource.apiVersion, kind: c.resource.kind }, c.resource, { namespace: c.namespace, name: undefined });
  const m = input.metadata;
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
