import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ControllerSource } from './result.js';
import { version } from './version.js';

/**
 * What the code a check ran was, as a digest a replay can compare: the module's own files (its
 * local import graph, followed statically), the version of every package they import by name,
 * and steadystate's version. A replay whose trace differs from the recorded one may say "fixed"
 * only when this changed: with the same code, a different run means the controller depends on
 * something outside the simulation (it noticed it was replayed: argv, thread, environment; red
 * team H5, stop 40).
 * @public
 */
export interface CodeDigest {
  /** sha256 (hex) over every file's path (relative to the module's folder) and content, the package versions and steadystate's version. */
  sha256: string;
  /** How many local files it covers. */
  files: number;
  /** The code under test changed its own files while the check ran: no replay can tell a fix by this digest. */
  changedDuringCheck?: true;
}

/** The code a replay runs: where its controller comes from and the digest of that module. @internal */
export interface ReplayedCode {
  /** Absolute path of the module (or program entry). */
  path: string;
  /** The working directory a recorded (relative) module path is resolved against. */
  cwd: string;
  /** The export holding the controller (empty for a program). */
  exportName: string;
  digest: CodeDigest | null;
}

/**
 * Whether a replay runs the code the check ran: the same module and export, and the same digest
 * (always, when the code changed itself during the check); null when either side is unknown.
 */
export function sameCodeAs(recorded: ControllerSource | null | undefined, code: ReplayedCode | null): boolean | null {
  const digest = recorded?.codeDigest;
  if (!recorded || !digest || code === null || code.digest === null) return null;
  const path = resolve(code.cwd, recorded.program?.entry ?? recorded.module);
  if (path !== code.path || recorded.exportName !== code.exportName) return false;
  return digest.changedDuringCheck === true || digest.sha256 === code.digest.sha256;
}

/**
 * The {@link CodeDigest} of a module and what it imports. Imports are found by reading the
 * sources (`import … from`, `export … from`, `import()`, `require()` with a literal
 * specifier), which over-counts harmlessly (an import in a comment adds a file) and misses what
 * is computed at run time: a dynamic specifier, a file read with `fs`. Those misses can only
 * make a real fix look unchanged, and the replay's message says to run the check again then.
 * Null when the entry cannot be read.
 * @param entry - absolute path of the module (or program entry)
 * @internal
 */
export function codeDigestOf(entry: string): CodeDigest | null {
  if (!isFile(entry)) return null;
  const root = dirname(entry);
  const seen = new Set<string>();
  const packages = new Set<string>();
  const lines: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    lines.push(`file\t${relative(root, file).split(sep).join('/')}\t${createHash('sha256').update(bytes).digest('hex')}`);
    if (!SCANNED.test(file)) continue;
    for (const spec of specifiers(bytes.toString('utf8'))) {
      if (spec.startsWith('.') || spec.startsWith('/')) {
        const found = resolveLocal(dirname(file), spec);
        if (found !== undefined && !found.split(sep).includes('node_modules')) queue.push(found);
      } else if (!spec.startsWith('node:') && !BUILTINS.has(spec) && !spec.startsWith('#') && !/^[a-z]+:/i.test(spec)) {
        const name = packageName(spec);
        if (name !== undefined) packages.add(`package\t${name}@${packageVersion(dirname(file), name)}`);
      }
    }
  }
  const all = [...lines, ...packages].sort();
  all.push(`steadystate\t${version}`);
  return { sha256: createHash('sha256').update(all.join('\n')).digest('hex'), files: lines.length };
}

/** Sources whose imports are followed (JSON and other assets are hashed, not read for imports). */
const SCANNED = /\.(?:[cm]?[jt]sx?)$/;

const BUILTINS = new Set(builtinModules);

/** Literal specifiers of static and dynamic imports, re-exports and `require` calls. */
function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/\b(?:from|import|require)\s*\(?\s*(['"])([^'"\n]+)\1/g)) out.push(m[2]!);
  return out;
}

/** A relative specifier resolved as node and TypeScript do (`./a.js` may be `./a.ts`, a folder its index). */
function resolveLocal(dir: string, spec: string): string | undefined {
  const base = resolve(dir, spec);
  const candidates = [base];
  const ext = /\.([cm]?)jsx?$/.exec(base);
  if (ext) candidates.push(base.slice(0, -ext[0].length) + `.${ext[1]}ts`, base.slice(0, -ext[0].length) + `.${ext[1]}tsx`);
  for (const e of EXTENSIONS) candidates.push(base + e);
  for (const e of EXTENSIONS) candidates.push(join(base, `index${e}`));
  return candidates.find(isFile);
}

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`. */
function packageName(spec: string): string | undefined {
  const parts = spec.split('/');
  if (spec.startsWith('@')) return parts.length >= 2 ? `${parts[0]}/${parts[1]}` : undefined;
  return parts[0] || undefined;
}

/** The version of the package node would find from `dir` (the nearest node_modules that has it), or `?`. */
function packageVersion(dir: string, name: string): string {
  for (let d = dir; ; d = dirname(d)) {
    const manifest = join(d, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      try {
        const v = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version;
        return typeof v === 'string' ? v : '?';
      } catch {
        return '?';
      }
    }
    if (dirname(d) === d) return '?';
  }
}
