import type { Clock } from '../sim/clock.js';
import { fnv1a, hex8 } from '../sim/hash.js';
import { AlreadyExistsError, ConflictError, InvalidError, NotFoundError, type StoreErrorReason, StoreError } from './errors.js';
import { applyDefaults, ServiceAllocations } from './defaults.js';
import { changedPaths } from './field-diff.js';
import { FOREGROUND_FINALIZER, GarbageCollector, type PropagationPolicy } from './garbage-collector.js';
import { defaultPropagationPolicy } from './gc-policy.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { selectObjects, type ListOptions } from './list-options.js';
import { applyMergePatch } from './merge-patch.js';
import { cloneJson, contentEqual, contentOf, jsonEqual, keyOf, virtualTimestamp, type Json, type JsonObject, type NewObject, type ObjectRef, type StoredObject } from './object.js';
import { checkUid, deletePreconditionConflict, resourceVersionConflict } from './preconditions.js';
import { evictPod, type EvictionHost, type PodEviction } from './eviction.js';
import { builtinScalePaths, crdScalePaths, customScaleErrors, noScaleSubresource, readableScale, scaledObject, scaleJson, scaleOf, type Scale, type ScalePaths } from './scale.js';
import { generateNameSuffix, prepareForCreate, prepareForDeletion, prepareForPatch, prepareForStatusUpdate, prepareForUpdate } from './strategy.js';
import { cloneSorted, isBuiltin, keysSorted, sortedInPlace } from './key-order.js';
import { builtinNamespaced } from './scope.js';
import { KeyOrderedMap } from './key-ordered-map.js';
import { immutabilityErrors, type FieldError, type ValidationOptions } from './immutability.js';
import { contentErrors, fieldErrorsText, invalidName, invalidObject, invalidTransition } from './validation.js';
import { workloadDecodeError, workloadErrors } from './workload-validation.js';
import { canonicalizeQuantities } from './quantity-fields.js';
import { objectSize, refuseTooLarge } from './storage-size.js';
import { defaultedBySchema, prunedBySchema } from './prune.js';
import { schemaErrors } from './schema-validation.js';
import { WatchHub, type KindWatch, type Watch, type WatchEvent } from './watch.js';
import type { WriteRecord, WriteVerb } from './write-record.js';

// The store's types live beside their concepts; importers keep using './store.js'.
export type { PropagationPolicy } from './garbage-collector.js';
export type { ListOptions } from './list-options.js';
export type { Watch, WatchEvent } from './watch.js';
export type { WriteRecord, WriteVerb } from './write-record.js';
export type { Scale } from './scale.js';

/** Options of {@link ObjectStore}. @public */
export interface StoreOptions {
  clock: Clock;
  /**
   * Watch events retained per kind; a watch from an older resourceVersion gets 410 Gone.
   * @defaultValue 1000
   */
  historyLimit?: number;
  /** Receives every write request (also no-ops and failures). */
  onWrite?: (w: WriteRecord) => void;
  /** Runs the garbage collector's work; defaults to running it at once. */
  defer?: (fn: () => void) => void;
  /** Prefix of generated uids (keeps uids of twin runs apart when needed). @defaultValue 'uid' */
  uidPrefix?: string;
  /** Immutable paths of custom kinds (the built-in kinds' rules always apply). @defaultValue {} */
  validation?: ValidationOptions;
}

/** Options of a write (update, patch). @public */
export interface WriteOptions {
  /** Precondition: fail with 409 unless the object is at this resourceVersion. */
  resourceVersion?: string;
  /**
   * Whether the kind serves a status subresource. Without one (a CRD without
   * `subresources.status`), a write through the main resource stores status too, and a status
   * change bumps generation, as kube-apiserver does. @defaultValue what the kind's
   * CustomResourceDefinition in the store says, else true
   */
  statusSubresource?: boolean;
}

/** Options of {@link ObjectStore.update}. @public */
export interface UpdateOptions extends Pick<WriteOptions, 'statusSubresource'> {
  /**
   * Refuse an update without `metadata.resourceVersion` (422), as kube-apiserver does for custom
   * resources (their strategy allows no unconditional update). @defaultValue true for a custom
   * kind written by a controller; the harness's own actors (a user's `kubectl apply`, which is a
   * patch on a real cluster) write unconditionally
   */
  requireResourceVersion?: boolean;
}

/** Options of {@link ObjectStore.delete}. @public */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** @defaultValue the kind's: 'Orphan' for a batch/v1 Job or a v1 ReplicationController (as kube-apiserver), else 'Background' */
  propagationPolicy?: PropagationPolicy;
}

/** One kind: its objects by key (listed in key order, as etcd ranges over keys), and its watch state. */
interface KindState {
  objects: KeyOrderedMap<StoredObject>;
  watch: KindWatch;
  /** The stored size (storage-size.ts) of the objects as last measured, by key: a write measures only what it changed. */
  sizes: Map<string, Sized>;
}

/** An object's stored size, and which version of it was measured (updated in place on each write). */
interface Sized {
  object: StoredObject;
  size: number;
}

/**
 * The simulated API server: a versioned object store with Kubernetes semantics (SPEC §2.1).
 * Stored objects are immutable snapshots; every write stores a new one. Reads through the public
 * methods return deep copies, so a caller can mutate what it got and send it back.
 *
 * This class is the facade and the write path: it owns the objects and the resourceVersion
 * counter. Each write builds the next object by `strategy.ts` (what a verb may change), runs
 * the checks of `preconditions.ts` (409) and `validation.ts` (422), records a `WriteRecord`
 * (`write-record.ts`), and tells `watch.ts` (history, watchers, 410 Gone) and
 * `garbage-collector.ts` (ownerReference cascade). Lists filter by `list-options.ts`.
 *
 * Metadata is validated as kube-apiserver does (names, label keys and values, annotation size,
 * one controller reference, no resourceVersion on create), built-in kinds have their scope (a
 * cluster-scoped one's namespace is cleared, a namespaced one needs one), and a custom kind's
 * CustomResourceDefinition in the store gives its scope and whether it has the status subresource.
 *
 * Built-in kinds are defaulted as kube-apiserver's defaulters do (`defaults.ts`), on create and on
 * every write. Known limits (stated, as controller-runtime's fake client does): no admission but
 * NamespaceLifecycle's, no defaulting of custom resources (CRD schema defaults), no validation of every spec field,
 * updateStatus by the harness's own actors works on every kind (a controller's is refused, 404, for a CRD without /status).
 * @public
 */
export class ObjectStore {
  private rv = 0;
  private uidCounter = 0;
  /** Objects created so far per kind and key (the nth incarnation of a name gets its own uid). */
  private readonly incarnations = new Map<string, number>();
  /** Every uid handed out (a hash collision must not give two objects one uid). */
  private readonly uids = new Set<string>();
  private readonly kinds = new Map<string, KindState>();
  private readonly watches: WatchHub;
  private readonly gc: GarbageCollector;
  private readonly namespaces: NamespaceLifecycle;
  private readonly clock: Clock;
  readonly #onWrite: ((w: WriteRecord) => void) | undefined;
  private readonly uidPrefix: string;
  private readonly validation: ValidationOptions | undefined;
  /** What the CustomResourceDefinitions in the store say of their kinds; rebuilt after a CRD write. */
  private crdKinds: Map<string, CrdKindInfo> | undefined;
  /** While the world seeds Namespace objects: writes are not recorded. */
  private seeding = false;
  /** Inside {@link dryRun}: writes are validated and answered, and nothing is stored. */
  private dry = false;
  /** The cluster IPs and node ports the Services hold (defaults.ts allocates from it). */
  private readonly services = new ServiceAllocations();

  constructor(options: StoreOptions) {
    this.validation = options.validation;
    this.clock = options.clock;
    this.watches = new WatchHub(options.historyLimit ?? 1000);
    this.#onWrite = options.onWrite;
    this.gc = new GarbageCollector(this, options.defer ?? ((fn) => fn()));
    this.namespaces = new NamespaceLifecycle(this, options.defer ?? ((fn) => fn()));
    this.uidPrefix = options.uidPrefix ?? 'uid';
  }

  /**
   * Creates the Namespace objects a cluster and the test's setup have before the run (those of
   * `names` that do not exist yet), and from then on refuses, as kube-apiserver's
   * NamespaceLifecycle admission does (404 `namespaces "x" not found`), to create a namespaced
   * object into a namespace that has no Namespace object. The seeded objects are there before
   * anything happens: no write record, as for no object a run's actors wrote. @internal
   */
  seedNamespaces(names: Iterable<string>): void {
    this.seeding = true;
    try {
      for (const name of names) {
        if (this.peek('Namespace', name) === undefined && !this.seedAsBefore(name)) this.seedOne(name);
      }
    } finally {
      this.seeding = false;
    }
    this.namespaces.requireObjects();
  }

  /**
   * Seeds Namespace `name` as an earlier store of this process did, when `create` made it from
   * the same name, uid and time: a copy of that object and its size, then the bookkeeping of
   * `create` (the same code). What `create` computed in between (the object as prepared,
   * defaulted and validated) is a function of those three alone: a simulation's seeding is then
   * no longer a fifth of a small run's fixed cost. False when no store made it yet (nothing changed).
   */
  private seedAsBefore(name: string): boolean {
    const ks = this.kind('Namespace');
    ++this.uidCounter;
    const uid = this.uidFor('Namespace', name);
    const now = this.clock.now();
    const made = seeded.get(`${name}\u0000${uid}\u0000${now}`);
    if (made === undefined) {
      // as create undoes a uid it did not hand out
      this.uidCounter--;
      this.uids.delete(uid);
      return false;
    }
    const obj = cloneJson(made.object);
    ks.sizes.delete(name);
    ks.sizes.set(name, { object: obj, size: made.size });
    this.commitCreate(NAMESPACE_SEEDER, ks, 'Namespace', name, obj, true, now);
    seededReused++;
    return true;
  }

  /** Seeds Namespace `name` by `create`, and keeps what it made for {@link seedAsBefore}. */
  private seedOne(name: string): void {
    this.create(NAMESPACE_SEEDER, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: {} });
    const ks = this.kind('Namespace');
    const obj = ks.objects.get(name)!;
    const size = ks.sizes.get(name)!.size;
    if (seeded.size >= SEEDED_MAX) seeded.clear();
    seeded.set(`${name}\u0000${obj.metadata.uid}\u0000${this.clock.now()}`, { object: cloneJson(obj), size });
  }

  /** The global resourceVersion counter. */
  currentResourceVersion(): number {
    return this.rv;
  }

  /** Kinds that have ever held an object or a watcher. */
  kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  /** Whether `kind` ever held an object or a watcher. @internal */
  knowsKind(kind: string): boolean {
    return this.kinds.has(kind);
  }

  private kind(kind: string): KindState {
    let k = this.kinds.get(kind);
    if (!k) {
      k = { objects: new KeyOrderedMap(), watch: this.watches.createKind(), sizes: new Map() };
      this.kinds.set(kind, k);
    }
    return k;
  }

  /**
   * Whether objects of `kind` live in a namespace: known for the built-in kinds and for kinds a
   * CustomResourceDefinition in the store defines; undefined otherwise (an empty namespace then
   * means cluster-scoped). @internal
   */
  namespaced(kind: string, apiVersion?: string): boolean | undefined {
    return builtinNamespaced(kind, apiVersion) ?? this.crdKind(kind)?.namespaced;
  }

  /** Whether a write through the main resource of `kind` (`apiVersion`: the stored object's) keeps status (no status subresource). */
  private mainWritesStatus(kind: string, apiVersion: string | undefined, option: boolean | undefined): boolean {
    // a built-in kind without /status (Lease, ConfigMap) has no status field at all: nothing to keep
    if (!keysSorted(kind, apiVersion)) return false;
    if (option !== undefined) return !option;
    return this.crdKind(kind)?.statusSubresource === false;
  }

  /** The field selector labels the CRD of a custom `kind` declares (`selectableFields` jsonPaths); none for another kind. @internal */
  selectableFields(kind: string): readonly string[] {
    return this.crdKind(kind)?.selectableFields ?? [];
  }

  private crdKind(kind: string): CrdKindInfo | undefined {
    if (this.count(CRD) === 0) return undefined;
    if (this.crdKinds === undefined) {
      this.crdKinds = new Map();
      for (const crd of this.peekAll(CRD)) {
        const info = crdKindInfo(crd);
        if (info !== undefined && !this.crdKinds.has(info.kind)) this.crdKinds.set(info.kind, info);
      }
    }
    return this.crdKinds.get(kind);
  }

  /** `fields` and what the CRD's schema refuses of a custom resource (schema-validation.ts); `fields` itself when there is nothing more. */
  private withSchemaErrors(fields: FieldError[], obj: StoredObject, old: StoredObject | undefined): FieldError[] {
    if (obj.apiVersion === undefined) return fields;
    const schema = this.crdKind(obj.kind)?.schemas.get(obj.apiVersion);
    if (schema === undefined) return fields;
    const more = schemaErrors(obj, schema, old);
    return more.length === 0 ? fields : [...fields, ...more];
  }

  /** A custom resource pruned and defaulted by its CRD's schema for the version it is written in (prune.ts); built-ins and kinds without a CRD as they are. */
  private pruned<T extends StoredObject>(obj: T): T {
    if (isBuiltin(obj.kind, obj.apiVersion) || obj.apiVersion === undefined) return obj;
    const schema = this.crdKind(obj.kind)?.schemas.get(obj.apiVersion);
    return schema === undefined ? obj : defaultedBySchema(prunedBySchema(obj, schema), schema);
  }

  /**
   * 404 for a controller's write to /status of a custom kind whose CRD in the store has no status
   * subresource, as kube-apiserver answers (the status must go through the main resource). The
   * harness's own actors stand for whatever writes status in the scenario and are not refused.
   */
  private refuseMissingStatusSubresource(actor: string, verb: WriteVerb, kind: string, key: string): void {
    if (!actor.startsWith('controller:')) return;
    // only the built-in (its apiVersion, or none: an in-process `{ kind: 'ConfigMap' }`): a CRD may define a kind of a
    // built-in's name in its own group (corpus service-account-tokens: a ServiceAccount of tokens.example.com), and that one may have a status
    const stored = this.peek(kind, key);
    if (stored !== undefined && NO_STATUS_BUILTINS.has(kind) && isBuiltin(kind, stored.apiVersion)) {
      this.recordError(actor, verb, kind, key, 'NotFound', stored.metadata.uid);
      throw new NotFoundError(`the server could not find the requested resource (${kind} "${key}"/status: ${kind} has no status subresource; a ${kind} has no status to write)`);
    }
    if (!keysSorted(kind, stored?.apiVersion) || this.crdKind(kind)?.statusSubresource !== false) return;
    this.recordError(actor, verb, kind, key, 'NotFound', this.peek(kind, key)?.metadata.uid);
    throw new NotFoundError(`the server could not find the requested resource (${kind} "${key}"/status: the CustomResourceDefinition of ${kind} has no status subresource; write status through the main resource, or add subresources.status to the CRD)`);
  }

  /** `ref` as the key the server stores it under: a cluster-scoped kind's namespace is dropped, as a client sends it to the cluster path. */
  private keyFor(kind: string, ref: { namespace?: string | undefined; name: string }): string {
    return ref.namespace && this.namespaced(kind) === false ? ref.name : keyOf(ref);
  }

  // ---------------------------------------------------------------- reads

  /** Immutable snapshot or undefined; for the simulation's own consumers (no copy). @internal */
  peek(kind: string, key: string): StoredObject | undefined {
    return this.kinds.get(kind)?.objects.get(key);
  }

  /**
   * The stored size (as etcd's request limit counts it: storage-size.ts) of the object stored
   * under `key`; undefined when there is none. Measured on the way in, so usually known.
   * @internal
   */
  storedSizeOf(kind: string, key: string): number | undefined {
    const ks = this.kinds.get(kind);
    const obj = ks?.objects.get(key);
    if (ks === undefined || obj === undefined) return undefined;
    return this.measured(ks, key, obj);
  }

  /** The size of `obj`, stored (or about to be) under `key`: from the last measured version's when there is one; remembered. */
  private measured(ks: KindState, key: string, obj: StoredObject): number {
    const known = ks.sizes.get(key);
    if (known === undefined) {
      const size = objectSize(obj);
      ks.sizes.set(key, { object: obj, size });
      return size;
    }
    if (known.object === obj) return known.size;
    const size = objectSize(obj, known.object, known.size);
    known.object = obj;
    known.size = size;
    return size;
  }

  /** How many objects of a kind there are (no list built). @internal */
  count(kind: string): number {
    return this.kinds.get(kind)?.objects.size ?? 0;
  }

  /** Immutable snapshots of every object of a kind, in key order (no copy). @internal */
  peekAll(kind: string): StoredObject[] {
    const k = this.kinds.get(kind);
    return k ? [...k.objects.values()] : [];
  }

  /** @throws NotFoundError */
  get<S = JsonObject, T = JsonObject>(kind: string, ref: { namespace?: string | undefined; name: string }): StoredObject<S, T> {
    const key = this.keyFor(kind, ref);
    const obj = this.peek(kind, key);
    if (!obj) throw new NotFoundError(`${kind} "${key}" not found`);
    return cloneJson(obj) as unknown as StoredObject<S, T>;
  }

  /** Lists objects (deep copies) in key order (by namespace, then name), as kube-apiserver does, with the list's resourceVersion. */
  list<S = JsonObject, T = JsonObject>(kind: string, options: ListOptions = {}): { items: StoredObject<S, T>[]; resourceVersion: string } {
    const items: StoredObject<S, T>[] = [];
    for (const o of this.select(kind, options)) items.push(cloneJson(o) as unknown as StoredObject<S, T>);
    return { items, resourceVersion: String(this.rv) };
  }

  /** Like list, without copies. @internal */
  select(kind: string, options: ListOptions = {}): StoredObject[] {
    const k = this.kinds.get(kind);
    // an empty kind still refuses a selector it cannot take, as it will once objects exist
    const selectable = options.fieldSelector ? this.selectableFields(kind) : undefined;
    if (!k) return selectObjects(kind, [], options, selectable);
    // a cluster-scoped kind listed "in a namespace" is listed whole, as a client lists it at the cluster path
    if (options.namespace && this.namespaced(kind) === false) return selectObjects(kind, k.objects.values(), { ...options, namespace: undefined }, selectable);
    return selectObjects(kind, k.objects.values(), options, selectable);
  }

  /**
   * The uid of the next incarnation of `kind` `key`: derived from the object's identity (kind,
   * key, how many objects of that name were created before), not from the order of all creates.
   * A real API server's uids are random; a run and its fault-free twin must still agree on which
   * uid is whose, also in values derived from one (a hash of the uid as a token or an external
   * name, a slice of it in a child's name), which faults that reorder creations would change.
   */
  private uidFor(kind: string, key: string): string {
    const id = `${kind}/${key}/${this.incarnations.get(`${kind}\u0000${key}`) ?? 0}`;
    const base = `${this.uidPrefix}-${hex8(fnv1a(id))}${hex8(fnv1a(id, 0x9e3779b9))}`;
    let uid = base;
    for (let n = 2; this.uids.has(uid); n++) uid = `${base}-${n}`;
    this.uids.add(uid);
    return uid;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Runs `fn` with every write a dry run, as kube-apiserver serves `?dryRun=All`: each write is
   * decoded, defaulted, validated and refused as it would be, and answered with the object it
   * would store, but nothing is stored, versioned, watched, recorded or garbage-collected (a
   * created object's answer has no resourceVersion; an update's keeps the current one).
   * @internal
   */
  dryRun<T>(fn: () => T): T {
    const was = this.dry;
    this.dry = true;
    try {
      return fn();
    } finally {
      this.dry = was;
    }
  }

  /** Whether the write in progress is a dry run ({@link dryRun}). @internal */
  get dryRunning(): boolean {
    return this.dry;
  }

  /** Creates an object; `generateName` gives a server-chosen unique name. @throws AlreadyExistsError, InvalidError */
  create<S = JsonObject, T = JsonObject>(actor: string, input: NewObject<S, T>): StoredObject<S, T> {
    // a v1 Binding is no stored object: creating one binds its Pod (client-go's `bindings` resource)
    if (input.kind === 'Binding' && (input.apiVersion === undefined || input.apiVersion === 'v1')) {
      this.bind(actor, input as unknown as PodBinding);
      return cloneJson(input) as unknown as StoredObject<S, T>;
    }
    // nor is a policy/v1 Eviction: creating one evicts its Pod (client-go's `Evict`, the `pods/eviction` subresource)
    if (input.kind === 'Eviction' && (input.apiVersion === undefined || input.apiVersion === 'policy/v1' || input.apiVersion === 'policy/v1beta1')) {
      this.evict(actor, input as unknown as PodEviction);
      return cloneJson(input) as unknown as StoredObject<S, T>;
    }
    const ks = this.kind(input.kind);
    const builtin = isBuiltin(input.kind, input.apiVersion);
    const scope = this.namespaced(input.kind, input.apiVersion);
    // an empty namespace is no namespace (cluster-scoped), as keyOf already treats it; a
    // cluster-scoped kind's namespace is cleared, as kube-apiserver's rest.BeforeCreate does
    const namespace = input.metadata.namespace && scope !== false ? input.metadata.namespace : undefined;
    if (namespace === undefined && scope === true) {
      const what = input.metadata.name || input.metadata.generateName || '';
      this.recordError(actor, 'create', input.kind, what, 'Invalid');
      throw new InvalidError(
        `${input.kind} "${what}": metadata.namespace: Required value: a ${input.kind} is namespaced; the API server has no cluster-wide URL to create one at (kube-apiserver answers 405: the server does not allow this method on the requested resource). Set metadata.namespace on the object.`,
        [{ field: 'metadata.namespace', type: 'FieldValueRequired', body: 'Required value' }],
      );
    }
    // what a dry run puts back: a generated name and the uid count it
    const counted = this.uidCounter;
    let name = input.metadata.name;
    if (!name && input.metadata.generateName) {
      // kube-apiserver's SimpleNameGenerator keeps at most 58 characters of the prefix (63 with the suffix)
      const prefix = input.metadata.generateName.slice(0, 58);
      do name = `${prefix}${generateNameSuffix(++this.uidCounter * 7919 + this.rv)}`;
      while (ks.objects.has(keyOf({ namespace, name })));
    }
    if (!name) {
      this.recordError(actor, 'create', input.kind, '', 'Invalid');
      throw new InvalidError(`${input.kind}: metadata.name or metadata.generateName is required`);
    }
    const key = keyOf({ namespace, name });
    // names by the kind's rule only for kinds the server knows (built-in, or with a CRD): a made-up kind keeps the '/' rule
    const badName = invalidName(name, namespace, builtin ? input.kind : this.crdKind(input.kind) === undefined ? undefined : CUSTOM_NAME_RULE);
    if (badName !== undefined) {
      this.recordError(actor, 'create', input.kind, key, 'Invalid');
      throw new InvalidError(`${input.kind} "${key}": ${badName}`);
    }
    const sentRv = input.metadata.resourceVersion;
    if (sentRv !== undefined && sentRv !== '') {
      // kube-apiserver's storage refuses it (an internal error, as it answers); a copy of a read object carries it
      this.recordError(actor, 'create', input.kind, key, 'InternalError');
      throw new StoreError('InternalError', 500, `Internal error occurred: resourceVersion should not be set on objects to be created (${input.kind} "${key}" carries metadata.resourceVersion "${sentRv}": a copy of an object read from the server must drop it, and its uid and creationTimestamp)`);
    }
    if (ks.objects.has(key)) {
      this.recordError(actor, 'create', input.kind, key, 'AlreadyExists');
      throw new AlreadyExistsError(`${input.kind} "${key}" already exists`);
    }
    const refused = this.namespaces.refusal(input.kind, namespace);
    if (refused) {
      this.recordError(actor, 'create', input.kind, key, refused.reason);
      throw refused;
    }
    const now = this.clock.now();
    ++this.uidCounter;
    const obj = this.pruned(prepareForCreate(input, name, namespace, this.uidFor(input.kind, key), now));
    // a wrong JSON type fails decoding, before any validation (a 400 over HTTP); a decoded object is defaulted, then validated
    // quantities are decoded too: served canonical (`2000m` as `2`), or a decoding error
    const decodeError = workloadDecodeError(obj) ?? canonicalizeQuantities(obj);
    if (decodeError === undefined) applyDefaults(obj, undefined, this.services);
    const invalid = decodeError ?? invalidObject(obj);
    let fields = invalid === undefined ? contentErrors(obj, true) : [];
    if (invalid === undefined && fields.length === 0) fields = workloadErrors(obj);
    const scale = invalid === undefined ? this.customScale(input.kind, obj.apiVersion) : undefined;
    if (scale !== undefined) fields = [...fields, ...customScaleErrors(obj, scale, false)];
    if (invalid === undefined && !builtin) fields = this.withSchemaErrors(fields, obj, undefined);
    // a cluster IP the request asked for that the range does not have, or another Service holds
    if (invalid === undefined && fields.length === 0 && builtin && obj.kind === 'Service') fields = this.services.refusal(obj);
    if (invalid !== undefined || fields.length > 0) {
      this.uidCounter--; // the uid was never handed out
      this.uids.delete(obj.metadata.uid);
      this.recordError(actor, 'create', input.kind, key, 'Invalid');
      throw new InvalidError(`${input.kind} "${key}": ${invalid ?? fieldErrorsText(fields)}`, fields);
    }
    try {
      // a new incarnation: nothing of the last one's size carries over
      ks.sizes.delete(key);
      refuseTooLarge(this.dry ? objectSize(obj) : this.measured(ks, key, obj));
    } catch (err) {
      this.uidCounter--;
      this.uids.delete(obj.metadata.uid);
      this.recordError(actor, 'create', input.kind, key, 'InternalError');
      throw err;
    }
    if (this.dry) {
      // the answer of a dry-run create: nothing handed out (the uid, a generated name's count), no version
      this.uidCounter = counted;
      this.uids.delete(obj.metadata.uid);
      obj.metadata.resourceVersion = '';
      return cloneJson(obj) as unknown as StoredObject<S, T>;
    }
    this.commitCreate(actor, ks, input.kind, key, obj, builtin, now);
    return cloneJson(obj) as unknown as StoredObject<S, T>;
  }

  /** The end of a create, once `obj` is prepared, valid and measured: its version, the store, the index, watch and record. */
  private commitCreate(actor: string, ks: KindState, kind: string, key: string, obj: StoredObject, builtin: boolean, now: number): void {
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    this.incarnations.set(`${kind}\u0000${key}`, (this.incarnations.get(`${kind}\u0000${key}`) ?? 0) + 1);
    ks.objects.set(key, obj);
    if (obj.kind === CRD) this.crdKinds = undefined;
    if (builtin && obj.kind === 'Service') this.services.hold(obj, true);
    this.gc.added(obj, key);
    this.watches.emit(ks.watch, { type: 'ADDED', object: obj, rv });
    this.record({ t: now, actor, verb: 'create', kind: obj.kind, key, uid: obj.metadata.uid, rv, changed: ['.'], noop: false });
    this.gc.collectDangling(obj, undefined);
    if (builtin && obj.kind === 'Namespace') this.namespaces.changed(obj, 'created');
    this.watches.flush();
  }

  /**
   * Replaces the content (spec and every other top-level field but status) and metadata
   * (labels, annotations, finalizers, ownerReferences) through the main resource; status in the
   * request is ignored. 409 when `metadata.resourceVersion` is set
   * and not current; an empty resourceVersion is an unconditional update. 409 too when
   * `metadata.uid` is set and names another object (one deleted and recreated under the name).
   */
  update<S = JsonObject, T = JsonObject>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }, options: UpdateOptions = {}): StoredObject<S, T> {
    const m = obj.metadata;
    // the stored object's apiVersion says which kind it is (a request may leave it out)
    const apiVersion = this.peek(obj.kind, this.keyFor(obj.kind, m as ObjectRef))?.apiVersion ?? obj.apiVersion;
    this.refuseUnconditional(actor, 'update', obj.kind, m, apiVersion, options.requireResourceVersion);
    // a custom resource's keys are sorted in the copies (key-order.ts); labels and annotations, Go maps, for every kind
    const copy = keysSorted(obj.kind, apiVersion) ? cloneSorted : cloneJson;
    const withStatus = this.mainWritesStatus(obj.kind, apiVersion, options.statusSubresource);
    return this.write(actor, 'update', obj.kind, this.keyFor(obj.kind, m as ObjectRef), m.resourceVersion, (cur) =>
      prepareForUpdate(
        checkUid(cur, m.uid),
        copy(contentOf(obj)),
        {
          labels: cloneSorted(m.labels),
          annotations: cloneSorted(m.annotations),
          finalizers: cloneJson(m.finalizers),
          ownerReferences: copy(m.ownerReferences),
        },
        withStatus ? (copy(obj.status ?? {}) as JsonObject) : undefined,
      ),
      withStatus,
    ) as unknown as StoredObject<S, T>;
  }

  /**
   * Binds a Pod to a Node, as kube-apiserver's `pods/binding` subresource does (BindingREST,
   * what kube-scheduler posts): sets `spec.nodeName` (an update or patch may not), merges the
   * Binding's annotations and sets the `PodScheduled=True` condition. 409 when the Pod is already
   * bound, is being deleted or still has scheduling gates, or when the Binding's `metadata.uid` /
   * `metadata.resourceVersion` (preconditions on the Pod) no longer hold; 404 when there is no
   * such Pod. Returns the bound Pod. Recorded as the verb `bind` of the Pod.
   */
  bind(actor: string, binding: PodBinding): StoredObject {
    const m = (binding?.metadata ?? {}) as Partial<PodBinding['metadata']>;
    const name = typeof m.name === 'string' ? m.name : '';
    const namespace = typeof m.namespace === 'string' && m.namespace !== '' ? m.namespace : undefined;
    const key = keyOf({ namespace, name });
    if (namespace === undefined || name === '') {
      this.recordError(actor, 'bind', 'Pod', key, 'Invalid');
      const field = namespace === undefined ? 'metadata.namespace' : 'metadata.name';
      throw new InvalidError(`Binding "${key}": ${field}: Required value: a Binding names the Pod it binds by its namespace and name`, [{ field, type: 'FieldValueRequired', body: 'Required value' }]);
    }
    // ValidatePodBinding: kube-apiserver returns its errors unwrapped (an aggregate, not a Status), so they come back as a 500
    const target = (binding.target ?? {}) as Partial<PodBinding['target']>;
    const problems: string[] = [];
    if (typeof target.kind === 'string' && target.kind !== '' && target.kind !== 'Node') problems.push(`target.kind: Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node", "<empty>"`);
    if (typeof target.name !== 'string' || target.name === '') problems.push('target.name: Required value');
    if (problems.length > 0) {
      this.recordError(actor, 'bind', 'Pod', key, 'InternalError');
      throw new StoreError('InternalError', 500, problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    }
    const node = target.name as string;
    const now = this.clock.now();
    return this.write(actor, 'bind', 'Pod', key, undefined, (cur) => {
      checkUid(cur, m.uid);
      if (typeof m.resourceVersion === 'string' && m.resourceVersion !== '' && m.resourceVersion !== cur.metadata.resourceVersion) {
        throw new ConflictError(`Operation cannot be fulfilled on Pod "${key}": Precondition failed: ResourceVersion in precondition: ${m.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion}`);
      }
      const conflict = (why: string) => new ConflictError(`Operation cannot be fulfilled on pods/binding "${name}": ${why}`);
      if (cur.metadata.deletionTimestamp !== undefined) throw conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
      const bound = cur.spec['nodeName'];
      if (typeof bound === 'string' && bound !== '') throw conflict(`pod ${name} is already assigned to node ${JSON.stringify(bound)}`);
      const gates = cur.spec['schedulingGates'];
      if (Array.isArray(gates) && gates.length > 0) throw conflict(`pod ${name} has non-empty .spec.schedulingGates`);
      const next = cloneJson(cur);
      next.spec['nodeName'] = node;
      const extra = m.annotations;
      if (extra !== null && typeof extra === 'object' && Object.keys(extra).length > 0) next.metadata.annotations = cloneSorted({ ...next.metadata.annotations, ...extra });
      next.status = { ...next.status, conditions: withPodScheduled(next.status['conditions'], now) };
      return next;
    });
  }

  /**
   * Evicts a Pod, as kube-apiserver's `pods/eviction` subresource (EvictionREST) does: the Pod is
   * deleted unless the one PodDisruptionBudget selecting it allows no disruption (429
   * TooManyRequests with a `DisruptionBudget` cause, {@link TooManyRequestsError}); a granted
   * eviction first takes the disruption from the budget's status (`disruptionsAllowed - 1`, the
   * Pod in `disruptedPods`), recorded as the API server's status write (`environment:eviction`),
   * then deletes the Pod, recorded as the caller's `delete`. 404 for a missing Pod, 500 when two
   * budgets select it. Pending, finished and terminating Pods are deleted without a budget check;
   * an unready Pod without taking a disruption while its budget is healthy (IfHealthyBudget) or
   * always (AlwaysAllow). See eviction.ts.
   */
  evict(actor: string, eviction: PodEviction): void {
    evictPod(this.evictionHost, actor, eviction);
  }

  private readonly evictionHost: EvictionHost = {
    now: () => this.clock.now(),
    peek: (kind, key) => this.peek(kind, key),
    peekAll: (kind) => this.peekAll(kind),
    updateStatus: (actor, obj) => this.updateStatus(actor, obj),
    delete: (actor, kind, ref, options) => this.delete(actor, kind, ref, options),
    recordError: (actor, kind, key, reason, uid) => this.recordError(actor, 'delete', kind, key, reason, uid),
    dryRun: (fn) => this.dryRun(fn),
  };

  /**
   * The Scale (autoscaling/v1) of a Deployment, ReplicaSet, StatefulSet, ReplicationController, or
   * custom resource whose CustomResourceDefinition declares `subresources.scale`, as
   * kube-apiserver's ScaleREST serves `…/{name}/scale`. 404 for a missing object or a kind without
   * the subresource; 500 for a custom resource without its spec replicas field.
   */
  getScale(kind: string, ref: { namespace?: string | undefined; name: string }): Scale {
    const key = this.keyFor(kind, ref);
    const obj = this.peek(kind, key);
    const paths = this.scalePaths(kind, obj?.apiVersion);
    if (paths === undefined) throw noScaleSubresource(kind, key);
    if (!obj) throw new NotFoundError(`${kind} "${key}" not found`);
    return readableScale(obj, paths);
  }

  /**
   * Writes a Scale through the scale subresource (PUT `…/{name}/scale`): only the object's spec
   * replicas change, a spec write (resourceVersion and generation bumped, watch event) recorded
   * as `actor`'s `update` of the object. `scale.metadata.resourceVersion` and `uid` are
   * preconditions (409); absent, the write is unconditional, as kube-apiserver allows for a
   * Scale (custom resources too). Absent `spec.replicas` is 0, as on the wire. 422 for negative
   * replicas, 404 for a missing object or a kind without the subresource. Returns the new Scale.
   */
  updateScale(actor: string, kind: string, scale: Scale): Scale {
    const m: Partial<Scale['metadata']> = scale?.metadata ?? {};
    const ref = { namespace: typeof m.namespace === 'string' && m.namespace !== '' ? m.namespace : undefined, name: typeof m.name === 'string' ? m.name : '' };
    return this.transformScale(actor, 'update', kind, ref, () => scale);
  }

  /**
   * JSON merge patch of the Scale (`{ spec: { replicas: 3 } }`, what `kubectl scale` sends), with
   * an optional resourceVersion precondition (`options.resourceVersion` or the patch's
   * `metadata.resourceVersion`); recorded as `actor`'s `patch` of the object. See {@link updateScale}.
   */
  patchScale(actor: string, kind: string, ref: { namespace?: string | undefined; name: string }, patch: JsonObject, options: Pick<WriteOptions, 'resourceVersion'> = {}): Scale {
    return this.transformScale(actor, 'patch', kind, ref, (old) => {
      const out = applyMergePatch(scaleJson(old), patch) as unknown as Scale;
      if (options.resourceVersion !== undefined && options.resourceVersion !== '' && options.resourceVersion !== old.metadata.resourceVersion) return { ...out, metadata: { ...out.metadata, resourceVersion: options.resourceVersion } };
      return out;
    });
  }

  /**
   * A write through the scale subresource: `fn` turns the object's current Scale into the new one
   * (PUT: the request's; a patch: the patched one), as ScaleREST's scaleUpdatedObjectInfo does.
   * A custom resource without its replicas field shows `fn` replicas -2147483648, and a Scale that
   * still has them is refused (kube-apiserver's 400 `the spec replicas field … cannot be empty`).
   * @internal
   */
  transformScale(actor: string, verb: 'update' | 'patch', kind: string, ref: { namespace?: string | undefined; name: string }, fn: (current: Scale) => Scale): Scale {
    const key = this.keyFor(kind, ref);
    const paths = this.scalePaths(kind, this.peek(kind, key)?.apiVersion);
    if (paths === undefined) {
      this.recordError(actor, verb, kind, key, 'NotFound', this.peek(kind, key)?.metadata.uid);
      throw noScaleSubresource(kind, key);
    }
    const next = this.write(actor, verb, kind, key, undefined, (cur) => {
      const { scale, found } = scaleOf(cur, paths);
      if (!found && !paths.builtin) scale.spec.replicas = MISSING_REPLICAS;
      const wanted = fn(scale);
      if (wanted?.spec?.replicas === MISSING_REPLICAS) throw new InvalidError(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`);
      return scaledObject(cur, paths, wanted);
    });
    return scaleOf(next, paths).scale;
  }

  /** The scale paths of a custom kind whose CRD declares `subresources.scale` (its validator checks them on every write), else undefined. */
  private customScale(kind: string, apiVersion: string | undefined): ScalePaths | undefined {
    return isBuiltin(kind, apiVersion) ? undefined : this.crdKind(kind)?.scale;
  }

  /** Where objects of `kind` (stored with `apiVersion`) keep their Scale, or undefined when they have no scale subresource. @internal */
  scalePaths(kind: string, apiVersion: string | undefined): ScalePaths | undefined {
    return builtinScalePaths(kind, apiVersion) ?? (isBuiltin(kind, apiVersion) ? undefined : this.crdKind(kind)?.scale);
  }

  /**
   * A custom resource allows no unconditional update, through the main resource or `/status`
   * (customResourceStrategy.AllowUnconditionalUpdate, which the status strategy embeds): 422.
   */
  private refuseUnconditional(actor: string, verb: 'update' | 'updateStatus', kind: string, m: NewObject['metadata'], apiVersion: string | undefined, required: boolean | undefined): void {
    if (m.resourceVersion || !(required ?? (keysSorted(kind, apiVersion) && actor.startsWith('controller:')))) return;
    const key = this.keyFor(kind, m as ObjectRef);
    this.recordError(actor, verb, kind, key, 'Invalid', this.peek(kind, key)?.metadata.uid);
    throw new InvalidError(
      `${kind} "${key}": metadata.resourceVersion: Invalid value: 0x0: must be specified for an update (a custom resource allows no unconditional update${verb === 'updateStatus' ? ', of its status either' : ''}: send the resourceVersion of the object you read, or patch it)`,
      [{ field: 'metadata.resourceVersion', type: 'FieldValueInvalid', body: 'Invalid value: 0x0: must be specified for an update' }],
    );
  }

  /** Writes status only, through the status subresource; never bumps generation. */
  updateStatus<S = JsonObject, T = JsonObject>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }, options: Pick<UpdateOptions, 'requireResourceVersion'> = {}): StoredObject<S, T> {
    return this.writeStatus(actor, obj, options, false);
  }

  /**
   * {@link updateStatus} of the controller client's wire copy of what a controller sent (plain
   * JSON no one else holds): its status is stored as it is (its keys sorted in place when the
   * kind's are), not copied a second time.
   * @internal
   */
  updateStatusSent<S = JsonObject, T = JsonObject>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }): StoredObject<S, T> {
    return this.writeStatus(actor, obj, {}, true);
  }

  private writeStatus<S, T>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }, options: Pick<UpdateOptions, 'requireResourceVersion'>, sent: boolean): StoredObject<S, T> {
    // one key string per write: it is kept (the write record, the trace) until the run is judged
    const key = this.keyFor(obj.kind, obj.metadata as ObjectRef);
    this.refuseMissingStatusSubresource(actor, 'updateStatus', obj.kind, key);
    if (!obj.metadata.resourceVersion) this.refuseUnconditional(actor, 'updateStatus', obj.kind, obj.metadata, this.peek(obj.kind, key)?.apiVersion ?? obj.apiVersion, options.requireResourceVersion);
    return this.write(actor, 'updateStatus', obj.kind, key, obj.metadata.resourceVersion, (cur) =>
      prepareForStatusUpdate(checkUid(cur, obj.metadata.uid), (keysSorted(obj.kind, cur.apiVersion) ? (sent ? sortedInPlace : cloneSorted) : sent ? sentAsIs : cloneJson)(obj.status as JsonObject | undefined)),
    ) as unknown as StoredObject<S, T>;
  }

  /**
   * RFC 7386 merge patch of the main resource (spec + metadata) or, with
   * `subresource: 'status'`, of status. Optional resourceVersion precondition, given either as
   * `options.resourceVersion` or, as kube-apiserver does, as `metadata.resourceVersion` (and
   * `metadata.uid`) in the patch body.
   */
  patch<S = JsonObject, T = JsonObject>(
    actor: string,
    kind: string,
    ref: { namespace?: string | undefined; name: string },
    patch: JsonObject,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): StoredObject<S, T> {
    const status = options.subresource === 'status';
    // transform copies the result, so the stored object shares no array with the caller's patch
    return this.transform(actor, kind, ref, (cur) => applyMergePatch(cur as unknown as Json, patch) as unknown as StoredObject, { ...options, ...(status ? { subresource: 'status' as const } : {}) }) as unknown as StoredObject<S, T>;
  }

  /**
   * Applies any pure transformation of the current object (merge, JSON or strategic patch) with
   * the same rules as update/updateStatus: only the allowed part of the result is kept.
   * @internal
   */
  transform(
    actor: string,
    kind: string,
    ref: { namespace?: string | undefined; name: string },
    fn: (current: StoredObject) => StoredObject,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): StoredObject {
    const status = options.subresource === 'status';
    const verb: WriteVerb = status ? 'patchStatus' : 'patch';
    const key = this.keyFor(kind, ref);
    if (status) this.refuseMissingStatusSubresource(actor, verb, kind, key);
    const withStatus = !status && this.mainWritesStatus(kind, this.peek(kind, key)?.apiVersion, options.statusSubresource);
    return this.write(actor, verb, kind, key, options.resourceVersion, (cur) => prepareForPatch(kind, key, cur, fn(cloneJson(cur)), status, withStatus), withStatus);
  }

  /**
   * Deletes an object. With finalizers it only sets deletionTimestamp; the object goes when
   * the last finalizer is removed. Dependents are garbage-collected unless `Orphan`.
   */
  delete(actor: string, kind: string, ref: { namespace?: string | undefined; name: string }, options: DeleteOptions = {}): StoredObject {
    const ks = this.kind(kind);
    const key = this.keyFor(kind, ref);
    const cur = ks.objects.get(key);
    const now = this.clock.now();
    if (!cur) {
      this.recordError(actor, 'delete', kind, key, 'NotFound');
      throw new NotFoundError(`${kind} "${key}" not found`);
    }
    const conflict = deletePreconditionConflict(kind, key, cur, options.preconditions);
    if (conflict) {
      this.recordError(actor, 'delete', kind, key, 'Conflict', cur.metadata.uid);
      throw conflict;
    }
    const policy = options.propagationPolicy ?? defaultPropagationPolicy(kind, cur.apiVersion);
    // a Job deleted without a policy orphans its Pods, as on a cluster (kube-apiserver answers with a warning)
    const orphans = options.propagationPolicy === undefined && policy === 'Orphan' ? this.gc.dependentsOf(cur.metadata.uid) : [];
    // Foreground: the object stays, marked, with the finalizer the garbage collector removes once its blocking dependents are gone
    const foreground = policy === 'Foreground';
    if (cur.metadata.finalizers.length > 0 || foreground) {
      const addFinalizer = foreground && !cur.metadata.finalizers.includes(FOREGROUND_FINALIZER);
      if (cur.metadata.deletionTimestamp !== undefined) {
        if (addFinalizer) {
          // a repeated delete asking for Foreground adds the finalizer, as kube-apiserver updates a deleting object's finalizers by the policy
          if (this.dry) return cloneJson({ ...cur, metadata: { ...cur.metadata, finalizers: [...cur.metadata.finalizers, FOREGROUND_FINALIZER] } });
          const rv = ++this.rv;
          const next: StoredObject = { ...cur, metadata: { ...cur.metadata, finalizers: [...cur.metadata.finalizers, FOREGROUND_FINALIZER], resourceVersion: String(rv) } };
          ks.objects.set(key, next);
          this.watches.emit(ks.watch, { type: 'MODIFIED', object: next, rv });
          this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, rv, changed: ['metadata.finalizers'], noop: false });
          this.gc.foreground(cur.metadata.uid, kind, key);
          this.watches.flush();
          return cloneJson(next);
        }
        if (this.dry) return cloneJson(cur);
        this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, changed: [], noop: true, ...(orphans.length > 0 ? { orphaned: orphans } : {}) });
        if (policy === 'Orphan') this.gc.cascade(cur.metadata.uid, 'Orphan');
        this.watches.flush();
        return cloneJson(cur);
      }
      const rv = this.dry ? Number(cur.metadata.resourceVersion) : ++this.rv;
      const next = prepareForDeletion(cur, now, rv, addFinalizer ? FOREGROUND_FINALIZER : undefined);
      // the namespace registry's Delete: a Namespace being deleted is Terminating
      const namespace = kind === 'Namespace' && isBuiltin(kind, cur.apiVersion);
      if (namespace) next.status = { ...cur.status, phase: 'Terminating' };
      if (this.dry) return cloneJson(next);
      ks.objects.set(key, next);
      this.watches.emit(ks.watch, { type: 'MODIFIED', object: next, rv });
      this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, rv, changed: addFinalizer ? ['metadata.deletionTimestamp', 'metadata.finalizers'] : ['metadata.deletionTimestamp'], noop: false, markedForDeletion: true, ...(orphans.length > 0 ? { orphaned: orphans } : {}) });
      if (foreground) this.gc.foreground(cur.metadata.uid, kind, key);
      // Orphan must not be lost while finalizers hold the object: the garbage collector orphans
      // the dependents now (kube-apiserver does it through the `orphan` finalizer); the other
      // policies collect them when the object is finally removed.
      if (policy === 'Orphan') this.gc.cascade(cur.metadata.uid, 'Orphan');
      if (namespace) this.namespaces.changed(next, 'deleting');
      this.watches.flush();
      return cloneJson(next);
    }
    if (this.dry) return cloneJson(cur);
    const removed = this.remove(ks, key, cur);
    this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, rv: removed.rv, changed: ['.'], noop: false, removed: true, ...(orphans.length > 0 ? { orphaned: orphans } : {}) });
    this.gc.cascade(cur.metadata.uid, policy);
    this.watches.flush();
    return cloneJson(removed.object);
  }

  // ---------------------------------------------------------------- watch (see watch.ts)

  /**
   * Watches a kind from a resourceVersion: replays retained events newer than it, then streams
   * live ones. Without a version, only live events. @throws GoneError when `fromRv` is older
   * than the retained history (the client must relist).
   */
  watch(kind: string, fromRv: number | undefined, fn: (ev: WatchEvent) => void, options: { namespace?: string } = {}): Watch {
    // a cluster-scoped kind is watched whole, as a client watches it at the cluster path
    const namespace = options.namespace && this.namespaced(kind) !== false ? options.namespace : undefined;
    return this.watches.watch(this.kind(kind).watch, this.rv, fromRv, fn, namespace);
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watcher of a kind. */
  bookmark(kind: string): void {
    this.watches.bookmark(this.kind(kind).watch, kind, this.rv);
  }

  /** Compacts the watch history so that watches from older versions get 410 (fault hook); snapshots still reach back. */
  compact(kind?: string): void {
    for (const [name, ks] of this.kinds) {
      if (kind !== undefined && name !== kind) continue;
      this.watches.compact(ks.watch, this.rv);
    }
  }

  /**
   * The objects of a kind as they were at resourceVersion `rv`: what a lagging API server
   * replica would list (stale-snapshot faults). Rebuilt from the retained watch history;
   * undefined when the history no longer reaches back that far. No copies.
   * @internal
   */
  snapshotAt(kind: string, rv: number): StoredObject[] | undefined {
    const ks = this.kinds.get(kind);
    if (!ks) return [];
    return this.watches.snapshotAt(ks.watch, ks.objects.ordered(), rv);
  }

  // ---------------------------------------------------------------- internals

  /** The write path of update, updateStatus, patch and transform: checks, then store, watch, GC. */
  private write(actor: string, verb: WriteVerb, kind: string, key: string, expectedRv: string | undefined, build: (cur: StoredObject) => StoredObject, mainWritesStatus = false): StoredObject {
    const ks = this.kind(kind);
    const cur = ks.objects.get(key);
    const now = this.clock.now();
    if (!cur) {
      this.recordError(actor, verb, kind, key, 'NotFound');
      throw new NotFoundError(`${kind} "${key}" not found`);
    }
    const conflict = resourceVersionConflict(kind, key, cur, expectedRv);
    if (conflict) {
      this.recordError(actor, verb, kind, key, 'Conflict', cur.metadata.uid);
      throw conflict;
    }
    let next: StoredObject;
    try {
      next = this.pruned(build(cur));
    } catch (err) {
      if (err instanceof StoreError) this.recordError(actor, verb, kind, key, err.reason, cur.metadata.uid);
      throw err;
    }
    const decodeError = workloadDecodeError(next, cur) ?? canonicalizeQuantities(next, cur);
    if (decodeError === undefined) applyDefaults(next, cur, this.services);
    const invalid = decodeError ?? invalidObject(next, cur) ?? invalidTransition(cur, next);
    // no array built per write for the usual answer, no error at all
    let fields: FieldError[] = [];
    if (invalid === undefined) {
      const content = contentErrors(next);
      // a binding is no update: kube-apiserver writes it to storage without the Pod's update validation
      const immutable = verb === 'bind' ? [] : immutabilityErrors(cur, next, this.validation);
      const spec = workloadErrors(next, cur);
      fields = content.length === 0 ? immutable : immutable.length === 0 ? content : [...content, ...immutable];
      if (spec.length > 0) fields = fields.length === 0 ? spec : [...spec, ...fields];
      const scale = this.customScale(kind, next.apiVersion);
      if (scale !== undefined) fields = [...fields, ...customScaleErrors(next, scale, verb === 'updateStatus' || verb === 'patchStatus')];
      if (!isBuiltin(kind, next.apiVersion)) fields = this.withSchemaErrors(fields, next, cur);
    }
    if (invalid !== undefined || fields.length > 0) {
      this.recordError(actor, verb, kind, key, 'Invalid', cur.metadata.uid);
      throw new InvalidError(`${kind} "${key}": ${invalid ?? fieldErrorsText(fields)}`, fields);
    }
    const changed = changedPaths(cur, next);
    if (changed.length === 0) {
      if (!this.dry) this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, changed, noop: true });
      return cloneJson(cur);
    }
    // etcd refuses an object over its request size limit (a no-op never reaches it)
    const size = this.dry ? objectSize(next) : this.measured(ks, key, next);
    try {
      refuseTooLarge(size);
    } catch (err) {
      this.recordError(actor, verb, kind, key, 'InternalError', cur.metadata.uid);
      throw err;
    }
    // a dry run's answer keeps the current version
    const rv = this.dry ? Number(cur.metadata.resourceVersion) : ++this.rv;
    // spec, or any other content field (a CRD's top-level fields, ConfigMap data), as for custom resources
    // without a status subresource, status is content too (kube-apiserver's customResourceStrategy)
    const specChanged = !contentEqual(cur, next) || (mainWritesStatus && !jsonEqual(cur.status, next.status));
    // `build` returned a fresh object (its metadata may be cur's): set the versions on it, no second copy
    // copied, then the two versions stored: the same object (and key order) as
    // `{ ...next.metadata, resourceVersion, generation }`, which V8 (Node 20) builds on a slower
    // path (a spread literal that redefines fields: ~6% of a write-heavy simulation's profile)
    const metadata = { ...next.metadata };
    metadata.resourceVersion = String(rv);
    metadata.generation = cur.metadata.generation + (specChanged ? 1 : 0);
    next.metadata = metadata;
    if (this.dry) return cloneJson(next);
    if (next.metadata.deletionTimestamp !== undefined && next.metadata.finalizers.length === 0) {
      this.rv--; // the removal takes the version
      this.gc.unindexOwners(cur, key); // the index holds cur's owners, which this write may have changed
      const removed = this.remove(ks, key, next);
      this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, rv: removed.rv, changed, noop: false, removed: true });
      this.gc.cascade(cur.metadata.uid, 'Background');
      this.watches.flush();
      return cloneJson(removed.object);
    }
    ks.objects.set(key, next);
    if (kind === CRD) this.crdKinds = undefined;
    if (kind === 'Service' && isBuiltin(kind, cur.apiVersion)) {
      this.services.hold(cur, false);
      this.services.hold(next, true);
    }
    const ownersChanged = !jsonEqual(cur.metadata.ownerReferences, next.metadata.ownerReferences);
    if (ownersChanged) {
      this.gc.unindexOwners(cur, key);
      this.gc.indexOwners(next, key);
    }
    this.watches.emit(ks.watch, { type: 'MODIFIED', object: next, rv });
    this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, rv, changed, noop: false });
    if (ownersChanged) this.gc.collectDangling(next, cur);
    this.watches.flush();
    return cloneJson(next);
  }

  private remove(ks: KindState, key: string, cur: StoredObject): { rv: number; object: StoredObject } {
    const rv = ++this.rv;
    // copies, then the field stored: the objects `{ ...cur, metadata: { ...cur.metadata, resourceVersion } }` builds, off V8's slower path for spread literals that redefine a field
    const metadata = { ...cur.metadata };
    metadata.resourceVersion = String(rv);
    const gone: StoredObject = { ...cur };
    gone.metadata = metadata;
    ks.objects.delete(key);
    ks.sizes.delete(key);
    if (cur.kind === CRD) this.crdKinds = undefined;
    const builtin = isBuiltin(cur.kind, cur.apiVersion);
    if (builtin && cur.kind === 'Service') this.services.hold(cur, false);
    this.gc.removed(cur, key);
    if (builtin && cur.kind === 'Namespace') this.namespaces.changed(cur, 'removed');
    this.watches.emit(ks.watch, { type: 'DELETED', object: gone, rv });
    return { rv, object: gone };
  }

  private record(w: WriteRecord): void {
    // a dry run is no write (its refusals neither: nothing reached storage)
    if (this.seeding || this.dry) return;
    this.#onWrite?.(w);
  }

  private recordError(actor: string, verb: WriteVerb, kind: string, key: string, error: StoreErrorReason, uid?: string): void {
    // two literals, not a conditional spread (V8's slow path)
    const t = this.clock.now();
    this.record(uid !== undefined ? { t, actor, verb, kind, key, uid, changed: [], noop: false, error } : { t, actor, verb, kind, key, changed: [], noop: false, error });
  }
}

const CRD = 'CustomResourceDefinition';

/** What a custom resource without its spec replicas field shows a scale write (kube-apiserver's invalidSpecReplicas, the smallest int32). */
const MISSING_REPLICAS = -2147483648;

/** A part of what the controller client sent, kept as it is: its wire copy is plain JSON no one else holds. */
function sentAsIs<T>(value: T): T {
  return value;
}

/**
 * A v1 Binding: what kube-scheduler posts to `pods/{name}/binding` (or to `bindings`) to bind the
 * Pod `metadata.name` to the Node `target.name`. @public
 */
export interface PodBinding {
  apiVersion?: string;
  kind?: string;
  metadata: {
    /** The Pod's name. */
    name: string;
    /** The Pod's namespace. */
    namespace?: string | undefined;
    /** Precondition: the Pod's uid. */
    uid?: string | undefined;
    /** Precondition: the Pod's resourceVersion. */
    resourceVersion?: string | undefined;
    /** Merged into the Pod's annotations. */
    annotations?: Record<string, string> | undefined;
  };
  target: {
    /** `Node` (or empty). */
    kind?: string | undefined;
    /** The Node's name. */
    name: string;
    apiVersion?: string | undefined;
  };
}

/**
 * `conditions` with PodScheduled=True, as podutil.UpdatePodCondition sets it for a binding: a new
 * condition stamped now; an existing one replaced (reason and message dropped), its
 * lastTransitionTime kept when it was True already.
 */
function withPodScheduled(conditions: unknown, now: number): Json[] {
  const list = Array.isArray(conditions) ? (conditions as Json[]) : [];
  const i = list.findIndex((c) => c !== null && typeof c === 'object' && !Array.isArray(c) && (c as JsonObject)['type'] === 'PodScheduled');
  const prev = i >= 0 ? (list[i] as JsonObject) : undefined;
  const since = prev?.['status'] === 'True' && typeof prev['lastTransitionTime'] === 'string' ? prev['lastTransitionTime'] : virtualTimestamp(now);
  const c: JsonObject = { type: 'PodScheduled', status: 'True', lastTransitionTime: since };
  return i >= 0 ? list.map((x, j) => (j === i ? c : x)) : [...list, c];
}

/** What `invalidName` checks a custom resource's name by (a kind no built-in rule names: an RFC 1123 subdomain). */
const CUSTOM_NAME_RULE = 'CustomResource';

/** Built-in kinds kube-apiserver serves without a `/status` subresource (they have no status), by their apiVersions: a status write is 404. */
const RBAC = ['rbac.authorization.k8s.io/v1'];
const NO_STATUS_BUILTINS: ReadonlyMap<string, readonly string[]> = new Map([
  ['ConfigMap', ['v1']],
  ['Secret', ['v1']],
  ['ServiceAccount', ['v1']],
  ['Endpoints', ['v1']],
  ['PodTemplate', ['v1']],
  ['LimitRange', ['v1']],
  ['Event', ['v1', 'events.k8s.io/v1']],
  ['Role', RBAC],
  ['RoleBinding', RBAC],
  ['ClusterRole', RBAC],
  ['ClusterRoleBinding', RBAC],
  ['EndpointSlice', ['discovery.k8s.io/v1']],
  ['Lease', ['coordination.k8s.io/v1']],
  ['ControllerRevision', ['apps/v1']],
  ['PriorityClass', ['scheduling.k8s.io/v1']],
  ['StorageClass', ['storage.k8s.io/v1']],
]);

/** The creator of the seeded Namespace objects (kube-apiserver's own bootstrap of `default`, `kube-system`, …). */
const NAMESPACE_SEEDER = 'environment:cluster';

/**
 * The Namespace objects `create` made while seeding, by name, uid and time, with their sizes:
 * pure functions of those three (see ObjectStore.seedAsBefore). Copies, never handed out.
 * Bounded: emptied when full.
 */
const seeded = new Map<string, { object: StoredObject; size: number }>();
const SEEDED_MAX = 256;

let seededReused = 0;

/** How many seeded Namespace objects this process keeps, and how many seedings reused one (for tests). @internal */
export function seededNamespaceTemplates(): { kept: number; reused: number } {
  return { kept: seeded.size, reused: seededReused };
}

/** The kind a CustomResourceDefinition defines, its scope and whether its storage version serves /status; undefined when malformed. */
interface CrdKindInfo {
  kind: string;
  namespaced: boolean;
  statusSubresource: boolean;
  /** The jsonPaths of `selectableFields`, of every version (a list names no version in process). */
  selectableFields: readonly string[];
  /** The storage version's `subresources.scale`, if any. */
  scale: ScalePaths | undefined;
  /** Each version's `schema.openAPIV3Schema`, by apiVersion (`group/version`). */
  schemas: ReadonlyMap<string, unknown>;
}

function crdKindInfo(crd: StoredObject): CrdKindInfo | undefined {
  const spec = crd.spec as Record<string, unknown>;
  const names = spec['names'];
  const kind = names !== null && typeof names === 'object' ? (names as Record<string, unknown>)['kind'] : undefined;
  if (typeof kind !== 'string' || kind === '') return undefined;
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as unknown[]).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : [];
  const version = versions.find((v) => v['storage'] === true) ?? versions[0];
  const sub = version?.['subresources'];
  const statusSubresource = sub !== null && typeof sub === 'object' && (sub as Record<string, unknown>)['status'] !== undefined;
  const selectableFields = new Set<string>();
  for (const v of versions) {
    const fields = v['selectableFields'];
    if (!Array.isArray(fields)) continue;
    for (const f of fields as unknown[]) {
      const path = f !== null && typeof f === 'object' ? (f as Record<string, unknown>)['jsonPath'] : undefined;
      if (typeof path === 'string' && /^\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path)) selectableFields.add(path);
    }
  }
  const schemas = new Map<string, unknown>();
  for (const v of versions) {
    const schema = v['schema'];
    const open = schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>)['openAPIV3Schema'] : undefined;
    if (open !== null && typeof open === 'object' && typeof v['name'] === 'string') schemas.set(`${String(spec['group'] ?? '')}/${v['name']}`, open);
  }
  return { kind, namespaced: spec['scope'] !== 'Cluster', statusSubresource, selectableFields: [...selectableFields], scale: crdScalePaths(sub), schemas };
}
