import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ProgramServiceSpec, ProgramSpec } from '../kube-rest/define-program.js';
import type { CheckCommandOptions } from './options.js';
import { UsageError } from './usage-error.js';

export type { ProgramSpec };

const PROGRAM_FLAGS = ['for', 'name', 'arg', 'env', 'sample', 'resource', 'restartBackoff', 'service'] as const;
const flagName = (f: (typeof PROGRAM_FLAGS)[number]): string => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * The program `steadystate check --program FILE …` names, or undefined when the check is of a
 * module (then none of the program flags may be given).
 * @throws UsageError for a missing file, a missing --for, a module given too, or program flags without --program
 * @internal
 */
export function programSpecOf(o: CheckCommandOptions, cwd: string): ProgramSpec | undefined {
  if (o.program === undefined) {
    const stray = PROGRAM_FLAGS.filter((f) => o[f] !== undefined);
    const services = stray.includes('service') ? ` A module declares the services its controllers call in its checkOptions: export const checkOptions = { downstream: () => ({ services: [fakeRestService({ baseUrl: '${o.service?.[0]?.baseUrl ?? 'https://api.example'}' })] }) }.` : '';
    if (stray.length > 0) throw new UsageError(`steadystate check: ${stray.map(flagName).join(', ')} ${stray.length === 1 ? 'goes' : 'go'} with --program FILE (a program checked unchanged); a module's controllers carry their own settings.${services}`);
    if (o.module === undefined) throw new UsageError('steadystate check: missing <module>: a .ts or .js file exporting controllers made by defineController, or --program FILE for a program that runs as the operator process. Usage: steadystate check <module>, or steadystate check --program src/operator.ts --for <Kind>.');
    return undefined;
  }
  if (o.module !== undefined) throw new UsageError(`steadystate check: give either a module (${o.module}) or --program ${o.program}, not both: a module exports controllers, a program is run as the operator process itself.`);
  if (o.controller !== undefined) throw new UsageError('steadystate check: --controller picks an export of a module; with --program the program is the controller (name it with --name).');
  const entry = isAbsolute(o.program) ? o.program : resolve(cwd, o.program);
  if (!existsSync(entry)) throw new UsageError(`steadystate check: cannot find the program ${JSON.stringify(o.program)} (looked at ${entry}). Paths are relative to the current directory (${cwd}).`);
  if (statSync(entry).isDirectory()) throw new UsageError(`steadystate check: --program ${o.program} is a directory; pass the program's entry file, e.g. ${o.program.replace(/\/$/, '')}/index.ts.`);
  if (o.for === undefined) throw new UsageError(`steadystate check: --program ${o.program} needs --for KIND: the kind of the objects the program reconciles (what the check generates and judges), e.g. --for ConfigMap or --for WebApp.`);
  if (o.service !== undefined) distinctServices(o.service);
  return {
    entry,
    for: o.for,
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.arg !== undefined ? { args: o.arg } : {}),
    ...(o.env !== undefined ? { env: Object.fromEntries(o.env) } : {}),
    ...(o.sample !== undefined ? { sample: o.sample } : {}),
    ...(o.resource !== undefined ? { resources: o.resource } : {}),
    ...(o.restartBackoff !== undefined ? { restartBackoff: o.restartBackoff } : {}),
    ...(o.service !== undefined ? { services: o.service } : {}),
  };
}

/**
 * Two --service flags for one base URL, or of one name (reports and replays tell services
 * apart by name; the default is the URL's host), are a usage error.
 */
function distinctServices(services: readonly ProgramServiceSpec[]): void {
  const seen = new Set<string>();
  for (const s of services) {
    const url = new URL(s.baseUrl);
    const base = (url.origin + url.pathname).replace(/\/+$/, '');
    const name = s.name ?? url.host;
    for (const [key, what] of [[`url ${base}`, `two --service flags name the base URL ${base}; give it once, with all its options`], [`name ${name}`, `two --service flags make services named ${JSON.stringify(name)} (the name defaults to the URL's host); give one another name, e.g. --service ${s.baseUrl},name=${name}-2`]] as const) {
      if (seen.has(key)) throw new UsageError(`steadystate check: ${what}.`);
      seen.add(key);
    }
  }
}

/** The spec as a reproduction records it: the entry relative to the working directory. @internal */
export function portableSpec(spec: ProgramSpec, cwd: string): ProgramSpec {
  const rel = relative(cwd, spec.entry).split('\\').join('/');
  return { ...spec, entry: rel.startsWith('..') ? spec.entry : rel };
}
