import { NotFoundError, StoreError } from './errors.js';
import type { StoredObject } from './object.js';

/** The actor of the namespace controller's deletions in the write log. @internal */
export const NAMESPACE_CONTROLLER_ACTOR = 'environment:namespace-controller';

/** What the namespace controller reads and deletes through (the store's own methods). @internal */
export interface NamespaceLifecycleTarget {
  kindNames(): string[];
  peekAll(kind: string): StoredObject[];
  peek(kind: string, key: string): StoredObject | undefined;
  delete(actor: string, kind: string, ref: { namespace?: string; name: string }, options: { preconditions: { uid: string }; propagationPolicy?: 'Background' }): StoredObject;
}

/**
 * kube-apiserver's NamespaceLifecycle admission plus the namespace controller, for scenarios
 * that model Namespace objects: a create into a namespace that is being deleted is refused (403
 * Forbidden) and into one that was deleted answers 404, and the objects of a namespace being
 * deleted are deleted (their own finalizers honoured). Once the world has seeded the Namespace
 * objects a cluster and the test's setup have ({@link requireObjects}), a create into a namespace
 * without a Namespace object answers 404 as kube-apiserver does; before that (a bare store in a
 * unit test) a namespace that never existed as an object is taken to exist.
 * @internal
 */
export class NamespaceLifecycle {
  /** Namespaces whose Namespace object was removed (and not created again). */
  private readonly deleted = new Set<string>();
  /** Whether a namespace needs its Namespace object (the world seeded them). */
  private strict = false;

  constructor(
    private readonly target: NamespaceLifecycleTarget,
    private readonly defer: (fn: () => void) => void,
  ) {}

  /** Why a namespaced object cannot be created in `namespace` now, or undefined. */
  refusal(kind: string, namespace: string | undefined): StoreError | undefined {
    if (namespace === undefined || kind === 'Namespace') return undefined;
    const ns = this.target.peek('Namespace', namespace);
    if (ns?.metadata.deletionTimestamp !== undefined) {
      return new StoreError('Forbidden', 403, `${kind} cannot be created: unable to create new content in namespace ${namespace} because it is being terminated`);
    }
    if (!ns && (this.strict || this.deleted.has(namespace))) return new NotFoundError(`namespaces "${namespace}" not found`);
    return undefined;
  }

  /** From now on a create into a namespace without a Namespace object answers 404, as on a real cluster. */
  requireObjects(): void {
    this.strict = true;
  }

  /** A Namespace object was created, marked for deletion or removed. */
  changed(ns: StoredObject, how: 'created' | 'deleting' | 'removed'): void {
    if (how === 'created') {
      this.deleted.delete(ns.metadata.name);
      return;
    }
    if (how === 'removed') this.deleted.add(ns.metadata.name);
    const name = ns.metadata.name;
    this.defer(() => this.emptyNamespace(name));
  }

  private emptyNamespace(namespace: string): void {
    for (const kind of this.target.kindNames()) {
      if (kind === 'Namespace') continue;
      for (const o of this.target.peekAll(kind)) {
        if (o.metadata.namespace !== namespace || o.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.target.delete(NAMESPACE_CONTROLLER_ACTOR, kind, { namespace, name: o.metadata.name }, { preconditions: { uid: o.metadata.uid }, propagationPolicy: 'Background' });
        } catch {
          // gone or replaced meanwhile
        }
      }
    }
  }
}
