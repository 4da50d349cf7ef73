/** A value made on first use and kept: `lazy(make)` is a function that calls `make` once and then answers its result. */
export function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
