/**
 * A map from object keys (`namespace/name`, or `name` for a cluster-scoped object) that iterates
 * in key order, as kube-apiserver lists: etcd returns a range of `/registry/<resource>/…` keys
 * sorted byte-wise, so a list comes back by namespace, then name, whatever order the objects were
 * created in. A lister that iterated in creation order would hide a controller's reliance on it
 * (two replicas walking the same list in the same order never race).
 *
 * Kept cheap: updates keep a key's place (a Map does); a new key after the largest one keeps the
 * order; any other new key marks the map for one sort before the next iteration. Keys compare as
 * JavaScript strings (UTF-16 code units), Go's byte order for the ASCII that names are.
 * @internal
 */
export class KeyOrderedMap<V> {
  private map = new Map<string, V>();
  /** The largest key inserted since the last sort (may name a deleted key: it only bounds). */
  private last = '';
  private outOfOrder = false;

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: V): void {
    if (!this.map.has(key)) {
      if (this.map.size > 0 && key < this.last) this.outOfOrder = true;
      else this.last = key;
    }
    this.map.set(key, value);
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  /** The values in key order. */
  values(): IterableIterator<V> {
    return this.ordered().values();
  }

  /** The entries in key order. */
  entries(): IterableIterator<[string, V]> {
    return this.ordered().entries();
  }

  /** The underlying map, in key order (read only). */
  ordered(): ReadonlyMap<string, V> {
    if (this.outOfOrder) {
      const entries = [...this.map];
      entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this.map = new Map(entries);
      this.outOfOrder = false;
      this.last = entries.length > 0 ? entries[entries.length - 1]![0] : '';
    }
    return this.map;
  }
}
