/**
 * Resync period of the corpus controllers (virtual ms), as the bug zoo compresses time: a resync
 * comes around within a check's settle phase, which is what repairs a notification that never
 * reached the queue.
 */
export const RESYNC_MS = 10_000;
