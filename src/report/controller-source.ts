import { readFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { codeDigestOf, type ReplayedCode } from './code-digest.js';
import { controllerDefinedAt, type ControllerDefinition } from '../runtime/define-controller.js';
import type { ControllerSource } from './result.js';

/**
 * Finds the module and export of a controller defined in a user's file (the vitest matchers do
 * not know them as the CLI does): the file comes from the stack at `defineController`, the
 * export from the source line of that call (`export const web = defineController(...)`), or the
 * file's only exported `defineController` call. Also says whether the module exports
 * `checkOptions`. Null when any of it cannot be told for sure.
 * @internal
 */
export function locateControllerSource(def: ControllerDefinition, cwd: string): ControllerSource | null {
  const site = controllerDefinedAt(def);
  if (!site || site.file.includes(`${sep}node_modules${sep}`)) return null;
  let text: string;
  try {
    text = readFileSync(site.file, 'utf8');
  } catch {
    return null;
  }
  const exportName = exportAt(text, site.line);
  if (exportName === undefined) return null;
  const module = relative(cwd, site.file).split(sep).join('/');
  if (module.startsWith('../')) return null;
  return { module, exportName, checkOptions: /(?:^|\n)\s*export\s+(?:const|let|var|function)\s+checkOptions\b|(?:^|\n)\s*export\s*\{[^}]*\bcheckOptions\b/.test(text) ? 'checkOptions' : null };
}

function exportAt(text: string, line: number): string | undefined {
  const at = text.split('\n')[line - 1] ?? '';
  const here = /^\s*export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)/.exec(at);
  if (here) return here[1];
  if (/^\s*export\s+default\b/.test(at)) return 'default';
  const all = [...text.matchAll(/(?:^|\n)\s*export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=\s*defineController\s*\(/g)].map((m) => m[1]!);
  return all.length === 1 ? all[0] : undefined;
}

/** The module and export that define the (first) controller a replay runs, and its digest; null when that cannot be told. @internal */
export function replayedCodeOf(target: ControllerDefinition | readonly ControllerDefinition[], cwd: string): ReplayedCode | null {
  const first = Array.isArray(target) ? (target as readonly ControllerDefinition[])[0] : (target as ControllerDefinition);
  if (first === undefined) return null;
  const source = locateControllerSource(first, cwd);
  if (source === null) return null;
  const path = resolve(cwd, source.module);
  return { path, cwd, exportName: source.exportName, digest: codeDigestOf(path) };
}
