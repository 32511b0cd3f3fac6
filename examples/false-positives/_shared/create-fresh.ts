import type { JsonApi, Remote } from '../../bug-zoo/shared/json-api.js';

/**
 * Creates `body` in `collection` with an idempotency key (so a create whose response was lost
 * returns the first one), chained through what each create returned: a replay naming a resource
 * deleted since (at the provider, by someone else) moves on to a fresh key, `<key>/after-<id>`.
 * @throws Error when ten creates in a row answer with resources that are gone
 */
export async function createFresh<T extends object>(api: JsonApi, collection: string, body: T, key: string): Promise<Remote<T>> {
  for (let i = 0; i < 10; i++) {
    const made = await api.create<T>(collection, body, { idempotencyKey: key });
    if (await api.get(collection, made.id)) return made;
    key = `${key}/after-${made.id}`;
  }
  throw new Error(`${collection}: ten creates answered with resources that were deleted since (idempotency key ${key})`);
}
