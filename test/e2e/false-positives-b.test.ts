import { describe } from 'vitest';
import { buggyTwins, corpusGate } from '../helpers/false-positives.js';

/** The false-positive corpus gate, second half (see test/helpers/false-positives.ts). */
describe('false-positive corpus (part 2 of 2)', () => {
  corpusGate(1, 2);
  buggyTwins(1, 2);
});
