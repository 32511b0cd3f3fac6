import { applyMergePatch } from '../store/merge-patch.js';
import type { Json, JsonObject, StoredObject } from '../store/object.js';
import { applyJsonPatch } from './json-patch.js';
import type { ServeContext } from './serve-context.js';
import { fieldManagersOf, recordUpdate } from './managed-fields.js';
import { serveApply } from './serve-apply.js';
import { notFound, readJson, storedFromPatched } from './serve-write.js';
import { jsonResponse, KubeStatusError } from './status.js';
import { applyStrategicMergePatch, PatchError } from './strategic-merge-patch.js';
import { toWire } from './wire.js';

const ACCEPTED = 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (built-in kinds), application/apply-patch+yaml';

/**
 * PATCH of the object or its `/status`, by content type: JSON patch (RFC 6902; 422 on a path
 * that does not exist), merge patch (RFC 7386) or strategic merge patch (built-in kinds only;
 * custom kinds answer 415 as in kube-apiserver). A `metadata.resourceVersion` in the patch is a
 * precondition (409 when stale). `application/apply-patch+yaml` is server-side apply
 * ({@link serveApply}); `force` is refused on the other patch types, as kube-apiserver does.
 * @internal
 */
export function servePatch(c: ServeContext): Response {
  const type = (c.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/apply-patch+yaml') return serveApply(c);
  const status = c.subresource === 'status';
  if (status && !c.resource.statusSubresource) throw notFound(c);
  if (c.url.searchParams.has('force') && type !== 'application/apply-patch+cbor') {
    throw new KubeStatusError('Invalid', 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch', {
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' }],
    });
  }
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
    case 'application/apply-patch+cbor':
      throw new KubeStatusError('UnsupportedMediaType', `server-side apply in CBOR is not implemented by steadystate's API server; send the applied configuration as application/apply-patch+yaml (YAML or JSON). Accepted: ${ACCEPTED}`);
    default:
      throw new KubeStatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${ACCEPTED}; got "${type}"`);
  }
  const { store } = c.api;
  const resource = c.resource;
  let before: StoredObject | undefined;
  const result = store.transform(
    c.info.actor,
    resource.kind,
    { namespace: c.namespace, name: c.name! },
    (cur) => {
      before = cur;
      return storedFromPatched(apply(toWire(cur, resource)), cur, c);
    },
    // a kind without /status (a CRD without subresources.status) stores the status a patch writes
    status ? { subresource: 'status' } : { statusSubresource: resource.statusSubresource },
  );
  recordUpdate(c, before, result);
  return jsonResponse(toWire(result, resource, fieldManagersOf(store)));
}
