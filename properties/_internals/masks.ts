import { diff } from '@vitest/utils/diff';
import type { LearnedMasks } from '../../src/harness/property.js';
import { PLACEMENT_FIELDS } from '../../src/environment/pod-lifecycle.js';
import { stable } from './json.js';
import { allPaths, dropPath, fmtPath, leafDiffs, nearest, parsePath, parsePattern, permutedArrays, sortAt, type PatternStep, type Segment } from './paths.js';

/**
 * Masks of the differential properties (same-end-state, recovery, no-extra-destructive-actions):
 * the user's (validated against every state compared: a mask that matches nothing in any run is
 * an error naming the nearest path) and the learned ones, Sieve-style: what differs between
 * benign fault-free runs of the same scenario is path, not destination.
 * @internal
 */

/** The condition fields every controller stamps with times or generations: masked by default. */
export const CONDITION_MASKS: readonly string[] = ['status.conditions[*].lastTransitionTime', 'status.conditions[*].lastHeartbeatTime', 'status.conditions[*].observedGeneration'];

/** Why a list of masks is malformed, or undefined. */
export function masksProblem(masks: unknown): string | undefined {
  if (!Array.isArray(masks)) return 'masks must be an array of field paths such as "status.conditions[*].lastTransitionTime"';
  for (const m of masks) {
    if (typeof m !== 'string' || m === '') return 'masks must be an array of non-empty field paths';
    const p = parsePattern(m);
    if (typeof p === 'string') return `mask ${JSON.stringify(m)}: ${p}`;
  }
  return undefined;
}

const compiled = new Map<string, PatternStep[]>();

/** A mask's steps (parsed once). */
export function patternOf(mask: string): PatternStep[] {
  let p = compiled.get(mask);
  if (!p) {
    const r = parsePattern(mask);
    if (typeof r === 'string') throw new TypeError(r);
    compiled.set(mask, (p = r));
  }
  return p;
}

/** How often each user mask matched, and the paths seen, over every state a property compared. */
export class MaskTally {
  readonly hits = new Map<string, number>();
  readonly paths = new Set<string>();
  compared = 0;

  /**
   * @param collectPaths - whether to keep the paths seen: they only serve the "nearest path" of a
   * mask {@link problems} can report, so a property with no such mask skips them (they were ~5% of
   * what a zoo check allocates)
   */
  constructor(readonly collectPaths = true) {}

  /**
   * Problems: user masks that matched nothing in any compared state. Not the property's
   * `defaults` nor the harness's own bundles (PLACEMENT_FIELDS): those name real fields, which a
   * world may just not have at the end (a Sandbox whose Pod is gone).
   */
  problems(masks: readonly string[], defaults: readonly string[]): string[] {
    if (this.compared === 0) return [];
    const out: string[] = [];
    for (const m of masks) {
      if (!reportable(m, defaults) || (this.hits.get(m) ?? 0) > 0) continue;
      const near = nearest(m, this.paths);
      out.push(`mask ${JSON.stringify(m)} matches no path in any of the ${this.compared} states compared${near ? `; the nearest path is ${JSON.stringify(near)}` : ''}. Fix the path or remove the mask.`);
    }
    return out;
  }
}

/** Whether a mask that matches nothing is a problem: it is neither the property's default nor a harness bundle. */
function reportable(mask: string, defaults: readonly string[]): boolean {
  return !defaults.includes(mask) && !PLACEMENT_FIELDS.includes(mask);
}

/** Per configured property (its resolved options object, with its masks and the property's defaults), its tally. */
export function tallyOf(tallies: WeakMap<object, MaskTally>, options: { masks: readonly string[] }, defaults: readonly string[]): MaskTally {
  let t = tallies.get(options);
  if (!t) tallies.set(options, (t = new MaskTally(options.masks.some((m) => reportable(m, defaults)))));
  return t;
}

/** A state: id (`Kind namespace/name`) → value. */
export type State = Map<string, unknown>;

/** What benign runs disagree on, learned from their states (the first is the reference). */
export function learnStateMasks(states: readonly State[]): LearnedMasks {
  const objects = new Set<string>();
  const sets = new Set<string>();
  const paths = new Set<string>();
  const optional = new Set<string>();
  if (states.length < 2) return {};
  const ids = new Set(states.flatMap((s) => [...s.keys()]));
  for (const id of ids) {
    if (!states.every((s) => s.has(id))) {
      objects.add(id);
      continue;
    }
    const base = states[0]!.get(id);
    // lists whose members only permute compare as sets
    const setPaths: Segment[][] = [];
    for (const s of states.slice(1)) for (const p of permutedArrays(base, s.get(id))) if (!setPaths.some((q) => fmtPath(q) === fmtPath(p))) setPaths.push(p);
    for (const p of setPaths) sets.add(`${id}: ${fmtPath(p)}`);
    const canon = (v: unknown) => setPaths.reduce((x, p) => sortAt(x, p), v);
    // a leaf every benign run has, with values that differ, is masked by value: a run without it still differs
    for (const s of states.slice(1)) for (const d of leafDiffs(canon(base), canon(s.get(id)))) (d.expected === undefined || d.actual === undefined ? optional : paths).add(`${id}: ${fmtPath(d.path)}`);
  }
  for (const p of optional) paths.delete(p);
  return { objects: [...objects].sort(), sets: [...sets].sort(), paths: [...paths].sort(), optional: [...optional].sort() };
}

/** What a value masked by learning compares as. */
const VARIES = '<differs between fault-free runs>';

function maskValue(value: unknown, path: readonly Segment[]): unknown {
  if (path.length === 0) return value === undefined ? undefined : VARIES;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (Array.isArray(value) && typeof head === 'number' && head < value.length) return value.map((el, i) => (i === head ? maskValue(el, rest) : el));
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof head === 'string' && head in value) return { ...(value as Record<string, unknown>), [head]: maskValue((value as Record<string, unknown>)[head], rest) };
  return value;
}

function split(entry: string): [string, Segment[]] | undefined {
  const i = entry.indexOf(': ');
  if (i < 0) return undefined;
  const path = parsePath(entry.slice(i + 2));
  return path === undefined ? undefined : [entry.slice(0, i), path];
}

/** A state without what the learned masks leave out (whole objects, paths) and with learned sets in canonical order. */
export function applyLearned(state: State, learned: LearnedMasks | undefined): State {
  if (!learned) return state;
  const out: State = new Map(state);
  for (const id of learned['objects'] ?? []) out.delete(id);
  for (const e of learned['sets'] ?? []) {
    const s = split(e);
    if (s && out.has(s[0])) out.set(s[0], sortAt(out.get(s[0]), s[1]));
  }
  for (const e of learned['optional'] ?? []) {
    const s = split(e);
    if (s && out.has(s[0])) out.set(s[0], dropPath(out.get(s[0]), s[1]));
  }
  for (const e of learned['paths'] ?? []) {
    const s = split(e);
    if (s && out.has(s[0])) out.set(s[0], maskValue(out.get(s[0]), s[1]));
  }
  return out;
}

/** An object that is not there, as an alternative. */
const ABSENT = '<absent>';

/** One object's value (or {@link ABSENT}) with the learned masks applied, as a string. */
function maskedOne(id: string, value: unknown, learned: LearnedMasks | undefined): string {
  if (value === undefined) return ABSENT;
  const v = applyLearned(new Map([[id, value]]), learned).get(id);
  return v === undefined ? ABSENT : stable(v);
}

/**
 * Whole-object destinations of fault-free runs in which a busy controller never acted on a
 * world its user soon replaced (src/harness/twin.ts, `busy`): per object that ends differently
 * there than in the twin (after the masks learned from the other benign runs), both ends, as
 * `<id>\u0000<value>` entries (the value before any learned mask, so masks learned later apply
 * to it as to the runs). Not a mask: a run's object is accepted only when it ends exactly as in
 * one of them (see {@link acceptedAlternative}).
 */
export function learnAlternatives(twin: State, busy: readonly State[], masks: LearnedMasks): string[] {
  const out = new Set<string>();
  const entry = (id: string, v: unknown) => `${id}\u0000${v === undefined ? ABSENT : stable(v)}`;
  for (const b of busy) {
    for (const id of new Set([...twin.keys(), ...b.keys()])) {
      if (maskedOne(id, twin.get(id), masks) === maskedOne(id, b.get(id), masks)) continue;
      out.add(entry(id, twin.get(id)));
      out.add(entry(id, b.get(id)));
    }
  }
  return [...out].sort();
}

/**
 * Whether an object that differs between the twin and the run (`expected`/`actual` as compared,
 * undefined when absent) ends, on both sides, as in one of the learned alternatives: the run
 * reached a destination a fault-free run reaches.
 */
export function acceptedAlternative(id: string, expected: unknown, actual: unknown, learned: LearnedMasks | undefined): boolean {
  const alts = (learned?.['alternatives'] ?? []).filter((e) => e.startsWith(`${id}\u0000`));
  if (alts.length === 0) return false;
  const ends = new Set(
    alts.map((e) => {
      const raw = e.slice(id.length + 1);
      return maskedOne(id, raw === ABSENT ? undefined : JSON.parse(raw), learned);
    }),
  );
  const side = (v: unknown) => (v === undefined ? ABSENT : stable(v));
  return ends.has(side(expected)) && ends.has(side(actual));
}

/** The learned entries in words, for a report: `masked because fault-free runs disagree: …`. */
export function fmtLearned(learned: LearnedMasks | undefined, max = 6): string | undefined {
  if (!learned) return undefined;
  const entries = [...(learned['objects'] ?? []).map((o) => `${o} (whole object)`), ...(learned['sets'] ?? []).map((s) => `${s} (as a set)`), ...(learned['paths'] ?? []), ...(learned['optional'] ?? []).map((p) => `${p} (present or not)`), ...(learned['counts'] ?? [])];
  if (entries.length === 0) return undefined;
  return `masked because fault-free runs disagree: ${entries.slice(0, max).join('; ')}${entries.length > max ? `; and ${entries.length - max} more` : ''}`;
}

/** Records the paths of a value for nearest-path suggestions (prefix `downstream.<service>` for fake-service resources). */
export function notePaths(tally: MaskTally | undefined, value: unknown, prefix: Segment[] = []): void {
  if (!tally || !tally.collectPaths || tally.paths.size >= 5000) return;
  for (const p of allPaths(value, prefix, new Set(), 5000 - tally.paths.size)) tally.paths.add(p);
}

const plain = (s: string) => s;

/** A `-`/`+` diff of two values (vitest's diff), `-` the expected side, `+` the actual. */
export function fmtDiff(expected: unknown, actual: unknown, expectedName: string, actualName: string): string {
  return (
    diff(expected, actual, { aAnnotation: expectedName, bAnnotation: actualName, aColor: plain, bColor: plain, changeColor: plain, commonColor: plain, patchColor: plain, expand: true }) ?? ''
  );
}

/**
 * A note for a failure whose differing paths a default mask the user's `masks` left out would
 * have matched: `masks` replaces the defaults (so they can be turned off), and a user adding one
 * path of their own dropped `metadata.generation` with it, then met a diff of generations only
 * (red team rt47: the footgun). Undefined when no dropped default matters.
 */
export function droppedDefaultsNote(masks: readonly string[], defaults: readonly string[], paths: readonly string[]): string | undefined {
  const dropped = defaults.filter((d) => !masks.includes(d));
  if (dropped.length === 0) return undefined;
  const matching = dropped.filter((d) => {
    const re = new RegExp(`^${d.split('[*]').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\[[^\\]]*\\]')}(?:$|[.[])`);
    return paths.some((p) => re.test(p));
  });
  if (matching.length === 0) return undefined;
  return `the masks given replace the defaults, and ${matching.length === 1 ? 'a default mask that was left out matches' : 'default masks that were left out match'} what differs: ${matching.map((m) => JSON.stringify(m)).join(', ')}; to add a mask of your own, list the defaults with it (${JSON.stringify([...defaults, 'your.path'])})`;
}
