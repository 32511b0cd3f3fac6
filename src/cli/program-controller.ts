import { isAbsolute, resolve } from 'node:path';
import { defineProgram, type ProgramSpec } from '../kube-rest/define-program.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { UsageError } from './usage-error.js';

// apart from program-target.ts: the command line parses a program's flags without loading the host
/** The controller of a program spec. @internal */
export function programController(spec: ProgramSpec, cwd: string): ControllerDefinition {
  const { entry, ...rest } = spec;
  try {
    return defineProgram({ ...rest, entry: isAbsolute(entry) ? entry : resolve(cwd, entry) });
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
}
