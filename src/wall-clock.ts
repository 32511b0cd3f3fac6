/**
 * The host's wall clock, read at the edge of the system and injected into the simulation (which
 * never reads one itself): it paces the kernel's yields to the event loop and the wall-clock
 * budgets of `check`. Saved when this module loads, so the determinism self-check's shifted
 * clock (host-probe.ts) neither moves it nor counts its reads as the reconciler's.
 * @internal
 */
const hostNow = performance.now.bind(performance);

/** Wall-clock milliseconds (monotonic). @internal */
export const wallClock = (): number => hostNow();
