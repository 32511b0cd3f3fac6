/**
 * Informer resync period of the fault targets' correct controllers (virtual ms). A lost
 * notification or a stale read is only repaired by the next event for the object, and a
 * level-triggered controller cannot count on one coming: the resync re-enqueues every key. The
 * default (10 hours, as in controller-runtime) never comes around within a check's settle
 * phase, so the targets compress it, as the bug zoo does.
 */
export const RESYNC_MS = 10_000;
