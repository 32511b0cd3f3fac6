import { noDuplicateSideEffects } from '../../../properties/no-duplicate-side-effects.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks } from '../../bug-zoo/zoo-entry.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { rotatedKeyBuggy } from './buggy.js';
import { rotatedKeyCorrect } from './correct.js';
import { PAYMENT, PAYMENTS_API } from './payment.js';

export const rotatedKey: MultiFaultExhibit = {
  name: 'rotated-key',
  description: 'a Payment controller makes a new idempotency key after each failed attempt; a charge whose response was lost, then an error answer on the retry, charge the customer twice',
  needs: ['flaky-downstream applied-but-lost on the POST /charges', 'flaky-downstream error answer (5xx/429) on the retried POST'],
  caughtBy: 'no-duplicate-side-effects',
  property: () => noDuplicateSideEffects(),
  buggy: [rotatedKeyBuggy],
  correct: [rotatedKeyCorrect],
  options: {
    objects: { kind: PAYMENT, name: 'invoice', spec: [{ customer: 'cus_1', amount: 1200 }, { customer: 'cus_1', amount: 1500 }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: PAYMENTS_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  // a charge replaced after someone deleted it at the API gets a new id
  properties: [sameEndState({ masks: endStateMasks('status.chargeId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'payment' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: PAYMENT, metadata: { name: 'invoice', namespace: 'default' }, spec: { customer: 'cus_1', amount: 1200 } } }],
    faults: {
      events: [
        { kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } },
        { kind: 'flaky-downstream', nth: 1, params: { fail: 'status', status: 503 } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
