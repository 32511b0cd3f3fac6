/**
 * Informer resync period of the zoo's controllers (virtual ms). controller-runtime's default is
 * 10 hours; the zoo compresses time so that a resync comes around within a check's settle phase,
 * which is what lets a level-triggered controller recover from a notification that never reached
 * its queue.
 */
export const RESYNC_MS = 10_000;
