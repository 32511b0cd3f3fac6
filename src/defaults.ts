import { allFaults } from '../faults/index.js';
import { allProperties, defaultProperties as builtInProperties } from '../properties/index.js';
import { allEnvironmentActors } from './environment/index.js';
import type { EnvironmentActor } from './harness/environment.js';
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

/**
 * A built-in property by name, configured with options read back from a reproduction file
 * (entries that were functions, written as "<function>", fall back to the defaults), or
 * undefined when no built-in property has that name.
 * @internal
 */
export function builtInProperty(name: string, options?: Readonly<Record<string, unknown>> | null): Property | undefined {
  const factory = allProperties.find((f) => f.propertyName === name);
  if (!factory) return undefined;
  const plain = Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== '<function>'));
  return factory(plain);
}

/**
 * The built-in environment actors (pod-lifecycle, deployment, cluster, …), which a scenario may
 * name without passing them: `simulate` and `replay` know them by name.
 * @internal
 */
export function defaultEnvironment(): readonly EnvironmentActor[] {
  return allEnvironmentActors;
}

/** `given`, then every built-in actor whose name `given` does not use. @internal */
export function withDefaultEnvironment(given: readonly EnvironmentActor[]): EnvironmentActor[] {
  const names = new Set(given.map((a) => a.name));
  return [...given, ...allEnvironmentActors.filter((a) => !names.has(a.name))];
}
