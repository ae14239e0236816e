/**
 * Tier 1 of code intelligence: tree-sitter grammars embedded in toolhost, parsing in a worker.
 *
 * @example
 * ```ts
 * const lang = languageOf("src/app.py"); // "python"
 * const [outcome] = await parseBatch([{ lang: lang!, text, symbols: true }], signal);
 * if (!("failed" in outcome)) for (const s of outcome.symbols) console.error(s.namePath);
 * ```
 */
export { KNOWN_EXTENSIONS, type LanguageId, languageOf } from "../languages/mod.ts";
export {
  FILE_PARSE_MS,
  isHeavy,
  parseBatch,
  ParseCancelled,
  parseConcurrency,
  parseWorkers,
  stopParseWorkers,
} from "./parse_pool.ts";
export type { CodeSymbol, ParsedFile, ParseOutcome, SyntaxPlace, Words } from "./types.ts";
export { MAX_SYMBOLS_PER_FILE } from "./extract.ts";
export {
  HEAVY_FILE_CHARS,
  MAX_TREE_NODES,
  MAX_WORDS_PER_FILE,
  PARSE_MEMORY_BYTES,
} from "./bounds.ts";
export type { ParseJob } from "./worker.ts";
export { WASM_FILES } from "./wasm_files.ts";
