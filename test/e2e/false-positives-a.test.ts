import { describe } from 'vitest';
import { buggyTwins, corpusGate, knownFalseAlarms } from '../helpers/false-positives.js';

/** The false-positive corpus gate, first half (see test/helpers/false-positives.ts). */
describe('false-positive corpus (part 1 of 2)', () => {
  corpusGate(0, 2);
  knownFalseAlarms();
  buggyTwins(0, 2);
});
