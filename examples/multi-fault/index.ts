/**
 * The multi-fault bug set: realistic controllers whose bug needs at least two specific faults in a
 * particular order (each fault alone is survived), each with its fixed twin. The yardstick of the
 * search modes: `bench/search.ts` measures how many runs plain swarm, guided swarm and
 * systematic mode need to find each; `examples/multi-fault/exhibits.test.ts` proves each
 * reproduction needs all of its faults.
 */
import type { MultiFaultExhibit } from './exhibit.js';
import { foreignChild } from './foreign-child/exhibit.js';
import { leakedBucket } from './leaked-bucket/exhibit.js';
import { orphanSweep } from './orphan-sweep/exhibit.js';
import { primaryElection } from './primary-election/exhibit.js';
import { rotatedKey } from './rotated-key/exhibit.js';
import { stuckCleanup } from './stuck-cleanup/exhibit.js';

export type { MultiFaultExhibit } from './exhibit.js';

/** Every exhibit, hardest to find by plain swarm last. */
export const multiFault: readonly MultiFaultExhibit[] = [foreignChild, stuckCleanup, primaryElection, leakedBucket, rotatedKey, orphanSweep];

export { foreignChild, leakedBucket, orphanSweep, primaryElection, rotatedKey, stuckCleanup };
