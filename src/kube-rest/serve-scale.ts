import { InvalidError, StoreError } from '../store/errors.js';
import { applyMergePatch } from '../store/merge-patch.js';
import { keyOf, type Json, type JsonObject } from '../store/object.js';
import type { Scale } from '../store/scale.js';
import { applyJsonPatch } from './json-patch.js';
import { recordUpdate } from './managed-fields.js';
import type { ResolvedResource } from './resource-definition.js';
import type { ServeContext } from './serve-context.js';
import { readJson } from './serve-write.js';
import { jsonResponse, KubeStatusError, statusFromError } from './status.js';
import { applyStrategicMergePatch, PatchError } from './strategic-merge-patch.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The autoscaling/v1 Scale resource, for the errors kube-apiserver words about the Scale itself (its validation). */
function scaleResource(c: ServeContext): ResolvedResource {
  return { ...c.resource, group: 'autoscaling', version: 'v1', apiVersion: 'autoscaling/v1', kind: 'Scale', plural: `${c.resource.plural}/scale` };
}

/**
 * A Scale as sent (a PUT's body, a patch's result) checked as kube-apiserver decodes it: 400 for
 * another kind or apiVersion, replicas that are no int32, a name or namespace other than the URL's.
 */
function decodeScale(c: ServeContext, body: unknown): Scale {
  if (!isRecord(body)) throw new KubeStatusError('BadRequest', 'the body of the request must be an autoscaling/v1 Scale object');
  if (body['kind'] !== undefined && body['kind'] !== 'Scale') throw new KubeStatusError('BadRequest', `not a Scale object: the body's kind is ${JSON.stringify(body['kind'])}`);
  if (body['apiVersion'] !== undefined && body['apiVersion'] !== 'autoscaling/v1') {
    throw new KubeStatusError('BadRequest', `the API version in the data (${String(body['apiVersion'])}) does not match the expected API version (autoscaling/v1)`);
  }
  const meta = isRecord(body['metadata']) ? body['metadata'] : {};
  const spec = isRecord(body['spec']) ? body['spec'] : {};
  const replicas = spec['replicas'];
  if (replicas !== undefined && replicas !== null && (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas > 2147483647 || replicas < -2147483648)) {
    throw new KubeStatusError('BadRequest', `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas === 'number' ? 'number' : typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  if (name !== c.name) throw new KubeStatusError('BadRequest', `the name of the object (${name}) does not match the name on the URL (${c.name ?? ''})`);
  const ns = meta['namespace'];
  if (typeof ns === 'string' && ns !== '' && ns !== c.namespace) throw new KubeStatusError('BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const uid = str(meta['uid']);
  const resourceVersion = str(meta['resourceVersion']);
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name, ...(c.namespace !== undefined ? { namespace: c.namespace } : {}), ...(uid !== undefined ? { uid } : {}), ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
  };
}

/** A patch of the Scale by content type: the Scale's JSON in, the patched JSON out. */
function patcher(c: ServeContext): (wire: JsonObject) => JsonObject {
  const type = (c.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  switch (type) {
    case 'application/json-patch+json': {
      const ops = readJson(c);
      return (wire) => applyJsonPatch(wire, ops);
    }
    case 'application/merge-patch+json': {
      const patch = readJson(c);
      return (wire) => {
        const out = applyMergePatch(wire, patch as Json);
        if (!isRecord(out)) throw new KubeStatusError('BadRequest', 'a merge patch must be a JSON object');
        return out as JsonObject;
      };
    }
    case 'application/strategic-merge-patch+json': {
      // a Scale has no lists: a strategic merge patch is a merge patch of it
      const patch = readJson(c);
      if (!isRecord(patch)) throw new KubeStatusError('BadRequest', 'a strategic merge patch must be a JSON object');
      return (wire) => {
        try {
          return applyStrategicMergePatch(wire, patch as JsonObject, {});
        } catch (err) {
          if (err instanceof PatchError) throw new KubeStatusError('BadRequest', err.message);
          throw err;
        }
      };
    }
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      // a stated limit: refused rather than applied without the field ownership it implies
      throw new KubeStatusError('UnsupportedMediaType', `server-side apply of ${c.resource.plural}/scale is not implemented by steadystate's API server; scale with a merge patch (what kubectl scale sends) or a PUT of the Scale`);
    default:
      throw new KubeStatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got "${type}"`);
  }
}

/** A store error of a scale request as kube-apiserver answers it. */
function scaleStatus(err: unknown, c: ServeContext, builtin: boolean): KubeStatusError {
  if (err instanceof InvalidError && err.message.startsWith('the spec replicas field ')) return new KubeStatusError('BadRequest', err.message);
  if (err instanceof StoreError && err.reason === 'NotFound' && err.message.startsWith('the server could not find the requested resource')) {
    return new KubeStatusError('NotFound', 'the server could not find the requested resource', { ...(c.name !== undefined ? { name: c.name } : {}), kind: `${c.resource.plural}/scale` });
  }
  // ValidateScale's errors name the Scale (a custom resource's are its strategy's, naming the resource); the uid precondition names deployments/scale
  if (err instanceof InvalidError && builtin) return statusFromError(err, scaleResource(c), c.name);
  if (err instanceof StoreError && err.reason === 'Conflict' && err.message.includes('UID in precondition')) return statusFromError(err, scaleResource(c), c.name);
  return statusFromError(err, c.resource, c.name);
}

/**
 * GET, PUT and PATCH of `{plural}/{name}/scale`, as kube-apiserver's ScaleREST (Deployments,
 * ReplicaSets, StatefulSets) and the CRD scale subresource serve it: an autoscaling/v1 Scale
 * whose metadata is the object's and whose `spec.replicas` is its spec replicas. A write changes
 * only those (a spec write of the object: resourceVersion and generation bumped, recorded as the
 * caller's update or patch of it); `metadata.resourceVersion` in the Scale is a precondition
 * (409), negative replicas are 422, a missing object 404. Server-side apply is refused (415).
 * @internal
 */
export function serveScale(c: ServeContext): Response {
  const { store } = c.api;
  const ref = { namespace: c.namespace, name: c.name! };
  const kind = c.resource.kind;
  try {
    if (c.info.verb === 'get') return jsonResponse(store.getScale(kind, ref));
    const key = keyOf(ref);
    let write: (old: Scale) => Scale;
    if (c.info.verb === 'update') {
      const scale = decodeScale(c, readJson(c));
      write = () => scale;
    } else {
      const patch = patcher(c);
      write = (old) => decodeScale(c, patch(old as unknown as JsonObject));
    }
    const before = store.peek(kind, key);
    const scale = store.transformScale(c.info.actor, c.info.verb === 'update' ? 'update' : 'patch', kind, ref, write);
    const after = store.peek(kind, key);
    if (after !== undefined) recordUpdate(c, before, after);
    return jsonResponse(scale);
  } catch (err) {
    throw scaleStatus(err, c, store.scalePaths(kind, store.peek(kind, keyOf(ref))?.apiVersion)?.builtin === true);
  }
}
