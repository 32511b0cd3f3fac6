import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
export function saveToCorpus(root: string, entry: { controller: string; property: string; summary: string; scenario: Scenario }): string {
  const file = join(corpusDir(root, entry.controller), `${safeFileName(entry.property)}-${hex8(fnv1a(stableStringify(entry.scenario)))}.json`);
  const data: CorpusEntry = { type: 'steadystate/corpus-entry', steadystate: version, formatVersion: 1, ...entry };
  writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/**
 * Loads one controller's corpus, in file-name order (stable across machines). Files that are
 * not corpus entries are skipped and reported, never fatal: the corpus is a cache of past
 * failures, not an input the user wrote.
 * @public
 */
export function loadCorpus(root: string, controller: string): LoadedCorpus {
  const dir = corpusDir(root, controller);
  const out: LoadedCorpus = { scenarios: [], files: [], skipped: [] };
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<CorpusEntry> | null;
      if (data?.type !== 'steadystate/corpus-entry' || typeof data.scenario !== 'object' || data.scenario === null) {
        out.skipped.push({ file, reason: 'not a steadystate corpus entry' });
        continue;
      }
      if (data.controller !== controller) {
        out.skipped.push({ file, reason: `belongs to controller ${JSON.stringify(data.controller)}` });
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
