/**
 * The identifiers a file uses, counted from its syntax tree: names in code only, never words
 * of comments, strings or keywords (`from`, `type`), which would rank the commonest English
 * first. A cursor walk: no node objects made, no recursion.
 */
import type { Tree } from "web-tree-sitter";

/** Tree-sitter's names for identifier leaves (PHP calls them `name`). */
function isIdentifier(type: string): boolean {
  return type.endsWith("identifier") || type === "name";
}

export function identifiersIn(tree: Tree, text: string): Record<string, number> {
  const counts: Record<string, number> = Object.create(null);
  const cursor = tree.walk();
  try {
    for (;;) {
      if (isIdentifier(cursor.nodeType)) {
        const word = text.slice(cursor.startIndex, cursor.endIndex);
        if (word.length >= 2 && word.length <= 100) counts[word] = (counts[word] ?? 0) + 1;
      } else if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return counts;
      }
    }
  } finally {
    cursor.delete();
  }
}
