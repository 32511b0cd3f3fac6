import fc from 'fast-check';
import { defineFault } from '../../src/harness/fault.js';

/**
 * Small fault modules the property tests use where the built-in catalogue (faults/, being
 * filled concurrently) has no kind yet. Each is a real FaultModule through the real seams.
 */

/** Every downstream call whose URL contains `params.match` (all when absent) answers 503 during the fault window. */
export const testOutage = defineFault({
  kind: 'test-outage',
  models: 'an external API that fails every call for a while',
  survivedBy: 'backoff',
  actsOn: 'fetch',
  arbitrary: () => fc.constant([{ kind: 'test-outage' }]),
  install({ world, fired }, plan) {
    const match = plan.events.map((e) => String(e.params?.['match'] ?? ''));
    return world.seams.install({
      onFetch(i) {
        if (!match.some((m) => i.url.includes(m))) return undefined;
        fired({ endpoint: i.endpoint, seq: i.seq });
        return { type: 'status', status: 503 };
      },
    });
  },
});

/** The nth mutating downstream call (0-based, counting only mutating ones) is applied, but its response is lost. */
export const testLostResponse = defineFault({
  kind: 'test-lost-response',
  models: 'a request the server applied whose response never arrived (connection reset)',
  survivedBy: 'idempotency keys or looking the resource up before creating',
  actsOn: 'fetch',
  arbitrary: () => fc.constant([{ kind: 'test-lost-response', nth: 0 }]),
  install({ world, fired }, plan) {
    const nths = new Set(plan.events.map((e) => e.nth ?? 0));
    let n = 0;
    return world.seams.install({
      onFetch(i) {
        if (i.method === 'GET' || i.method === 'HEAD') return undefined;
        if (!nths.has(n++)) return undefined;
        fired({ endpoint: i.endpoint, method: i.method, nth: n - 1 });
        return { type: 'applied-but-lost' };
      },
    });
  },
});

/** Drops the nth watch event (0-based) on its way to an informer: the cache misses it until a relist. */
export const testWatchDrop = defineFault({
  kind: 'test-watch-drop',
  models: 'a watch event lost between the API server and the informer',
  survivedBy: 'relist; deterministic names; re-reading live state',
  actsOn: 'watch',
  arbitrary: () => fc.constant([{ kind: 'test-watch-drop', nth: 0 }]),
  install({ world, fired }, plan) {
    const nths = new Set(plan.events.map((e) => e.nth ?? 0));
    const kind = plan.events.find((e) => e.target)?.target;
    let n = 0;
    return world.seams.install({
      onWatchEvent(i) {
        if (kind !== undefined && i.kind !== kind) return undefined;
        if (!nths.has(n++)) return undefined;
        fired({ controller: i.controller, kind: i.kind, key: i.event.object.metadata.name, event: i.event.type, rv: i.event.rv });
        return { type: 'drop' };
      },
    });
  },
});

export const testFaults = [testOutage, testLostResponse, testWatchDrop];
