import { allFaults } from '../faults/index.js';
import { defaultProperties as builtInProperties } from '../properties/index.js';
import type { FaultModule } from './harness/fault.js';
import type { Property } from './harness/property.js';

/**
 * Composition root: the default fault catalogue. The only file under src/ (with index.ts and
 * cli/) that imports faults/ and properties/, so the harness takes them as values.
 * @internal
 */
export function defaultFaults(): readonly FaultModule[] {
  return allFaults;
}

/**
 * The default property catalogue: every built-in property with its default options, freshly
 * configured on each call.
 * @internal
 */
export function defaultProperties(): readonly Property[] {
  return builtInProperties();
}
