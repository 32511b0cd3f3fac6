import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
import type { Story } from '../harness/story.js';
import type { NewObject } from '../store/object.js';
import { manifestEntries, refuseDuplicates, type ManifestEntry } from './parse-manifests.js';
import { parseStory } from './parse-story.js';
import { StoryFileError } from './story-file-error.js';

/** Where relative file names start. @public */
export interface LoadStoryOptions {
  /** @defaultValue process.cwd() */
  cwd?: string;
}

/**
 * Reads Kubernetes YAML manifests (paths or globs such as `config/samples/*.yaml`, relative to
 * `cwd`) into the objects they declare, files in name order, documents in file order.
 * @throws StoryFileError for a pattern that matches nothing, an unreadable file, malformed YAML or
 * a document without kind or name (naming the file, the document and the line)
 * @public
 */
export function loadManifests(patterns: readonly string[], options: LoadStoryOptions = {}): NewObject[] {
  const cwd = options.cwd ?? process.cwd();
  const entries = patterns.flatMap((p) => readPattern(p, cwd, cwd));
  refuseDuplicates(entries);
  return entries.map((e) => e.object);
}

/**
 * Reads a story file (YAML or JSON; see {@link parseStory}) and the manifests it names (relative
 * to the story file) into a {@link Story} for `check`.
 * @throws StoryFileError naming the file, the step or document, and the line
 * @public
 */
export function loadStory(file: string, options: LoadStoryOptions = {}): Story {
  const cwd = options.cwd ?? process.cwd();
  const path = resolve(cwd, file);
  const text = readText(path, shownName(path, cwd), 'story file');
  const base = dirname(path);
  const initial: ManifestEntry[] = [];
  let collecting = true;
  const story = parseStory(text, shownName(path, cwd), (pattern) => {
    const entries = readPattern(pattern, base, cwd);
    if (collecting) initial.push(...entries);
    return entries.map((e) => e.object);
  }, () => {
    // the manifests created at t=0 are read first; steps may name the same files again
    collecting = false;
    refuseDuplicates(initial);
  });
  return story;
}

function readPattern(pattern: string, base: string, cwd: string): ManifestEntry[] {
  if (!isDynamicPattern(pattern)) {
    const path = isAbsolute(pattern) ? pattern : join(base, pattern);
    return manifestEntries(readText(path, shownName(path, cwd), 'manifest'), shownName(path, cwd));
  }
  const files = globSync(pattern, { cwd: base, absolute: true, onlyFiles: true, expandDirectories: false }).sort();
  if (files.length === 0) throw new StoryFileError(`steadystate: no file matches ${JSON.stringify(pattern)} (looked in ${shownName(base, cwd) || '.'}). Check the pattern, e.g. config/samples/*.yaml, relative to ${base === cwd ? 'the working directory' : 'the story file'}.`, pattern);
  return files.flatMap((f) => manifestEntries(readText(f, shownName(f, cwd), 'manifest'), shownName(f, cwd)));
}

function readText(path: string, shown: string, what: string): string {
  try {
    if (statSync(path).isDirectory()) throw new StoryFileError(`steadystate: cannot read the ${what} ${shown}: it is a directory. Name a .yaml file, or a glob such as ${shown}/*.yaml.`, shown);
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof StoryFileError) throw err;
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : err instanceof Error ? err.message : String(err);
    throw new StoryFileError(`steadystate: cannot read the ${what} ${shown} (${why}). Check the path; it is relative to ${what === 'manifest' ? 'the story file, or to the working directory for --manifests' : 'the working directory'}.`, shown);
  }
}

function shownName(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel.split('\\').join('/');
}
