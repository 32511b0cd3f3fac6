import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The chart library's code and styles, inlined into every HTML report. @public */
export interface ChartAssets {
  /** uPlot's IIFE build (defines `uPlot`). */
  js: string;
  css: string;
  /** e.g. `uPlot 1.6.32 (MIT)`. */
  notice: string;
}

let cached: ChartAssets | undefined;

/**
 * Loads uPlot (a small, well-kept canvas chart library) from node_modules, so the HTML report
 * embeds it and needs no network. The only file read under report/ besides the writers'
 * own output; kept here so html.ts stays a pure function.
 * @public
 */
export function loadChartAssets(): ChartAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('uplot/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; license: string };
  const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  cached = { js, css, notice: `uPlot ${pkg.version} (${pkg.license})` };
  return cached;
}
