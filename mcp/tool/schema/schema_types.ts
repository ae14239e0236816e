/**
 * FromSchema<S>: the TypeScript type of values that a JSON Schema literal (`as const`) accepts,
 * so a tool's input schema is written once and its handler's argument type follows from it.
 * Covers what tool schemas use: type (one or several), enum, const, properties/required,
 * items, anyOf/oneOf. Anything else widens to `unknown` rather than lying.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

type FromType<T, S> = T extends "string" ? string
  : T extends "number" | "integer" ? number
  : T extends "boolean" ? boolean
  : T extends "null" ? null
  : T extends "array" ? S extends { readonly items: infer I } ? FromSchema<I>[] : unknown[]
  : T extends "object" ? FromObject<S>
  : unknown;

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type FromObject<S> = S extends { readonly properties: infer P } ? Simplify<
    & { -readonly [K in keyof P & RequiredKeys<S>]: FromSchema<P[K]> }
    & { -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: FromSchema<P[K]> }
  >
  : Record<string, unknown>;

export type FromSchema<S> = S extends { readonly const: infer C } ? C
  : S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly anyOf: readonly (infer A)[] } ? FromSchema<A>
  : S extends { readonly oneOf: readonly (infer A)[] } ? FromSchema<A>
  : S extends { readonly type: readonly (infer T)[] } ? FromType<T, S>
  : S extends { readonly type: infer T } ? FromType<T, S>
  : unknown;
