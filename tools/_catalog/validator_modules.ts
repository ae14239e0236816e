/**
 * Where the tools' precompiled validators (validators/, `deno task gen`) are imported from. Each
 * is an entry point of its own in the compiled binary (scripts/build.ts), not part of the
 * program's bundle, whose code is all loaded at start: bundled, their 450 KB of code cost about
 * 0.5 MB of resident memory in every session, though most are never used.
 */

/** This file, as the source tree has it: the bundle gives every module the program's own URL. */
const SELF = "tools/_catalog/validator_modules.ts";

/**
 * From source, validators/ beside this file; in the binary, where `bun build --compile` puts
 * entry points: at their path from the project's top, which is where the program itself is.
 */
const VALIDATORS = import.meta.url.endsWith(SELF)
  ? new URL("./validators/", import.meta.url)
  : new URL("tools/_catalog/validators/", import.meta.url);

/**
 * Imports one of validators/ by file name.
 *
 * @example
 * ```ts
 * const { default: validate } = await validatorModule("read_file_input.generated.js");
 * ```
 */
export function validatorModule(name: string): Promise<{ default: unknown }> {
  return import(new URL(name, VALIDATORS).href);
}
