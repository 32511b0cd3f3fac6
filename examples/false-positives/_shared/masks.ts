import { PLACEMENT_FIELDS, type Property } from '../../../src/index.js';
import { recovery } from '../../../properties/recovery.js';
import { sameEndState } from '../../../properties/same-end-state.js';

/**
 * same-end-state and recovery with their default masks plus `assignedElsewhere`: fields others
 * assign by timing (a scheduler's node and IPs, a server-assigned external id), which differ
 * between a run and its twin for reasons no controller controls.
 */
export function endStateProperties(...assignedElsewhere: string[]): Property[] {
  // each property's own default masks (generations, condition times) stay: masks replace the defaults
  const withDefaults = (p: Property) => [...(p.options['masks'] as string[]), ...assignedElsewhere];
  return [sameEndState({ masks: withDefaults(sameEndState()) }), recovery({ masks: withDefaults(recovery()) })];
}

/** {@link endStateProperties} for worlds with Pods (the scheduler's placement fields). */
export function podEndStateProperties(...assignedElsewhere: string[]): Property[] {
  return endStateProperties(...PLACEMENT_FIELDS, ...assignedElsewhere);
}
