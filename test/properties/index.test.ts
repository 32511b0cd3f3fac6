import { describe, expect, it } from 'vitest';
import { allProperties, defaultProperties, properties } from '../../properties/index.js';

describe('properties', () => {
  it('names every SPEC §5 property after its file, camelCase in the namespace', () => {
    const names = allProperties.map((p) => p.propertyName);
    expect(names).toEqual(expect.arrayContaining(['convergence', 'idempotence', 'no-hot-loop', 'bounded-downstream-qps', 'deletion-completes', 'no-fighting', 'same-end-state', 'no-extra-destructive-actions', 'safety-invariants', 'spec-status-ownership', 'no-duplicate-side-effects', 'recovery', 'responsiveness', 'status-truthfulness']));
    for (const [camel, factory] of Object.entries(properties)) expect(factory.propertyName.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())).toBe(camel);
  });
  it('defaultProperties() configures fresh instances with JSON options', () => {
    const a = defaultProperties();
    expect(a.map((p) => p.name)).toEqual(allProperties.map((p) => p.propertyName));
    expect(defaultProperties()[0]).not.toBe(a[0]);
    for (const p of a) expect(JSON.parse(JSON.stringify(p.options))).toEqual(p.options);
    expect(a.filter((p) => p.needsTwin).map((p) => p.name).sort()).toEqual(['convergence', 'no-duplicate-side-effects', 'no-extra-destructive-actions', 'recovery', 'same-end-state']);
  });
  it('turns user functions into "<function>" in the reported options', () => {
    expect(properties.convergence({ converged: () => true }).options['converged']).toBe('<function>');
    expect(properties.safetyInvariants({ invariants: { a: () => true } }).options).toEqual({ invariants: { a: '<function>' } });
  });
  it('rejects a non-object options argument', () => {
    expect(() => properties.noHotLoop(3 as never)).toThrow('steadystate.properties.noHotLoop: expected an options object, got 3');
  });
});
