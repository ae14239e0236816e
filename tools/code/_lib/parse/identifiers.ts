/**
 * The identifiers a file uses, counted from its syntax tree: names in code only, never words
 * of comments, strings or keywords (`from`, `type`), which would rank the commonest English
 * first. Only leaf names count (`a.b` and `A::f` count as `a`, `b`, `A`, `f`), and a definition's
 * own name is not a use of it: what is left are the file's references.
 */
import type { Language, Tree } from "web-tree-sitter";
import type { CodeSymbol, Words } from "./types.ts";
import { MAX_WORDS_PER_FILE } from "./bounds.ts";

/** Trees up to this many nodes are searched in one call (a node object per identifier). */
const SEARCH_IN_ONE_CALL = 100_000;

const typesByLanguage = new WeakMap<Language, string[]>();

/**
 * Tree-sitter's names for identifier leaves (PHP calls them `name`), without the compound ones
 * (`nested_identifier`, `scoped_identifier`, `qualified_identifier`: their parts are leaves) and
 * labels.
 */
function isIdentifier(type: string): boolean {
  if (type === "name") return true;
  if (!type.endsWith("identifier")) return false;
  return !/^(nested|scoped|qualified|statement|blank)_/.test(type);
}

/** The identifier leaves' types of `language`. */
export function identifierTypes(language: Language): string[] {
  let types = typesByLanguage.get(language);
  if (!types) {
    types = [...new Set(language.types.filter((type) => type && isIdentifier(type)))];
    typesByLanguage.set(language, types);
  }
  return types;
}

/**
 * A file's identifiers as they are met, counted by their text. extract.ts's search fills it in
 * the same call into the runtime that finds the definitions (one search of the tree, not two).
 */
export class IdentifierCounts {
  readonly counts = new Map<string, number>();
  /** Set once a search of the whole tree has counted into it. */
  complete = false;
  constructor(readonly text: string) {}

  count(start: number, end: number): void {
    if (end - start < 2 || end - start > 100) return;
    const word = this.text.slice(start, end);
    const had = this.counts.get(word);
    if (had !== undefined) this.counts.set(word, had + 1);
    else if (this.counts.size < MAX_WORDS_PER_FILE) this.counts.set(word, 1);
  }
}

/** Whether a tree is searched in one call (else walked with a cursor). */
export function searchedInOneCall(tree: Tree): boolean {
  return tree.rootNode.descendantCount <= SEARCH_IN_ONE_CALL;
}

/**
 * The identifiers `tree` uses; `definitions`' own names are taken off the counts. `counted`:
 * identifiers already counted by a search of the whole tree (when it is complete).
 */
export function identifiersIn(
  tree: Tree,
  text: string,
  definitions: CodeSymbol[] = [],
  counted?: IdentifierCounts,
): Words {
  let counter = counted;
  if (!counter?.complete) {
    counter = new IdentifierCounts(text);
    const count = (start: number, end: number) => counter!.count(start, end);
    if (searchedInOneCall(tree)) {
      // One call into the runtime finds them all: much faster than a walk, node by node.
      for (const node of tree.rootNode.descendantsOfType(identifierTypes(tree.language))) {
        count(node.startIndex, node.endIndex);
      }
    } else walkCounting(tree, count);
  }
  const counts = counter.counts;
  for (const symbol of definitions) {
    const name = symbol.name.slice(symbol.name.lastIndexOf(":") + 1);
    const had = counts.get(name);
    if (had === 1) counts.delete(name);
    else if (had !== undefined) counts.set(name, had - 1);
  }
  return { words: [...counts.keys()], counts: [...counts.values()] };
}

/** The same, for a large tree: a cursor walk makes no object per node. */
function walkCounting(tree: Tree, count: (start: number, end: number) => void): void {
  const wanted = new Set(identifierTypes(tree.language));
  const cursor = tree.walk();
  try {
    for (;;) {
      if (wanted.has(cursor.nodeType)) count(cursor.startIndex, cursor.endIndex);
      else if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
      }
    }
  } finally {
    cursor.delete();
  }
}
