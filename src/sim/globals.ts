/**
 * The few globals the kernel needs from the host, saved when this module loads so that a user's
 * patch (or ours, during a run) can never change how the kernel itself waits.
 * @internal
 */
export const realSetImmediate: (fn: () => void) => unknown = globalThis.setImmediate
  ? (fn) => globalThis.setImmediate(fn)
  : (fn) => Promise.resolve().then(fn);
