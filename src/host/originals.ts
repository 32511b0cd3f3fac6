/**
 * The host globals the run guard patches, saved when this module loads (before any run, and so
 * before any user code could replace them): the guard's own bookkeeping and the CLI's final exit
 * always use these, never whatever a program left behind.
 * @internal
 */
// frozen: code under test imports this very module and could undo the exit fix (red team N5, stop 41)
export const originals = Object.freeze({
  exit: process.exit.bind(process) as (code?: number) => never,
  /** Node's native exit, which `process.exit` calls after the 'exit' event: code under test that replaced it (or `process.emit`) would choose the CLI's exit code. */
  reallyExit: (process as unknown as { reallyExit: (code: number) => never }).reallyExit.bind(process),
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
});
