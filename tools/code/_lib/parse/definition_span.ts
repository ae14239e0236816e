/**
 * What a found definition spans: the symbol made of it, from the comments and decorations above
 * it (its whole text) through its head (where a replacement starts, decorations kept) and body to
 * its end, with the one line shown as its signature.
 */
import type { Node } from "web-tree-sitter";
import { COMMENTS, DECORATIONS, WRAPPERS } from "../languages/mod.ts";
import type { CodeSymbol } from "./types.ts";

const MAX_SIGNATURE_CHARS = 160;

/** Values that make a variable a function: `const f = () => …`. */
export const FUNCTION_VALUES = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
]);

/** A definition's name and kind; `at`: where its name starts. */
export interface Described {
  name: string;
  kind: string;
  owner?: string;
  at: number;
}

/** More named children than this in a wrapper: a declaration of several names. */
const MAX_WRAPPED_CHILDREN = 32;

/** The outermost node that is still this definition: `export`, decorators, a template. */
export function outerOf(node: Node): Node {
  let outer = node;
  for (let depth = 0; depth < 4; depth++) {
    const parent = outer.parent;
    if (!parent || !WRAPPERS.has(parent.type)) break;
    if (parent.type === "template_declaration") {
      outer = parent;
      continue;
    }
    // A declaration of several names (`const a = 1, b = 2`) is no one name's definition. Many
    // children are several names, without listing them (`var a,a,…` has 500,000 of them).
    if (parent.namedChildCount > MAX_WRAPPED_CHILDREN) break;
    const definitions = parent.namedChildren.filter((c) =>
      c && !DECORATIONS.has(c.type) && !COMMENTS.has(c.type)
    );
    if (definitions.length > 1) break;
    outer = parent;
  }
  return outer;
}

/**
 * The comments and decorations directly above `outer` (no blank line between, each on a line
 * of its own): where its whole definition starts, and where its first decoration does.
 */
export function leading(outer: Node, text: string): { start: number; decorations?: number } {
  let start = outer.startIndex;
  let decorations: number | undefined;
  let row = outer.startPosition.row;
  for (let sibling = outer.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    const isComment = COMMENTS.has(sibling.type);
    if (!isComment && !DECORATIONS.has(sibling.type)) break;
    if (sibling.endPosition.row < row - 1) break;
    if (!startsLine(text, sibling.startIndex)) break;
    start = sibling.startIndex;
    if (!isComment) decorations = sibling.startIndex;
    row = sibling.startPosition.row;
  }
  if (decorations === undefined) {
    const first = outer.namedChildren.find((c) => c && DECORATIONS.has(c.type));
    if (first) decorations = first.startIndex;
    else {
      const modifiers = outer.namedChildren.find((c) => c?.type === "modifiers");
      const annotation = modifiers?.namedChildren.find((c) => c && DECORATIONS.has(c.type));
      if (annotation) decorations = annotation.startIndex;
    }
  }
  return { start, decorations };
}

/** Whether only blanks stand between `index` and the start of its line (looked at up to there). */
function startsLine(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 10) return true;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * Where the definition proper starts: after its decorators, annotations and attributes, so that
 * a replacement without any keeps them.
 */
export function headOf(node: Node, inner: Node): Node {
  for (const child of node.children) {
    if (!child || DECORATIONS.has(child.type) || COMMENTS.has(child.type)) continue;
    if (child.type === "modifiers") {
      const kept = child.children.find((m) => m && !DECORATIONS.has(m.type));
      if (kept) return kept;
      continue;
    }
    const holdsInner = child.startIndex <= inner.startIndex && child.endIndex >= inner.endIndex;
    return holdsInner ? headOf(child, inner) : child;
  }
  return node;
}

/** The part a replace_body swaps: inside the braces, or the indented block after the colon. */
export function bodyOf(node: Node): Node | null {
  const value = node.type === "variable_declarator" ? node.childForFieldName("value") : null;
  const holder = value && FUNCTION_VALUES.has(value.type) ? value : node;
  return holder.childForFieldName("body");
}

/**
 * The line from `head`, trimmed, capped at MAX_SIGNATURE_CHARS: looked for no further than that
 * (a one-line file of a megabyte has thousands of definitions on its line).
 */
export function firstLine(text: string, head: number): string {
  const stop = Math.min(text.length, head + MAX_SIGNATURE_CHARS + 1);
  let end = head;
  while (end < stop && text.charCodeAt(end) !== 10) end++;
  const line = text.slice(head, end).trim();
  return line.length > MAX_SIGNATURE_CHARS ? `${line.slice(0, MAX_SIGNATURE_CHARS)}…` : line;
}

export function made(
  node: Node,
  found: Described,
  parent: CodeSymbol | undefined,
  text: string,
): CodeSymbol {
  const outer = outerOf(node);
  const { start, decorations } = leading(outer, text);
  const headNode = headOf(outer, node);
  const head = headNode.startIndex;
  const prefix = parent ? `${parent.namePath}/` : found.owner ? `${found.owner}/` : "";
  const signature = firstLine(text, head);
  const body = bodyOf(node);
  const symbol: CodeSymbol = {
    name: found.name,
    kind: found.kind,
    // C++'s `Class::method` defined outside its class is found as Class/method too.
    namePath: prefix + found.name.replaceAll("::", "/"),
    line: headNode.startPosition.row + 1,
    endLine: outer.endPosition.row + 1,
    start,
    decorations: decorations ?? head,
    head,
    nameAt: found.at,
    end: outer.endIndex,
    signature,
    parent: parent?.namePath,
  };
  if (body) {
    symbol.body = { start: body.startIndex, end: body.endIndex };
    const before = body.previousSibling;
    if (before?.type === ":") {
      symbol.body.colon = before.endIndex;
      // A Python docstring: the body's first statement, a string alone; not an f-string nor
      // bytes, which Python does not take for one.
      const first = body.firstNamedChild;
      const string = first?.firstNamedChild;
      if (
        first?.type === "expression_statement" && first.namedChildCount === 1 &&
        string?.type === "string" && !/[fFbB]/.test(string.firstChild?.text ?? "")
      ) symbol.body.doc = { start: first.startIndex, end: first.endIndex };
    }
  }
  return symbol;
}
