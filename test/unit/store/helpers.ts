import { StoreError } from '../../../src/store/errors.js';
import { VirtualClock } from '../../../src/sim/clock.js';
import type { JsonObject, NewObject } from '../../../src/store/object.js';
import { ObjectStore, type StoreOptions, type WatchEvent, type WriteRecord } from '../../../src/store/store.js';

export interface Fixture {
  store: ObjectStore;
  clock: VirtualClock;
  writes: WriteRecord[];
  /** Write records since the last call. */
  take(): WriteRecord[];
}

/** A store on a fresh virtual clock that records every write. */
export function makeStore(options: Partial<StoreOptions> = {}): Fixture {
  const clock = new VirtualClock();
  const writes: WriteRecord[] = [];
  let seen = 0;
  const store = new ObjectStore({ clock, ...options, onWrite: (w) => { writes.push(w); options.onWrite?.(w); } });
  return {
    store,
    clock,
    writes,
    take() {
      const out = writes.slice(seen);
      seen = writes.length;
      return out;
    },
  };
}

/** A Widget in namespace `default`. */
export function widget(name: string, spec: JsonObject = { replicas: 1 }, extra: Partial<NewObject['metadata']> = {}): NewObject {
  return { apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name, namespace: 'default', ...extra }, spec };
}

/** Collects the events of a watch. */
export function collect(): { events: WatchEvent[]; fn: (ev: WatchEvent) => void; summary(): string[] } {
  const events: WatchEvent[] = [];
  return {
    events,
    fn: (ev) => events.push(ev),
    summary: () => events.map((e) => `${e.type} ${e.type === 'BOOKMARK' ? '' : e.object.metadata.name}@${e.rv}`.replace(' @', '@')),
  };
}

/** Runs fn and returns the error it throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

export const ref = (name: string, namespace = 'default') => ({ namespace, name });

/** The StoreError `fn` throws (anything else it throws is rethrown; no throw fails the test). */
export function failure(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreError) return err;
    throw err;
  }
  throw new Error('expected a store error');
}
