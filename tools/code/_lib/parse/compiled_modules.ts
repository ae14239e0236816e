/**
 * tree-sitter's runtime and grammars compiled once per process, on the main thread, and handed to
 * every parse worker with its batch (a WebAssembly.Module is shared between threads, not copied):
 * a worker that compiled its own paid the compile and JavaScriptCore's optimising tier (OMG) again
 * for the same code — a third of a cold map's CPU time with two workers, and more again for each
 * worker started later (one ended for its memory, or after being idle).
 */
import { GRAMMARS, type LanguageId, RUNTIME } from "../languages/mod.ts";
import type { GrammarFile } from "../languages/mod.ts";
import { grammarBytes } from "./grammar_bytes.ts";

/** The runtime's module and those of the grammars a batch needs. */
export interface CompiledModules {
  runtime: WebAssembly.Module;
  grammars: Partial<Record<LanguageId, WebAssembly.Module>>;
}

const compiled = new Map<string, Promise<WebAssembly.Module>>();

function compiledModule(file: GrammarFile): Promise<WebAssembly.Module> {
  let module = compiled.get(file.stem);
  if (!module) {
    module = grammarBytes(file).then((bytes) => WebAssembly.compile(bytes as BufferSource));
    // A failure is not kept: the next batch tries again (and says why).
    module.catch(() => compiled.delete(file.stem));
    compiled.set(file.stem, module);
  }
  return module;
}

/**
 * The modules for parsing `langs`, compiled on first use and kept for the process's life.
 *
 * @example
 * ```ts
 * const modules = await modulesFor(["typescript"]); // modules.grammars.typescript
 * ```
 */
export async function modulesFor(langs: Iterable<LanguageId>): Promise<CompiledModules> {
  const wanted = [...new Set(langs)];
  const [runtime, ...grammars] = await Promise.all([
    compiledModule(RUNTIME),
    ...wanted.map((lang) => compiledModule(GRAMMARS[lang])),
  ]);
  return {
    runtime,
    grammars: Object.fromEntries(wanted.map((lang, i) => [lang, grammars[i]])),
  };
}
