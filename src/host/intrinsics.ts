/**
 * The built-ins the harness computes its verdict and writes its reports with (JSON, Math, the
 * prototypes of Object, Array, Function, Promise, String, Map and Set, Reflect), as they were at a
 * point (the CLI takes it once the user's module has loaded, so a polyfill at import is part of
 * the module): code under test that replaced one (`JSON.stringify = () => '{"ok":true}'`) would
 * forge the JSON on stdout and in the reports. {@link IntrinsicsSnapshot.restore} puts back every
 * property replaced, added or deleted since, and names them.
 * @internal
 */
export interface IntrinsicsSnapshot {
  /** Restores what changed since the snapshot; returns the names (`JSON.stringify`), empty when nothing did. */
  restore(): string[];
}

const HOLDERS: readonly (readonly [string, object])[] = [
  ['JSON', JSON],
  ['Math', Math],
  ['Reflect', Reflect],
  ['Object', Object],
  ['Object.prototype', Object.prototype],
  ['Array', Array],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['Promise', Promise],
  ['Promise.prototype', Promise.prototype],
  ['String.prototype', String.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
];
/** Globals that must keep naming the built-in itself. */
const GLOBALS = ['JSON', 'Math', 'Reflect', 'Object', 'Array', 'Promise', 'String', 'Number', 'Boolean', 'Map', 'Set', 'Symbol'] as const;

/** Takes the snapshot. @internal */
export function snapshotIntrinsics(): IntrinsicsSnapshot {
  const saved = HOLDERS.map(([name, holder]) => ({ name, holder, props: new Map(Reflect.ownKeys(holder).map((k) => [k, Object.getOwnPropertyDescriptor(holder, k)!] as const)) }));
  const g = globalThis as unknown as Record<string, unknown>;
  const globals = GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(g, name)] as const);
  return {
    restore() {
      const changed: string[] = [];
      for (const { name, holder, props } of saved) {
        for (const k of Reflect.ownKeys(holder)) {
          if (props.has(k)) continue;
          changed.push(`${name}.${String(k)} (added)`);
          Reflect.deleteProperty(holder, k);
        }
        for (const [k, d] of props) {
          const now = Object.getOwnPropertyDescriptor(holder, k);
          if (now !== undefined && now.value === d.value && now.get === d.get && now.set === d.set) continue;
          changed.push(`${name}.${String(k)}`);
          if (d.configurable || now === undefined) Reflect.defineProperty(holder, k, d);
          else if (now.writable) (holder as Record<PropertyKey, unknown>)[k] = d.value;
        }
      }
      for (const [name, d] of globals) {
        const now = Object.getOwnPropertyDescriptor(g, name);
        if (d === undefined || (now !== undefined && now.value === d.value)) continue;
        changed.push(`globalThis.${name}`);
        Reflect.defineProperty(g, name, d);
      }
      return changed;
    },
  };
}
