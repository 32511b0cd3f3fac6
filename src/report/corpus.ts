import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseScenario, type Scenario } from '../harness/scenario.js';
import { fnv1a, hex8, stableStringify } from '../sim/hash.js';
import { version } from './version.js';
import { safeFileName, writeAtomic } from './write-atomic.js';

/**
 * One kept failing scenario. The regression corpus lives under `reports/corpus/<controller>/`,
 * one file per distinct scenario, and is replayed before any new scenario on the next check of
 * the same controller, so a bug once found stays found.
 * @public
 */
export interface CorpusEntry {
  type: 'steadystate/corpus-entry';
  steadystate: string;
  formatVersion: 1;
  controller: string;
  /** The property it failed when it was saved. */
  property: string;
  summary: string;
  scenario: Scenario;
  /**
   * For a program checked with `--program`: its entry module, relative to the corpus root
   * (posix separators, e.g. `../../src/operator.ts` for `reports/corpus`; absolute when the two
   * share no folder but the filesystem root), so the entry is found from any working directory
   * or checkout. Two programs of one name (both `main`, the default
   * name of `a/main.ts` and `b/main.ts`) share a directory; each replays only its own entries.
   * Absent for a module's controller.
   */
  program?: string;
}

/** Scenarios loaded from the corpus, and files that could not be used (with why). @public */
export interface LoadedCorpus {
  scenarios: Scenario[];
  files: string[];
  skipped: { file: string; reason: string }[];
}

/** Directory of one controller's corpus. @public */
export function corpusDir(root: string, controller: string): string {
  return join(root, safeFileName(controller));
}

/**
 * Saves a failing scenario to the corpus (atomically; the same scenario twice is one file).
 * @param root - the corpus root, e.g. `reports/corpus`
 * @returns the file written
 * @public
 */
export function saveToCorpus(root: string, entry: { controller: string; property: string; summary: string; scenario: Scenario; /** A program's entry module (absolute, or relative to the working directory). */ program?: string }): string {
  const { program, ...rest } = entry;
  const file = join(corpusDir(root, entry.controller), `${safeFileName(entry.property)}-${hex8(fnv1a(stableStringify(entry.scenario)))}.json`);
  const data: CorpusEntry = { type: 'steadystate/corpus-entry', steadystate: version, formatVersion: 1, ...rest, ...(program !== undefined ? { program: entryFromRoot(root, program) } : {}) };
  writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** A program's entry as a corpus entry records it: relative to the corpus root, posix separators. */
function entryFromRoot(root: string, entry: string): string {
  const from = resolve(root);
  const rel = relative(from, resolve(entry)).split(sep).join('/');
  // in another tree altogether (only the filesystem root in common): the absolute path says more
  const up = rel.split('/').filter((p) => p === '..').length;
  return up > 0 && up >= from.split(sep).filter((p) => p !== '').length ? resolve(entry) : rel;
}

/**
 * The text of every corpus entry file under `root` (`<root>/<controller>/*.json`), by path. The
 * CLI reads it before the checked module loads: a module that deleted or rewrote the corpus at
 * import would otherwise skip the replay of the failures it once had (red team H1, stop 43).
 * @internal
 */
export type CorpusSnapshot = Record<string, string>;

/** Reads {@link CorpusSnapshot}; files that cannot be read are left out (loading reports nothing for them either). @internal */
export function snapshotCorpus(root: string): CorpusSnapshot {
  const out: CorpusSnapshot = {};
  let dirs: string[];
  try {
    dirs = readdirSync(root);
  } catch {
    return out;
  }
  for (const d of dirs.sort()) {
    const dir = join(root, d);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      try {
        out[join(dir, name)] = readFileSync(join(dir, name), 'utf8');
      } catch {
        // unreadable now: the load would skip it too
      }
    }
  }
  return out;
}

/**
 * Loads one controller's corpus, in file-name order (stable across machines). Files that are
 * not corpus entries are skipped and reported, never fatal: the corpus is a cache of past
 * failures, not an input the user wrote.
 * @param options - `program`: the entry module of the program being checked (absolute, or
 * relative to the working directory): entries another program of the same name saved, or that
 * name no program, are skipped; `null` for a module's controller: entries a program saved are
 * skipped. Absent: every entry of the controller's name is loaded (as before programs).
 * `snapshot`: the files as {@link snapshotCorpus} read them earlier, instead of the disk.
 * @public
 */
export function loadCorpus(root: string, controller: string, options: { program?: string | null; snapshot?: CorpusSnapshot } = {}): LoadedCorpus {
  const dir = corpusDir(root, controller);
  const out: LoadedCorpus = { scenarios: [], files: [], skipped: [] };
  const snapshot = options.snapshot;
  const names = snapshot ? Object.keys(snapshot).filter((f) => dirname(f) === dir).map((f) => basename(f)) : existsSync(dir) ? readdirSync(dir) : [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    try {
      const data = JSON.parse(snapshot ? snapshot[file]! : readFileSync(file, 'utf8')) as Partial<CorpusEntry> | null;
      if (data?.type !== 'steadystate/corpus-entry' || typeof data.scenario !== 'object' || data.scenario === null) {
        out.skipped.push({ file, reason: 'not a steadystate corpus entry' });
        continue;
      }
      if (data.controller !== controller) {
        out.skipped.push({ file, reason: `belongs to controller ${JSON.stringify(data.controller)}` });
        continue;
      }
      const other = options.program === undefined ? undefined : otherOwner(root, controller, data.program, options.program);
      if (other !== undefined) {
        out.skipped.push({ file, reason: other });
        continue;
      }
      out.scenarios.push(parseScenario(data.scenario, file));
      out.files.push(file);
    } catch (err) {
      out.skipped.push({ file, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/**
 * Why an entry is not this check's to replay (it shares the controller name only), or undefined
 * when it is: a program replays the entries that record its entry module, a module's controller
 * those that record none.
 */
function otherOwner(root: string, controller: string, recorded: unknown, program: string | null): string | undefined {
  // for people: the entry as a path from the working directory
  const shown = (p: string): string => entryFromRoot(process.cwd(), p);
  if (program === null) return typeof recorded === 'string' ? `saved by the program ${shown(resolve(root, recorded))}, which has this controller's name; a module's controller does not replay it` : undefined;
  if (typeof recorded !== 'string') return `it names no program (a module's controller of the same name saved it, or an older steadystate did), so it may be another program's scenario; delete it if it is stale`;
  if (resolve(root, recorded) === resolve(program)) return undefined;
  return `saved by ${shown(resolve(root, recorded))}, another program named ${JSON.stringify(controller)}, not by ${shown(resolve(program))}; give the two distinct --name values to keep their corpora apart`;
}
