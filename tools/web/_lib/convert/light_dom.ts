/**
 * A light DOM for converting big pages (main_content.ts): the tree linkedom would build from the
 * same markup — the same htmlparser2 events with the same options, the same quirks (a `class`
 * attribute's tokens joined by single spaces, `getAttribute("class")` "" when there is none,
 * attribute names matched as written) — as plain objects with sibling links. linkedom gives every
 * node an event target (a WeakMap entry and a Map) and keeps attributes in the child list, which
 * made parsing and every walk over a 1 MiB page two to three times slower.
 *
 * It offers only what the conversion to markdown or text reads, and the few selectors
 * main_content.ts uses (a tag, `[name]`, `[name=value]`, and lists of them). Readability and the
 * "html" format, which need a full DOM and linkedom's serialization, keep linkedom.
 */
import { Parser } from "htmlparser2";
import { DOCUMENT_NODE, ELEMENT_NODE, TEXT_NODE } from "../html_markdown/dom_tree.ts";
import { LIGHT_MAX_NODES, TooManyNodes } from "./node_budget.ts";

const COMMENT_NODE = 8;

/** linkedom's tag name in lower case: its nodeName (the name upper-cased), lower-cased. */
const TAGS = new Map<string, string>();

function tagFor(localName: string): string {
  let tag = TAGS.get(localName);
  if (tag === undefined) {
    tag = localName.toUpperCase().toLowerCase();
    if (TAGS.size < 10_000) TAGS.set(localName, tag);
  }
  return tag;
}

/** What linkedom stores of a `class` attribute: its tokens, once each, joined by a space. */
function classTokens(value: string): string {
  // Most classes are one name: nothing to split.
  if (!/\s/.test(value)) return value;
  return [...new Set(value.split(/\s+/).filter(Boolean))].join(" ");
}

abstract class LightNode {
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;
  parentNode: LightParent | null = null;
  previousSibling: LightNode | null = null;
  nextSibling: LightNode | null = null;

  constructor(readonly ownerDocument: LightDocument | null) {}

  abstract get textContent(): string | null;

  remove(): void {
    const parent = this.parentNode;
    if (!parent) return;
    if (this.previousSibling) this.previousSibling.nextSibling = this.nextSibling;
    else parent.firstChild = this.nextSibling;
    if (this.nextSibling) this.nextSibling.previousSibling = this.previousSibling;
    else parent.lastChild = this.previousSibling;
    this.parentNode = this.previousSibling = this.nextSibling = null;
  }
}

export class LightText extends LightNode {
  readonly nodeType = TEXT_NODE;
  readonly nodeName = "#text";
  constructor(ownerDocument: LightDocument, readonly data: string) {
    super(ownerDocument);
  }
  get textContent(): string {
    return this.data;
  }
}

export class LightComment extends LightNode {
  readonly nodeType = COMMENT_NODE;
  readonly nodeName = "#comment";
  constructor(ownerDocument: LightDocument, readonly data: string) {
    super(ownerDocument);
  }
  get textContent(): string {
    return this.data;
  }
}

type Match = (element: LightElement) => boolean;

interface Compound {
  tag?: string;
  /** Attribute names, and the value each must have (undefined: any). */
  names: string[];
  values: (string | undefined)[];
}

const SELECTOR_PART = /^([a-z][a-z0-9-]*)?((?:\[[a-z-]+(?:="?[^"\]]*"?)?\])*)$/;
const ATTRIBUTE_TEST = /\[([a-z-]+)(?:="?([^"\]]*)"?)?\]/g;
const COMPILED = new Map<string, Match>();

/** A selector list of `tag`, `[name]`, `[name=value]` and `tag[...]`; anything else throws. */
function compiled(selectors: string): Match {
  let match = COMPILED.get(selectors);
  if (match) return match;
  const compounds = selectors.split(",").map((selector): Compound => {
    const parts = SELECTOR_PART.exec(selector.trim());
    if (!parts || !selector.trim()) throw new Error(`unsupported selector: ${selectors}`);
    const tests = [...(parts[2] ?? "").matchAll(ATTRIBUTE_TEST)];
    return {
      tag: parts[1],
      names: tests.map(([, name]) => name),
      values: tests.map(([, , value]) => value),
    };
  });
  // `[name]` alternatives are one lookup of each of the element's own (few) attribute names.
  const bare = (compound: Compound) =>
    compound.tag === undefined && compound.names.length === 1 && compound.values[0] === undefined;
  const anyOf = new Set(compounds.filter(bare).map((compound) => compound.names[0]));
  const others = compounds.filter((compound) => !bare(compound));
  match = (element) => {
    if (anyOf.size > 0 && element.hasAnyAttribute(anyOf)) return true;
    for (let i = 0; i < others.length; i++) if (matches(element, others[i])) return true;
    return false;
  };
  COMPILED.set(selectors, match);
  return match;
}

function matches(element: LightElement, { tag, names, values }: Compound): boolean {
  // css-select's name test (through linkedom): the local name lower-cased.
  if (tag !== undefined && element.localName.toLowerCase() !== tag) return false;
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    if (
      value === undefined
        ? !element.hasAttribute(names[i])
        : element.getAttribute(names[i]) !== value
    ) {
      return false;
    }
  }
  return true;
}

abstract class LightParent extends LightNode {
  firstChild: LightNode | null = null;
  lastChild: LightNode | null = null;

  get childNodes(): LightNode[] {
    const children: LightNode[] = [];
    for (let child = this.firstChild; child; child = child.nextSibling) children.push(child);
    return children;
  }

  get firstElementChild(): LightElement | null {
    return nextElement(this.firstChild);
  }

  append(node: LightNode): void {
    node.parentNode = this;
    node.previousSibling = this.lastChild;
    if (this.lastChild) this.lastChild.nextSibling = node;
    else this.firstChild = node;
    this.lastChild = node;
  }

  /** The descendant elements that `selectors` match, in document order. */
  querySelectorAll(selectors: string): LightElement[] {
    const found: LightElement[] = [];
    this.#eachElement(compiled(selectors), (element) => {
      found.push(element);
      return true;
    });
    return found;
  }

  querySelector(selectors: string): LightElement | null {
    let found: LightElement | null = null;
    this.#eachElement(compiled(selectors), (element) => {
      found = element;
      return false;
    });
    return found;
  }

  /**
   * Calls `found` for each matching descendant element in document order, while it says so;
   * like linkedom's, outside the contents of `<template>`s.
   */
  #eachElement(match: Match, found: (element: LightElement) => boolean): void {
    let node = this.firstChild;
    while (node) {
      if (node instanceof LightElement) {
        if (match(node) && !found(node)) return;
        // linkedom's queries never look inside a <template>.
        if (node.firstChild && node.localName !== "template") {
          node = node.firstChild;
          continue;
        }
      }
      while (node && !node.nextSibling) {
        node = node.parentNode === this ? null : node.parentNode;
      }
      node = node?.nextSibling ?? null;
    }
  }
}

function nextElement(node: LightNode | null): LightElement | null {
  while (node && !(node instanceof LightElement)) node = node.nextSibling;
  return node;
}

export class LightElement extends LightParent {
  readonly nodeType = ELEMENT_NODE;
  /** The tag name in lower case, as dom_tree.ts tagOf gives it. */
  readonly tag: string;

  /** The element's attributes, names as written, in htmlparser2's order. */
  readonly #names: string[];
  readonly #values: string[];

  constructor(
    ownerDocument: LightDocument,
    readonly localName: string,
    attributes: Record<string, string>,
  ) {
    super(ownerDocument);
    this.tag = tagFor(localName);
    this.#names = Object.keys(attributes);
    this.#values = this.#names.map((name) =>
      name === "class" ? classTokens(attributes[name]) : attributes[name]
    );
  }

  get nodeName(): string {
    return this.localName.toUpperCase();
  }

  get nextElementSibling(): LightElement | null {
    return nextElement(this.nextSibling);
  }

  getAttribute(name: string): string | null {
    const at = this.#names.indexOf(name);
    if (at >= 0) return this.#values[at];
    return name === "class" ? "" : null;
  }

  hasAttribute(name: string): boolean {
    return this.#names.includes(name);
  }

  /** Whether the element has an attribute of one of these names. */
  hasAnyAttribute(names: ReadonlySet<string>): boolean {
    for (let i = 0; i < this.#names.length; i++) if (names.has(this.#names[i])) return true;
    return false;
  }

  setAttribute(name: string, value: string): void {
    const stored = name === "class" ? classTokens(value) : value;
    const at = this.#names.indexOf(name);
    if (at >= 0) this.#values[at] = stored;
    else {
      this.#names.push(name);
      this.#values.push(stored);
    }
  }

  closest(selectors: string): LightElement | null {
    const match = compiled(selectors);
    if (match(this)) return this;
    for (let node = this.parentNode; node; node = node.parentNode) {
      if (node instanceof LightElement && match(node)) return node;
    }
    return null;
  }

  /** The text of every text node inside, in order (comments left out). */
  get textContent(): string {
    let text = "";
    let node = this.firstChild;
    while (node) {
      if (node instanceof LightText) text += node.data;
      else if (node instanceof LightElement && node.firstChild) {
        node = node.firstChild;
        continue;
      }
      while (node && !node.nextSibling) node = node.parentNode === this ? null : node.parentNode;
      node = node?.nextSibling ?? null;
    }
    return text;
  }
}

export class LightDocument extends LightParent {
  readonly nodeType = DOCUMENT_NODE;
  readonly nodeName = "#document";
  /** How many nodes the parser made. */
  nodeCount = 0;
  /** And attributes: linkedom's tree holds an object for each (node_budget.ts). */
  attributeCount = 0;

  constructor() {
    super(null);
  }

  get documentElement(): LightElement | null {
    return this.firstElementChild;
  }

  get childElementCount(): number {
    let count = 0;
    for (let child = this.firstElementChild; child; child = child.nextElementSibling) count++;
    return count;
  }

  get textContent(): null {
    return null;
  }
}

/**
 * The markup as linkedom's parseHTML would build it (linkedom/esm/shared/parse-from-string.js).
 * Throws TooManyNodes (node_budget.ts) as soon as the tree would hold more than `maxNodes`.
 */
export function parseLight(html: string, maxNodes = LIGHT_MAX_NODES): LightDocument {
  const document = new LightDocument();
  let node: LightParent = document;
  let nodes = 0;
  let attributes = 0;
  const add = (child: LightNode) => {
    if (++nodes > maxNodes) throw new TooManyNodes(maxNodes);
    node.append(child);
  };
  const parser = new Parser({
    onopentag(name, attributes) {
      const element = new LightElement(document, name, attributes);
      add(element);
      node = element;
    },
    onattribute() {
      attributes++;
    },
    oncomment(data) {
      add(new LightComment(document, data));
    },
    ontext(text) {
      add(new LightText(document, text));
    },
    onclosetag() {
      node = node.parentNode ?? document;
    },
  }, { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false });
  parser.write(html);
  parser.end();
  document.nodeCount = nodes;
  document.attributeCount = attributes;
  return document;
}
