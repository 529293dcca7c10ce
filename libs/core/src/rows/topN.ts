/**
 * The first k of n items under a comparator, in order, without sorting all n when k is
 * small: a bounded max-heap, O(n log k). Items are indices 0..n-1 (the caller's
 * comparator looks them up), so nothing but one Int32Array is allocated.
 */
export function firstK(n: number, k: number, compare: (a: number, b: number) => number): number[] {
  const take = Math.min(k, n);
  if (take <= 0) return [];
  // For a large share of n, one sort beats the heap's constant factor.
  if (take * 4 >= n) {
    const all = Array.from({ length: n }, (_, i) => i);
    all.sort(compare);
    return all.slice(0, take);
  }
  const heap = new Int32Array(take); // heap[0] is the worst of the best `take` so far
  let size = 0;
  const worse = (a: number, b: number) => compare(heap[a]!, heap[b]!) > 0;
  const swap = (a: number, b: number) => {
    const t = heap[a]!;
    heap[a] = heap[b]!;
    heap[b] = t;
  };
  const siftDown = (from: number) => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < size && worse(l, top)) top = l;
      if (r < size && worse(r, top)) top = r;
      if (top === i) return;
      swap(i, top);
      i = top;
    }
  };
  for (let item = 0; item < n; item++) {
    if (size < take) {
      heap[size] = item;
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(item, heap[0]!) < 0) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return Array.from(heap).sort(compare);
}
