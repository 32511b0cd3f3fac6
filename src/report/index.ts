import type { CheckResult } from '../harness/check-result.js';
import { loadChartAssets, type ChartAssets } from './chart-assets.js';
import { html } from './html.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import { toReportModel, type ReportContext, type ReportModel } from './result.js';
import { readFileSync } from 'node:fs';
import { fnv1a, hex8, stableStringify } from '../sim/hash.js';
import { safeFileName, writeAtomic } from './write-atomic.js';

/** A report format's name. @public */
export type ReportFormat = 'json' | 'markdown' | 'html' | 'junit';

/**
 * One report format: its file extension and a pure renderer. `render` returns null when the
 * format does not apply (a reproduction file for a passing check).
 * @public
 */
export interface Reporter<O> {
  readonly extension: string;
  render(model: ReportModel, options: O): string | null;
}

/** Options each format takes. @public */
export interface ReporterOptionsMap {
  json: Record<string, never>;
  markdown: Record<string, never>;
  html: { assets: ChartAssets };
  junit: Record<string, never>;
}

/** Every report format by name (vitest's `ReportersMap` style). @public */
export type ReportersMap = { readonly [K in ReportFormat]: Reporter<ReporterOptionsMap[K]> };

/** The built-in writers. @public */
export const reporters: ReportersMap = {
  json: { extension: '.json', render: (m) => (m.ok ? null : json(m)) },
  markdown: { extension: '.md', render: (m) => markdown(m) },
  html: { extension: '.html', render: (m, o) => html(m, o.assets) },
  junit: { extension: '.junit.xml', render: (m) => junit(m) },
};

/** All formats, in the order they are written. @public */
export const allReportFormats: readonly ReportFormat[] = ['json', 'markdown', 'html', 'junit'];

/** Options of {@link writeReports}. @public */
export interface WriteReportsOptions {
  /** Directory for the reports (created when missing). @defaultValue 'reports' */
  dir?: string;
  /** Formats to write. @defaultValue all of them */
  formats?: readonly ReportFormat[];
  /**
   * File name without extension; made file-safe. A failure's name gets `-<hash>` when a file of
   * that name already holds another failure. @defaultValue `<controller>-<property>-<seed>`
   * (plus `-shard<i>of<n>` for a shard) or `<controller>-pass`
   */
  baseName?: string;
  /** What the caller knows beyond the result (controller module, recorded timelines). */
  context?: Omit<ReportContext, 'reproductionPath'>;
}

/** Paths written by {@link writeReports}, by format, plus the model they came from. @public */
export interface WrittenReports {
  files: Partial<Record<ReportFormat, string>>;
  model: ReportModel;
  /** True when an identical reproduction of the same failure (an earlier run of it) was replaced. */
  replaced: boolean;
}

/**
 * Formats a check result and writes each report atomically (temp file + rename) under `dir`,
 * with file names safe whatever the controller, property or object names are.
 * @throws ReportWriteError when the directory cannot be written
 * @example
 * const { files } = writeReports(result, { dir: 'reports' });
 * console.log(files.json); // reports/web-convergence-42.json
 * @public
 */
export function writeReports(result: CheckResult, options: WriteReportsOptions = {}): WrittenReports {
  const dir = (options.dir ?? 'reports').replace(/[\\/]+$/, '') || '.';
  const formats = options.formats ?? allReportFormats;
  const wanted = safeFileName(options.baseName ?? (result.ok ? `${result.controller}-pass` : `${result.controller}-${result.property}-${result.seed}${result.shard ? `-shard${result.shard.index + 1}of${result.shard.count}` : ''}`));
  const { base, replaced } = result.ok ? { base: wanted, replaced: false } : uniqueBase(dir, wanted, result);
  const pathOf = (f: ReportFormat): string => `${dir}/${base}${reporters[f].extension}`;
  const model = toReportModel(result, { ...options.context, reproductionPath: !result.ok && formats.includes('json') ? pathOf('json') : null });
  const files: Partial<Record<ReportFormat, string>> = {};
  for (const f of formats) {
    const text = f === 'html' ? reporters.html.render(model, { assets: loadChartAssets() }) : reporters[f].render(model, {});
    if (text === null) continue;
    writeAtomic(pathOf(f), text);
    files[f] = pathOf(f);
  }
  return { files, model, replaced };
}

/**
 * The file name of a failure's reports: `wanted`, unless the reproduction of that name holds
 * another failure (another shard, or a re-run after a change), then `wanted-<hash of this
 * failure>`. A failure is its controller, property, minimal scenario and trace hash: a re-run
 * that finds it again (from the corpus, after more or fewer runs) replaces its files.
 */
function uniqueBase(dir: string, wanted: string, result: Extract<CheckResult, { ok: false }>): { base: string; replaced: boolean } {
  const identity = stableStringify({ controller: result.controller, property: result.property, scenario: result.scenario, traceHash: result.run.hash });
  const holds = (base: string): 'none' | 'same' | 'other' => {
    let text: string;
    try {
      text = readFileSync(`${dir}/${base}.json`, 'utf8');
    } catch {
      return 'none';
    }
    try {
      const f = JSON.parse(text) as { controller?: { name?: unknown }; property?: { name?: unknown }; scenario?: unknown; traceHash?: unknown };
      return stableStringify({ controller: f.controller?.name, property: f.property?.name, scenario: f.scenario, traceHash: f.traceHash }) === identity ? 'same' : 'other';
    } catch {
      return 'other';
    }
  };
  const atWanted = holds(wanted);
  if (atWanted !== 'other') return { base: wanted, replaced: atWanted === 'same' };
  const hashed = `${wanted}-${hex8(fnv1a(identity))}`;
  return { base: hashed, replaced: holds(hashed) === 'same' };
}

export { toReportModel } from './result.js';
export type { ReportModel, PassedReportModel, FailedReportModel, ReportContext, ControllerSource, ReportTimeline, ActivityBucket, TimeMark, TimelineRow } from './result.js';
export { toReproductionFile, parseReproductionFile, ReproductionFileError, reproductionFormatVersion } from './json.js';
export type { ReproductionFile } from './json.js';
export type { JunitCase, JunitSuite, JunitReport } from './junit.js';
export { toJunitReport } from './junit.js';
export { createTimelineRecorder } from './timeline-recorder.js';
export type { ObjectTimeline } from './timeline-recorder.js';
export { ReportWriteError, ensureWritableDir, safeFileName, writeAtomic } from './write-atomic.js';
export { loadChartAssets } from './chart-assets.js';
export type { ChartAssets } from './chart-assets.js';
export { version } from './version.js';
