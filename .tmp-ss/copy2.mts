import { check } from '../src/check.js';
import { eventLoss } from '../faults/index.js';
import { convergence } from '../properties/index.js';
import { sharedCopy, checkOptions } from '../test/e2e/cli-fixtures/shared-copy.js';
const r = await check(sharedCopy, { ...checkOptions, runs: 20, seed: 1, faults: [eventLoss], properties: [convergence()] });
console.log(r.ok, r.ok ? '' : r.explanation.slice(0, 600));
