import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { PAYMENT, reconcilePayment } from './payment.js';

/**
 * BUG: a new key per failed attempt (`uid/attempt`), so that an attempt the API rejected
 * can be made again. Alone, each failure is handled: a lost response is retried with the same
 * key, an error answer means nothing was charged. But when a charge went through and its response
 * was lost, and the retry then gets an error answer (the API overloaded a moment later), the next
 * attempt carries a new key, and the customer is charged twice.
 */
export const rotatedKeyBuggy = defineController({
  name: 'payment',
  for: PAYMENT,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcilePayment((p, failedAttempts) => `${p.metadata.uid}/${failedAttempts}`),
});
