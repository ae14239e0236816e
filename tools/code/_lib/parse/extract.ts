/**
 * The symbols of one parsed file: a walk of its syntax tree, iterative so that deeply nested
 * code cannot exhaust the stack. Inside a function only local definitions count (a nested
 * function, a const arrow function, a class): they are marked `local`.
 */
import type { Node, Tree } from "web-tree-sitter";
import { type LanguageId, RULES } from "../languages/mod.ts";
import type { CodeSymbol } from "./types.ts";
import { type IdentifierCounts, identifierTypes, searchedInOneCall } from "./identifiers.ts";
import {
  bodyOf,
  type Described,
  firstLine,
  FUNCTION_VALUES,
  headOf,
  leading,
  made,
  outerOf,
} from "./definition_span.ts";

/** At most this many symbols of one file (a generated file can define 100,000 things). */
export const MAX_SYMBOLS_PER_FILE = 5_000;

/** The definitions that count inside a function's body. */
const LOCAL_NODES = new Set([
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "abstract_class_declaration",
  "variable_declarator",
  "method_definition",
  "public_field_definition",
  "field_definition",
  "function_definition",
  "class_definition",
  "function_item",
  "struct_item",
  "enum_item",
  "impl_item",
]);

/** Kinds whose members are not methods of theirs: a nested def in them is a function. */
const NOT_CLASSES = new Set(["namespace", "module", "function", "method"]);

/** Members that count inside a function only as a local class's (not an object literal's). */
const MEMBER_NODES = new Set(["method_definition", "public_field_definition", "field_definition"]);

/** Whether what is inside `symbol` is local to a function. */
function localScope(symbol: CodeSymbol | undefined): boolean {
  return symbol !== undefined &&
    (symbol.local === true || symbol.kind === "function" || symbol.kind === "method");
}

const ruleTypes = new Map<LanguageId, string[]>();
/** Per language: the rules' node types and the identifier leaves' (numbers), searched at once. */
const searched = new Map<LanguageId, { types: string[]; identifiers: Set<number> }>();

/**
 * The symbols of `tree`, in the order they appear, parents before their members. The nodes that
 * may be definitions are found in one call into the runtime (a walk node by node from
 * JavaScript took a third of the parse worker's time); a large tree is walked with a cursor
 * instead, which makes a node object only where a definition may be, so that a file of a million
 * expressions costs no memory beyond tree-sitter's own. Given `identifiers`, the same search
 * counts the identifiers the file uses into it (and marks it complete); a walked tree leaves
 * them to identifiers.ts.
 */
export function extractSymbols(
  tree: Tree,
  lang: LanguageId,
  text: string,
  identifiers?: IdentifierCounts,
): CodeSymbol[] {
  const symbols: CodeSymbol[] = [];
  if (searchedInOneCall(tree)) {
    searchCandidates(tree, lang, text, symbols, identifiers);
  } else walkCandidates(tree, lang, text, symbols);
  return symbols;
}

/**
 * What a node whose type has a rule is: the symbol it adds (its index, or `owner` when it adds
 * none) and whether what is inside it is looked at; undefined once the file has its most symbols.
 */
function visit(
  type: string,
  node: () => Node,
  owner: number,
  lang: LanguageId,
  text: string,
  symbols: CodeSymbol[],
): { here: number; enter: boolean } | undefined {
  const rule = RULES[lang][type];
  const parent = owner >= 0 ? symbols[owner] : undefined;
  const local = localScope(parent);
  const counts = !local ||
    (LOCAL_NODES.has(type) && (!MEMBER_NODES.has(type) || parent?.kind === "class"));
  if (!rule || !counts) return { here: owner, enter: true };
  const at = node();
  const found = describe(at, lang, rule.kind, parent, local, text);
  if (!found) {
    return { here: owner, enter: type !== "variable_declarator" && type !== "field_declaration" };
  }
  const symbol = made(at, found, parent, text);
  if (local) symbol.local = true;
  symbols.push(symbol);
  if (symbols.length >= MAX_SYMBOLS_PER_FILE) return undefined;
  // A function's body may hold local definitions; a container's members are symbols.
  const enter = rule.container === true || found.kind === "function" || found.kind === "method";
  return { here: symbols.length - 1, enter };
}

/**
 * The nodes whose type has a rule, in the order a walk meets them, each with the symbol it is
 * inside: an open definition contains the next node when that starts and ends within it.
 */
function searchCandidates(
  tree: Tree,
  lang: LanguageId,
  text: string,
  symbols: CodeSymbol[],
  identifiers?: IdentifierCounts,
) {
  let types = ruleTypes.get(lang);
  if (!types) ruleTypes.set(lang, types = Object.keys(RULES[lang]));
  let isIdentifier: Set<number> | undefined;
  if (identifiers) {
    let both = searched.get(lang);
    if (!both) {
      const leaves = identifierTypes(tree.language);
      const numbers = tree.language.types.flatMap((type, id) => leaves.includes(type) ? [id] : []);
      both = { types: [...types, ...leaves], identifiers: new Set(numbers) };
      searched.set(lang, both);
    }
    types = both.types;
    isIdentifier = both.identifiers;
  }
  /** The nodes met that are still open and matter: a symbol, or a node not entered. */
  const open: { start: number; end: number; here: number; enter: boolean }[] = [];
  /** Set once the file has its most symbols: only identifiers are counted after. */
  let full = false;
  for (const node of tree.rootNode.descendantsOfType(types)) {
    if (!node) continue;
    if (isIdentifier?.has(node.typeId)) {
      identifiers!.count(node.startIndex, node.endIndex);
      continue;
    }
    if (full) continue;
    const start = node.startIndex;
    const end = node.endIndex;
    // Met in document order, parents first: an open node holds this one when it ends within it
    // and starts before its end (or where it starts: a child as long as its parent).
    while (open.length > 0) {
      const last = open[open.length - 1];
      if (end <= last.end && (start < last.end || start === last.start)) break;
      open.pop();
    }
    const top = open[open.length - 1];
    if (top && !top.enter) continue;
    const owner = top?.here ?? -1;
    const visited = visit(node.type, () => node, owner, lang, text, symbols);
    if (!visited) {
      if (!identifiers) return;
      full = true;
      continue;
    }
    if (visited.here !== owner || !visited.enter) open.push({ start, end, ...visited });
  }
  if (identifiers) identifiers.complete = true;
}

/** The same, for a large tree: a cursor walk, a node object made only where a rule says. */
function walkCandidates(tree: Tree, lang: LanguageId, text: string, symbols: CodeSymbol[]) {
  const rules = RULES[lang];
  const cursor = tree.walk();
  /** The symbol each open level belongs to (-1: none). */
  const owners: number[] = [-1];
  try {
    for (;;) {
      const owner = owners[owners.length - 1];
      const type = cursor.nodeType;
      let here = owner;
      let enter = true;
      if (rules[type]) {
        const visited = visit(type, () => cursor.currentNode, owner, lang, text, symbols);
        if (!visited) return;
        ({ here, enter } = visited);
      }
      if (enter && cursor.gotoFirstChild()) {
        owners.push(here);
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
        owners.pop();
      }
    }
  } finally {
    cursor.delete();
  }
}

/** Its name and kind, or undefined when this node is not a definition after all. */
function describe(
  node: Node,
  lang: LanguageId,
  kind: string,
  parent: CodeSymbol | undefined,
  local: boolean,
  text: string,
): Described | undefined {
  const inClass = parent !== undefined && !NOT_CLASSES.has(parent.kind);
  switch (node.type) {
    case "variable_declarator": {
      const name = node.childForFieldName("name");
      if (name?.type !== "identifier") return undefined;
      const holder = node.parent;
      const top = holder?.parent;
      const atTop = top?.type === "program" ||
        (top?.type === "export_statement" && top.parent?.type === "program");
      const value = node.childForFieldName("value");
      const at = name.startIndex;
      if (value && FUNCTION_VALUES.has(value.type)) {
        return atTop || local ? { name: name.text, kind: "function", at } : undefined;
      }
      if (value?.type === "class") {
        return atTop || local ? { name: name.text, kind: "class", at } : undefined;
      }
      if (!atTop) return undefined;
      // The declaration's first word, not its text (which may be a megabyte long).
      const constant = holder !== null && text.startsWith("const", holder.startIndex);
      return { name: name.text, kind: constant ? "constant" : "variable", at };
    }
    case "function_definition":
    case "function_item": {
      const nameNode = lang === "c" || lang === "cpp"
        ? declaratorNode(node.childForFieldName("declarator"))
        : node.childForFieldName("name");
      if (!nameNode) return undefined;
      return { name: nameNode.text, kind: inClass ? "method" : "function", at: lastPart(nameNode) };
    }
    case "property_signature":
    case "method_signature":
    case "public_field_definition":
    case "field_definition":
      // A member of an inline type (`(x as { a: string }).a`) is no one's definition.
      return parent ? named(node, kind) : undefined;
    case "function_signature_item":
      return named(node, inClass ? "method" : "function");
    case "field_declaration": {
      const declarator = node.childForFieldName("declarator");
      if (lang === "java") {
        const name = declarator?.childForFieldName("name");
        return name ? { name: name.text, kind, at: name.startIndex } : undefined;
      }
      const name = declaratorNode(declarator);
      if (!name) return undefined;
      const isMethod = declarator?.type === "function_declarator";
      return { name: name.text, kind: isMethod ? "method" : "field", at: lastPart(name) };
    }
    case "type_definition": {
      const name = declaratorNode(node.childForFieldName("declarator"));
      return name ? { name: name.text, kind, at: lastPart(name) } : undefined;
    }
    case "struct_specifier":
    case "union_specifier":
    case "enum_specifier":
    case "class_specifier":
      if (!node.childForFieldName("body")) return undefined;
      return named(node, kind);
    case "method_declaration": {
      if (lang !== "go") return named(node, kind);
      const name = node.childForFieldName("name");
      if (!name) return undefined;
      return { name: name.text, kind, owner: receiverType(node), at: name.startIndex };
    }
    case "type_spec": {
      const type = node.childForFieldName("type")?.type;
      const shown = type === "struct_type"
        ? "struct"
        : type === "interface_type"
        ? "interface"
        : "type";
      return named(node, shown);
    }
    case "impl_item": {
      const type = node.childForFieldName("type");
      if (!type) return undefined;
      // The type's own name: `Point` in `impl<T> Point<T>`, `Display` too in `impl Display for P`.
      const name = withoutGenerics(type.text);
      return { name, kind, at: type.startIndex + Math.max(type.text.lastIndexOf(name), 0) };
    }
    case "const_spec": {
      if (node.parent?.parent?.type !== "source_file") return undefined;
      return named(node, kind);
    }
    default:
      return named(node, kind);
  }
}

function named(node: Node, kind: string): Described | undefined {
  const name = node.childForFieldName("name") ?? node.childForFieldName("property");
  return name ? { name: name.text, kind, at: name.startIndex } : undefined;
}

/** A C/C++ declarator's name node: the identifier at the end of its chain of declarators. */
function declaratorNode(start: Node | null): Node | undefined {
  let node = start;
  for (let depth = 0; node && depth < 64; depth++) {
    switch (node.type) {
      case "identifier":
      case "field_identifier":
      case "type_identifier":
      case "qualified_identifier":
      case "destructor_name":
      case "operator_name":
        return node;
    }
    node = node.childForFieldName("declarator") ??
      node.namedChildren.find((child) => child?.type.endsWith("declarator")) ?? null;
  }
  return undefined;
}

/** Where the last part of a name starts: `f` in `A::f`. */
function lastPart(name: Node): number {
  const cut = name.text.lastIndexOf("::");
  return name.startIndex + (cut < 0 ? 0 : cut + 2);
}

/** A Go method's receiver type, without `*` and type parameters. */
function receiverType(node: Node): string | undefined {
  const receiver = node.childForFieldName("receiver");
  const parameter = receiver?.namedChildren.find((c) => c?.type === "parameter_declaration");
  const type = parameter?.childForFieldName("type")?.text;
  return type ? withoutGenerics(type.replace(/^\*/, "")) : undefined;
}

function withoutGenerics(type: string): string {
  const cut = type.search(/[<[]/);
  return (cut < 0 ? type : type.slice(0, cut)).trim();
}

/**
 * The functions that run once per definition: hot enough for JavaScriptCore's top tier (FTL),
 * whose compile of them, with tree-sitter's node methods inlined, took up to a second each in
 * every worker (the parse worker keeps them from it, parse/worker.ts).
 */
export const PER_DEFINITION = [
  visit,
  searchCandidates,
  walkCandidates,
  describe,
  named,
  made,
  outerOf,
  leading,
  headOf,
  bodyOf,
  firstLine,
] as const;
