import { allFaults } from '../faults/index.js';
import type { FaultModule } from './harness/fault.js';

/**
 * Composition root: the default fault catalogue. The only file under src/ (with index.ts and
 * cli/) that imports faults/ and properties/, so the harness takes them as values.
 * @internal
 */
export function defaultFaults(): readonly FaultModule[] {
  return allFaults;
}
