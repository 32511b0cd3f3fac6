import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { PAYMENT, reconcilePayment } from './payment.js';

/**
 * Fixed: one key per charge to make (the first, or the replacement of a recorded charge the API
 * no longer has), however many attempts it takes: an error answer on a retry says nothing about
 * an earlier attempt whose answer was lost.
 */
export const rotatedKeyCorrect = defineController({
  name: 'payment',
  for: PAYMENT,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcilePayment((p) => `${p.metadata.uid}/${p.status.chargeId ?? 'first'}`),
});
