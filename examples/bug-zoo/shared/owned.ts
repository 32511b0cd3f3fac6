import { AlreadyExistsError, type JsonObject, type ReconcileContext, type StoredObject } from '../../../src/index.js';
import { containsJson, sameJson, SPEC_DEFAULTED_KINDS } from './same-json.js';

/**
 * Makes an owned object (a ConfigMap, a Secret) exist with exactly this spec (a built-in kind
 * whose spec the server defaults: with at least these members), owned by `owner`
 * (so its events, including someone deleting or editing it, come back to the owner's key).
 * Writes only when something differs. A create that finds the object already there (the cache
 * had not seen it yet) reads it from the API server and carries on. Returns the object as
 * written, or as read when nothing needed writing.
 */
export async function ensureOwned<S, T>(ctx: ReconcileContext, owner: StoredObject<S, T>, kind: string, name: string, spec: JsonObject): Promise<StoredObject> {
  const ns = owner.metadata.namespace;
  const ref = { namespace: ns, name };
  let current = await ctx.client.tryGet(kind, ref);
  if (!current) {
    try {
      return await ctx.client.create({
        kind,
        metadata: { name, ...(ns !== undefined ? { namespace: ns } : {}), ownerReferences: [{ kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true }] },
        spec,
      });
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      current = await ctx.client.get(kind, ref, { live: true });
    }
  }
  // a built-in kind's spec comes back with the server's defaults: compared by the members it sets
  const same = SPEC_DEFAULTED_KINDS.has(kind) ? containsJson(current.spec, spec) : sameJson(current.spec, spec);
  return same ? current : ctx.client.update({ ...current, spec });
}
