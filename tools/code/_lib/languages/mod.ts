/**
 * The languages toolhost reads as code, one table for both tiers: extensions, grammar, symbol
 * nodes (tier 1, tree-sitter) and language servers with their project markers (tier 2).
 *
 * @example
 * ```ts
 * const language = languageFor("src/app.tsx"); // the "tsx" entry
 * language?.grammar; // { pkg: "tree-sitter-typescript", stem: "tree-sitter-tsx" }
 * language?.extensions[".tsx"]; // "typescriptreact", what a server is told
 * language?.servers.map((s) => s.id); // ["deno", "typescript"]
 * ```
 */
import { type GrammarFile, type Language, type LanguageId, LANGUAGES } from "./_table.ts";
import type { SymbolRules } from "./_symbol_rules.ts";

export { type GrammarFile, type Language, type LanguageId, LANGUAGES } from "./_table.ts";
export {
  COMMENTS,
  DECORATIONS,
  type SymbolRule,
  type SymbolRules,
  WRAPPERS,
} from "./_symbol_rules.ts";
export type {
  OnlyWhere,
  ReadOnlyOptions,
  ServerFamily,
  ServerProgram,
} from "./_server_families.ts";

const BY_EXTENSION = new Map<string, Language>(
  LANGUAGES.flatMap((language) =>
    Object.keys(language.extensions).map((extension) => [extension, language] as const)
  ),
);
const BY_ID = new Map<LanguageId, Language>(LANGUAGES.map((language) => [language.id, language]));

/** A file name's extension, lower case with its dot ("" when it has none). */
export function extensionOf(path: string): string {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"))) return "";
  return path.slice(dot).toLowerCase();
}

/** The language of a file by its name, or undefined when the table has none for it. */
export function languageFor(path: string): Language | undefined {
  return BY_EXTENSION.get(extensionOf(path));
}

/** The tier-1 language id of a file by its name, or undefined. */
export function languageOf(path: string): LanguageId | undefined {
  return languageFor(path)?.id;
}

/** Every extension the table knows, for messages and docs. */
export const KNOWN_EXTENSIONS: readonly string[] = [...BY_EXTENSION.keys()];

/** The grammar of each language. */
export const GRAMMARS: Readonly<Record<LanguageId, GrammarFile>> = Object.fromEntries(
  LANGUAGES.map((language) => [language.id, language.grammar]),
) as Record<LanguageId, GrammarFile>;

/** The symbol nodes of each language. */
export const RULES: Readonly<Record<LanguageId, SymbolRules>> = Object.fromEntries(
  LANGUAGES.map((language) => [language.id, language.symbols]),
) as Record<LanguageId, SymbolRules>;

/** The entry of a language id. */
export function language(id: LanguageId): Language {
  return BY_ID.get(id)!;
}

/** The runtime's own wasm, beside web-tree-sitter.js. */
export const RUNTIME: GrammarFile = { pkg: "web-tree-sitter", stem: "web-tree-sitter" };

/** The languages some built-in server answers for, as a list for a sentence. */
export function languagesWithServers(): string {
  const names = LANGUAGES.filter((l) => l.servers.length > 0).map((l) => l.name);
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
