// Local work answers synchronously; remote work (an owner on another member) answers with a promise.
// The hot path keeps the synchronous case free of promise allocations and microtask hops.

export type MaybePromise<T> = T | Promise<T>;

/** Run `next` on the value now, or once the promise settles. (Not named `then`: a module exporting `then` is a thenable namespace.) */
export function andThen<T, R>(value: MaybePromise<T>, next: (v: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * andThen for a `next` that needs one more argument: with a module-level `next`, the
 * synchronous case allocates nothing (no closure per call); a promise gets one closure.
 */
export function andThenWith<T, A, R>(value: MaybePromise<T>, arg: A, next: (arg: A, v: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then((v) => next(arg, v)) : next(arg, value);
}
