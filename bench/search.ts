/**
 * The search bench (issue 16): runs to first failure on the multi-fault bug set, per search mode:
 * plain swarm (`check` as it is by default), guided swarm, and systematic mode. Swarm modes run
 * 10 seeds each and report the median (a seed that finds nothing within the cap counts as more
 * than the cap) and the largest shrunk reproduction; systematic mode is deterministic and runs
 * once. `npm run bench search`, or `npx tsx bench/search.ts [exhibit…]` for the table alone.
 * Environment: SEARCH_SEEDS (default 10), SEARCH_FIRST_SEED (default 1), SEARCH_CAP (runs per seed,
 * default 1000), SEARCH_MODES (default plain,guided,systematic).
 */
import { pathToFileURL } from 'node:url';
import { allFaults, check, checkSystematic, type CheckOptions } from '../src/index.js';
import { multiFault, type MultiFaultExhibit } from '../examples/multi-fault/index.js';
import { createRng } from '../src/sim/rng.js';
import type { BenchRow } from './types.js';

export type SearchMode = 'plain' | 'guided' | 'systematic';
export const SEARCH_MODES: readonly SearchMode[] = ['plain', 'guided', 'systematic'];

/** One search of one exhibit. */
export interface Trial {
  found: boolean;
  /** Runs until the first failure (or the runs made when nothing was found). */
  runs: number;
  /** Fault events (and background rates) of the shrunk reproduction. */
  faultEvents?: number;
  ms: number;
}

/** What one mode did on one exhibit over the seeds. */
export interface SearchCell {
  exhibit: string;
  mode: SearchMode;
  trials: Trial[];
  /** Median runs to first failure; Infinity when half the trials or more found nothing. */
  median: number;
  found: number;
  maxFaultEvents: number | undefined;
  cap: number;
}

const faults = allFaults.filter((f) => !f.kind.startsWith('environment-'));

function common(ex: MultiFaultExhibit): CheckOptions {
  return { ...ex.options, faults, properties: [ex.property()], determinism: false };
}

async function swarmTrial(ex: MultiFaultExhibit, seed: number, cap: number, extra: CheckOptions = {}): Promise<Trial> {
  const t0 = performance.now();
  const r = await check(ex.buggy, { ...common(ex), runs: cap, seed, ...extra });
  const ms = performance.now() - t0;
  if (r.ok) return { found: false, runs: r.runs, ms };
  return { found: true, runs: r.failedAtRun, faultEvents: r.scenario.faults.events.length + r.scenario.faults.background.length, ms };
}

async function systematicTrial(ex: MultiFaultExhibit): Promise<Trial> {
  const { maxObjects: _mo, maxActions: _ma, maxFaultEvents: _mf, maxNth: _mn, ...o } = ex.options;
  const t0 = performance.now();
  const r = await checkSystematic(ex.buggy, { ...o, faults, properties: [ex.property()], stopOnFailure: true, determinism: false });
  const ms = performance.now() - t0;
  if (r.ok) return { found: false, runs: r.runs, ms };
  return { found: true, runs: r.failedAtRun, faultEvents: r.scenario.faults.events.length + r.scenario.faults.background.length, ms };
}

/** Median of runs to first failure, a trial that found nothing counting as infinitely many. */
export function medianRuns(trials: readonly Trial[]): number {
  const xs = trials.map((t) => (t.found ? t.runs : Infinity)).sort((a, b) => a - b);
  if (xs.length === 0) return Infinity;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/**
 * How sure a ratio of medians is: guided's median runs over plain's, with a 95% bootstrap
 * interval (2,000 resamples of each mode's seeds, seeded, so the same trials print the same
 * interval). Runs to first failure spread like a geometric law, so a median of 10 or 20 seeds
 * moves by ±30–40% from one set of seeds to the next: "≤ 1/3 of plain" is met only when the
 * whole interval is below 1/3. Infinity when either median is (half the seeds or more found nothing).
 */
export function ratioInterval(num: readonly Trial[], den: readonly Trial[], resamples = 2000): { ratio: number; low: number; high: number } {
  const ratio = medianRuns(num) / medianRuns(den);
  const rng = createRng('search-ratio');
  const draw = (ts: readonly Trial[]): Trial[] => ts.map(() => ts[rng.int(0, ts.length - 1)]!);
  const ratios: number[] = [];
  for (let i = 0; i < resamples; i++) ratios.push(medianRuns(draw(num)) / medianRuns(draw(den)));
  ratios.sort((a, b) => a - b);
  return { ratio, low: ratios[Math.floor(resamples * 0.025)]!, high: ratios[Math.ceil(resamples * 0.975) - 1]! };
}

function fmtRatio(r: { ratio: number; low: number; high: number }): string {
  const f = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '∞');
  const verdict = r.high <= 1 / 3 ? 'met' : r.low > 1 / 3 ? 'not met' : 'undecided';
  return `${f(r.ratio)} [${f(r.low)}–${f(r.high)}] ${verdict}`;
}

/** Runs every mode on every exhibit. */
export async function searchTable(options: { seeds?: number; firstSeed?: number; cap?: number; exhibits?: readonly MultiFaultExhibit[]; modes?: readonly SearchMode[]; onCell?: (c: SearchCell) => void } = {}): Promise<SearchCell[]> {
  const seeds = options.seeds ?? 10;
  const cap = options.cap ?? 1000;
  const firstSeed = options.firstSeed ?? 1;
  const cells: SearchCell[] = [];
  for (const ex of options.exhibits ?? multiFault) {
    for (const mode of options.modes ?? SEARCH_MODES) {
      const trials: Trial[] = [];
      if (mode === 'systematic') trials.push(await systematicTrial(ex));
      else for (let seed = firstSeed; seed < firstSeed + seeds; seed++) trials.push(await swarmTrial(ex, seed, cap, { search: mode === 'guided' ? 'guided' : 'swarm' }));
      const sizes = trials.filter((t) => t.faultEvents !== undefined).map((t) => t.faultEvents!);
      const cell: SearchCell = { exhibit: ex.name, mode, trials, median: medianRuns(trials), found: trials.filter((t) => t.found).length, maxFaultEvents: sizes.length ? Math.max(...sizes) : undefined, cap };
      cells.push(cell);
      options.onCell?.(cell);
    }
  }
  return cells;
}

function fmtMedian(c: SearchCell): string {
  if (c.mode === 'systematic') return c.found ? String(c.trials[0]!.runs) : `none in ${c.trials[0]!.runs}`;
  return Number.isFinite(c.median) ? String(c.median) : `> ${c.cap}`;
}

/** The table as Markdown: one row per exhibit, per mode median runs, seeds that found it, largest shrunk reproduction. */
export function formatSearchTable(cells: readonly SearchCell[]): string {
  const modes = [...new Set(cells.map((c) => c.mode))];
  const exhibits = [...new Set(cells.map((c) => c.exhibit))];
  const ratio = modes.includes('plain') && modes.includes('guided');
  const head = `| exhibit | ${modes.map((m) => `${m}: runs to first failure (found, max fault events)`).join(' | ')} |${ratio ? ' guided / plain [95% interval], goal ≤ 1/3 |' : ''}`;
  const lines = [head, `|---|${modes.map(() => '---').join('|')}|${ratio ? '---|' : ''}`];
  for (const e of exhibits) {
    const row = modes.map((m) => {
      const c = cells.find((x) => x.exhibit === e && x.mode === m);
      if (!c) return '';
      const found = c.mode === 'systematic' ? '' : `${c.found}/${c.trials.length}`;
      return `${fmtMedian(c)} (${[found, c.maxFaultEvents !== undefined ? `≤ ${c.maxFaultEvents} events` : ''].filter(Boolean).join(', ')})`;
    });
    const plain = cells.find((x) => x.exhibit === e && x.mode === 'plain');
    const guided = cells.find((x) => x.exhibit === e && x.mode === 'guided');
    lines.push(`| ${e} | ${row.join(' | ')} |${ratio ? ` ${plain && guided ? fmtRatio(ratioInterval(guided.trials, plain.trials)) : ''} |` : ''}`);
  }
  return lines.join('\n');
}

/** `npm run bench search`: the table on stderr, one row per exhibit and mode in the bench table. */
export async function benchSearch(): Promise<BenchRow[]> {
  const seeds = Number(process.env['SEARCH_SEEDS'] ?? 10);
  const cap = Number(process.env['SEARCH_CAP'] ?? 1000);
  const cells = await searchTable({ seeds, cap, onCell: (c) => process.stderr.write(`  ${c.exhibit} ${c.mode}: ${fmtMedian(c)}\n`) });
  process.stderr.write(`\nmulti-fault search (median over ${seeds} seeds, cap ${cap} runs per seed):\n${formatSearchTable(cells)}\n\n`);
  return cells.map((c) => ({ name: `search ${c.exhibit} ${c.mode}: median runs to first failure${c.mode === 'systematic' ? '' : ` (${c.found}/${c.trials.length} found)`}`, value: Number.isFinite(c.median) ? c.median : cap, unit: Number.isFinite(c.median) ? 'runs' : 'runs (cap)', target: c.mode === 'plain' ? 'baseline' : '≤ 1/3 of plain' }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const names = process.argv.slice(2);
  const exhibits = names.length ? multiFault.filter((e) => names.includes(e.name)) : multiFault;
  const seeds = Number(process.env['SEARCH_SEEDS'] ?? 10);
  const cap = Number(process.env['SEARCH_CAP'] ?? 1000);
  const modes = process.env['SEARCH_MODES'] ? (process.env['SEARCH_MODES'].split(',') as SearchMode[]) : SEARCH_MODES;
  const firstSeed = Number(process.env['SEARCH_FIRST_SEED'] ?? 1);
  const cells = await searchTable({ seeds, firstSeed, cap, exhibits, modes, onCell: (c) => process.stderr.write(`  ${c.exhibit} ${c.mode}: ${fmtMedian(c)} (${c.trials.map((t) => (t.found ? t.runs : '-')).join(' ')}) ${Math.round(c.trials.reduce((n, t) => n + t.ms, 0))} ms\n`) });
  console.log(formatSearchTable(cells));
}
