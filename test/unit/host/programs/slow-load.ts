/**
 * Host fixture: a program whose modules load slowly (the test's loader hook delays every module
 * under `slow-chain/`), as a starved loader thread does under host load. Once loaded it logs, and
 * again a second later on the simulated clock.
 */
import { chain } from './slow-chain/a.js';

console.log(`started: ${chain.join(' ')}`);
setTimeout(() => console.log('a second later'), 1_000);
