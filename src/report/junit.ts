import type { ReportModel } from './result.js';

/** One JUnit test case: one property of one controller. @public */
export interface JunitCase {
  /** The property name. */
  name: string;
  /** `steadystate.<controller>`. */
  classname: string;
  failure: { message: string; type: string; body: string } | null;
  /** Set when the property judged no run (its judge could not, or the check stopped first): it passed nothing. */
  skipped: string | null;
  /** Wall-clock seconds its judge took over all runs. */
  time: number;
}

/** One JUnit test suite: one controller's check. @public */
export interface JunitSuite {
  name: string;
  /** `seed`, `runs`, the reproduction file, … */
  properties: Record<string, string>;
  cases: JunitCase[];
  /** Wall-clock seconds of the whole check (simulation included). */
  time: number;
}

/** The data behind a JUnit file (versioned like every steadystate report). @public */
export interface JunitReport {
  steadystate: string;
  formatVersion: 1;
  suites: JunitSuite[];
}

/**
 * One suite per controller, one case per property, with real times (the suite: the check's wall
 * time; a case: its judge's). The failing property carries the summary as the failure message
 * and the explanation, notes and replay command as its body; a property that judged no run (its
 * judge could not, or the check stopped at a failure before it) is skipped, saying why, never
 * passed; the others held in every run they judged.
 * @public
 */
export function toJunitReport(models: readonly ReportModel[]): JunitReport {
  return {
    steadystate: models[0]?.steadystate ?? '',
    formatVersion: 1,
    suites: models.map((m) => {
      const names = [...m.properties];
      if (!m.ok && !names.includes(m.property)) names.push(m.property);
      const properties: Record<string, string> = { seed: String(m.seed), runs: String(m.runs), faults: m.faults.join(','), steadystate: m.steadystate };
      if (!m.ok) properties['path'] = m.path;
      const runsOf = new Map(m.propertyRuns.map((p) => [p.name, p]));
      return {
        name: `steadystate ${m.controller}`,
        properties,
        time: (m.elapsedMs ?? 0) / 1000,
        cases: names.map((name) => ({
          name,
          classname: `steadystate.${m.controller}`,
          time: (runsOf.get(name)?.ms ?? 0) / 1000,
          skipped: skippedWhy(m, name, runsOf.get(name)),
          failure:
            !m.ok && m.property === name
              ? {
                  message: m.summary,
                  type: name,
                  body: [m.explanation, '', ...m.notes.map((n) => `Note: ${n}`), ...(m.replay.command ? [`Replay: ${m.replay.command}`] : []), `found at ${m.failedAt}; seed=${m.seed} path=${m.path} traceHash=${m.traceHash}`].join('\n'),
                }
              : null,
        })),
      };
    }),
  };
}

/** Why a property passed nothing: it judged no run (null when it judged one, or failed). */
function skippedWhy(m: ReportModel, name: string, runs: ReportModel['propertyRuns'][number] | undefined): string | null {
  if (!m.ok && m.property === name) return null;
  if (!runs || runs.judged > 0) return null;
  if (runs.unjudged > 0) return `judged none of the ${runs.unjudged} run${runs.unjudged === 1 ? '' : 's'} it saw${runs.reason ? `: ${runs.reason}` : ''}`;
  return m.ok ? 'judged no run' : `not judged: the check stopped at the first failure (${m.property}) before any run reached it`;
}

/**
 * JUnit XML for CI systems (the common Surefire/Jenkins dialect).
 * @param models - one per checked controller
 * @public
 */
export function junit(models: ReportModel | readonly ReportModel[]): string {
  const report = toJunitReport(Array.isArray(models) ? models : [models as ReportModel]);
  const total = report.suites.reduce((n, s) => n + s.cases.length, 0);
  const failures = report.suites.reduce((n, s) => n + s.cases.filter((c) => c.failure).length, 0);
  const skipped = report.suites.reduce((n, s) => n + s.cases.filter((c) => c.skipped).length, 0);
  const time = report.suites.reduce((n, s) => n + s.time, 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="steadystate" tests="${total}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(time)}">`];
  for (const s of report.suites) {
    const f = s.cases.filter((c) => c.failure).length;
    out.push(`  <testsuite name="${attr(s.name)}" tests="${s.cases.length}" failures="${f}" errors="0" skipped="${s.cases.filter((c) => c.skipped).length}" time="${secs(s.time)}">`);
    out.push('    <properties>');
    for (const [k, v] of Object.entries(s.properties)) out.push(`      <property name="${attr(k)}" value="${attr(v)}"/>`);
    out.push('    </properties>');
    for (const c of s.cases) {
      const open = `    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="${secs(c.time)}"`;
      if (c.skipped) {
        out.push(`${open}>`, `      <skipped message="${attr(c.skipped)}"/>`, '    </testcase>');
        continue;
      }
      if (!c.failure) {
        out.push(`${open}/>`);
        continue;
      }
      out.push(`${open}>`);
      out.push(`      <failure message="${attr(c.failure.message)}" type="${attr(c.failure.type)}">${body(c.failure.body)}</failure>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function secs(s: number): string {
  return s.toFixed(3);
}

/** Characters XML 1.0 forbids even when escaped. */
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function attr(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function body(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
