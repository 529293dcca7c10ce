/** Typed arrays that grow: a copy of `array` with room for `size` elements (the rest zero). */
export function grown<A extends Float64Array | Uint8Array>(array: A, size: number): A {
  const copy = new (array.constructor as new (length: number) => A)(size);
  copy.set(array);
  return copy;
}
