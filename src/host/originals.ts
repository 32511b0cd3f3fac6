/**
 * The host globals the run guard patches, saved when this module loads (before any run, and so
 * before any user code could replace them): the guard's own bookkeeping and the CLI's final exit
 * always use these, never whatever a program left behind.
 * @internal
 */
export const originals = {
  exit: process.exit.bind(process) as (code?: number) => never,
  abort: process.abort.bind(process) as () => never,
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  setImmediate: globalThis.setImmediate,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
  clearImmediate: globalThis.clearImmediate,
  Date: globalThis.Date,
  dateNow: Date.now,
  performanceNow: performance.now.bind(performance),
};
