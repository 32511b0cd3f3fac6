// module state of an ES module a CommonJS program requires (as it requires @kubernetes/client-node)
let n = 0;
export function next() {
  n += 1;
  return n;
}
