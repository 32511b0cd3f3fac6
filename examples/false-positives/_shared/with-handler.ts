import type { FakeRestService } from '../../../src/index.js';
import type { RestReply, RestRoute } from '../../../src/downstream/fake-rest-service.js';

/**
 * A fake REST service with one behaviour of its own (answering in pages, declining a card,
 * fencing stale writers): `handle` answers every request and may pass it on to `store.handle`;
 * everything else (its resources, history, drift hooks) is `store`'s.
 */
export function withHandler(store: FakeRestService, handle: (route: RestRoute, method: string, bodyText: string | undefined, key: string | undefined) => RestReply): FakeRestService {
  return {
    get name() {
      return store.name;
    },
    get baseUrl() {
      return store.baseUrl;
    },
    get options() {
      return store.options;
    },
    get createdCount() {
      return store.createdCount;
    },
    resources: (c) => store.resources(c),
    collections: () => store.collections(),
    history: () => store.history(),
    edits: () => store.edits(),
    get: (c, id) => store.get(c, id),
    mutate: (c, id, patch) => store.mutate(c, id, patch),
    remove: (c, id) => store.remove(c, id),
    byOwner: (field) => store.byOwner(field),
    route: (url) => store.route(url),
    handle,
  };
}
