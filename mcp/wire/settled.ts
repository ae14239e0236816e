/**
 * A promise's value when it is known to be fulfilled already, so the common call (a tool that
 * finished without waiting) goes on in the same turn instead of a chain of promise jobs. Only Bun
 * can tell (`Bun.peek`); elsewhere every promise is awaited, with the same result.
 */

interface Peek {
  (promise: Promise<unknown>): unknown;
  status(promise: Promise<unknown>): "pending" | "fulfilled" | "rejected";
}

const peek = (globalThis as { Bun?: { peek?: Peek } }).Bun?.peek;

/** Returned by settledValue() for a promise that must be awaited. */
export const PENDING: unique symbol = Symbol("pending");

export function settledValue<T>(value: T | Promise<T>): T | typeof PENDING {
  if (!(value instanceof Promise)) return value;
  return peek !== undefined && peek.status(value) === "fulfilled" ? peek(value) as T : PENDING;
}
