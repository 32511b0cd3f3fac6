import type { FakeRestService, Json, JsonObject } from '../../../src/index.js';
import type { RestReply } from '../../../src/downstream/fake-rest-service.js';
import { withHandler } from './with-handler.js';

/** How the provider sets the fields only it manages: at creation, and as a poll finds the resource. */
export interface ServerFieldHooks {
  /** The provider's fields of a resource it just made (e.g. `{ state: 'pending' }`). */
  created(id: string, body: JsonObject): Record<string, Json>;
  /** The provider's fields after one more read of the resource (the lifecycle moves on as it is polled). @defaultValue unchanged */
  polled?(id: string, fields: Readonly<Record<string, Json>>, polls: number): Record<string, Json>;
}

/**
 * A fake REST service whose lifecycle fields (an instance's `state` and address, a snapshot's
 * `readyToUse`) are the provider's: kept beside the stored resource and merged into every answer,
 * so no request and no console edit (the drift fault edits the stored body's scalars, as a person
 * edits a name or a tag) can set them, and the stored bodies the properties compare hold only what
 * the client asked for (not an address handed out in the order the creates arrived).
 */
export function withServerFields(store: FakeRestService, hooks: ServerFieldHooks): FakeRestService {
  const fields = new Map<string, Record<string, Json>>();
  const polls = new Map<string, number>();
  const keyOf = (collection: string, id: string) => `${collection}/${id}`;
  const overlay = (collection: string, v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const id = (v as { id?: unknown }).id;
    return typeof id === 'string' ? { ...(v as JsonObject), ...(fields.get(keyOf(collection, id)) ?? {}) } : v;
  };
  return withHandler(store, (route, method, bodyText, key): RestReply => {
    if (method === 'GET' && route.id !== undefined && hooks.polled && store.get(route.collection, route.id)) {
      const k = keyOf(route.collection, route.id);
      const n = (polls.get(k) ?? 0) + 1;
      polls.set(k, n);
      const f = fields.get(k);
      if (f) fields.set(k, hooks.polled(route.id, f, n));
    }
    const reply = store.handle(route, method, bodyText, key);
    if (reply.status < 200 || reply.status >= 300 || reply.text === null) return reply;
    const body = JSON.parse(reply.text) as unknown;
    if (method === 'POST' && route.id === undefined && body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const id = (body as { id?: unknown }).id;
      if (typeof id === 'string' && !fields.has(keyOf(route.collection, id))) fields.set(keyOf(route.collection, id), hooks.created(id, body as JsonObject));
    }
    const out = Array.isArray(body) ? body.map((x) => overlay(route.collection, x)) : overlay(route.collection, body);
    return { ...reply, text: JSON.stringify(out) };
  });
}
