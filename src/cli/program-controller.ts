import { isAbsolute, resolve } from 'node:path';
import { defineProgram, programDownstream, type ProgramSpec } from '../kube-rest/define-program.js';
import type { CheckOptions } from '../harness/check-options.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { UsageError } from './usage-error.js';

// apart from program-target.ts: the command line parses a program's flags without loading the host
/** The controller of a program spec. @internal */
export function programController(spec: ProgramSpec, cwd: string): ControllerDefinition {
  // the services are the check's downstream (programCheckOptions), not the controller's
  const { entry, services: _services, ...rest } = spec;
  try {
    return defineProgram({ ...rest, entry: isAbsolute(entry) ? entry : resolve(cwd, entry) });
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The check options a program spec carries (what a module's `checkOptions` would): the fake
 * services of its `--service` flags, rebuilt for every run (and by a replay from the spec the
 * reproduction recorded).
 * @param where - how messages name the spec's origin, e.g. `--service` or the reproduction file
 * @throws UsageError for a service that cannot be built
 * @internal
 */
export function programCheckOptions(spec: ProgramSpec, where: string): CheckOptions {
  try {
    const downstream = programDownstream(spec);
    return downstream ? { downstream } : {};
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('steadystate')) throw new UsageError(`steadystate: ${where}: ${err.message.replace(/^steadystate\.[A-Za-z]+: /, '')}`);
    throw err;
  }
}
