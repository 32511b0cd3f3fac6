/**
 * The few globals the kernel needs from the host, saved when this module loads so that a user's
 * patch (or ours, during a run) can never change how the kernel itself waits.
 * @internal
 */
const savedSetImmediate = globalThis.setImmediate;
export const realSetImmediate: (fn: () => void) => unknown = savedSetImmediate ? (fn) => savedSetImmediate(fn) : (fn) => Promise.resolve().then(fn);
