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
export { FILE_PARSE_MS, parseBatch, ParseCancelled, stopParseWorkers } from "./parse_pool.ts";
export type { CodeSymbol, ParsedFile, ParseOutcome, SyntaxPlace } from "./types.ts";
export type { ParseJob } from "./worker.ts";
export { WASM_FILES } from "./wasm_files.ts";
