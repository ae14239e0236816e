/** How many syntax errors a tree holds and where the first one is. */
import type { Node } from "web-tree-sitter";
import type { SyntaxPlace } from "./types.ts";

/** Nodes looked at, at most: a file that is nothing but errors is counted in part. */
const MAX_VISITED = 100_000;

/**
 * Counts ERROR and missing nodes, descending only where tree-sitter says errors are (the count
 * stops growing after MAX_VISITED nodes, children looked at included: enough to tell an edit
 * that adds errors).
 */
export function syntaxErrors(root: Node): { errors: number; firstError?: SyntaxPlace } {
  if (!root.hasError) return { errors: 0 };
  let errors = 0;
  let firstError: SyntaxPlace | undefined;
  const stack: Node[] = [root];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_VISITED) {
    const node = stack.pop()!;
    if (node.isError || node.isMissing) {
      errors++;
      if (!firstError) {
        firstError = { line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
      }
      if (node.isMissing) continue;
    }
    // Children through a cursor, counted: a node may have hundreds of thousands of them.
    const found: Node[] = [];
    const cursor = node.walk();
    try {
      for (let more = cursor.gotoFirstChild(); more && visited < MAX_VISITED; visited++) {
        const child = cursor.currentNode;
        if (child.hasError || child.isMissing) found.push(child);
        more = cursor.gotoNextSibling();
      }
    } finally {
      cursor.delete();
    }
    for (let i = found.length - 1; i >= 0; i--) stack.push(found[i]);
  }
  return { errors, firstError };
}
