import type { ReportModel } from './result.js';

/** One JUnit test case: one property of one controller. @public */
export interface JunitCase {
  /** The property name. */
  name: string;
  /** `steadystate.<controller>`. */
  classname: string;
  failure: { message: string; type: string; body: string } | null;
}

/** One JUnit test suite: one controller's check. @public */
export interface JunitSuite {
  name: string;
  /** `seed`, `runs`, the reproduction file, … */
  properties: Record<string, string>;
  cases: JunitCase[];
}

/** The data behind a JUnit file (versioned like every steadystate report). @public */
export interface JunitReport {
  steadystate: string;
  formatVersion: 1;
  suites: JunitSuite[];
}

/**
 * One suite per controller, one case per property. The failing property carries the summary as
 * the failure message and the explanation plus the replay command as its body; the other
 * properties held in every run up to the failure.
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
      return {
        name: `steadystate ${m.controller}`,
        properties,
        cases: names.map((name) => ({
          name,
          classname: `steadystate.${m.controller}`,
          failure:
            !m.ok && m.property === name
              ? {
                  message: m.summary,
                  type: name,
                  body: [m.explanation, '', ...(m.replay.command ? [`Replay: ${m.replay.command}`] : []), `seed=${m.seed} path=${m.path} traceHash=${m.traceHash}`].join('\n'),
                }
              : null,
        })),
      };
    }),
  };
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
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="steadystate" tests="${total}" failures="${failures}" errors="0" time="0">`];
  for (const s of report.suites) {
    const f = s.cases.filter((c) => c.failure).length;
    out.push(`  <testsuite name="${attr(s.name)}" tests="${s.cases.length}" failures="${f}" errors="0" skipped="0" time="0">`);
    out.push('    <properties>');
    for (const [k, v] of Object.entries(s.properties)) out.push(`      <property name="${attr(k)}" value="${attr(v)}"/>`);
    out.push('    </properties>');
    for (const c of s.cases) {
      if (!c.failure) {
        out.push(`    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="0"/>`);
        continue;
      }
      out.push(`    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="0">`);
      out.push(`      <failure message="${attr(c.failure.message)}" type="${attr(c.failure.type)}">${body(c.failure.body)}</failure>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

/** Characters XML 1.0 forbids even when escaped. */
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function attr(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function body(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
