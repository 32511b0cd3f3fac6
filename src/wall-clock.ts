/**
 * The host's wall clock, read at the edge of the system and injected into the simulation (which
 * never reads one itself): it paces the kernel's yields to the event loop and the wall-clock
 * budgets of `check`.
 * @internal
 */
export const wallClock = (): number => performance.now();
