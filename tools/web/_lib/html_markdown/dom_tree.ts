/**
 * The part of a DOM tree the web tools read (linkedom's, or a browser's), and a walk over it
 * without recursion, so a page nested ten thousand levels deep cannot overflow the stack.
 */

/** The part of a DOM node the converter reads. */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly textContent: string | null;
  readonly childNodes?: ArrayLike<DomNode>;
  readonly ownerDocument?: DomNode | null;
  querySelector?(selectors: string): DomElement | null;
}

export interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;
export const DOCUMENT_NODE = 9;
export const DOCUMENT_FRAGMENT_NODE = 11;

/**
 * Visits `root` and its descendants in document order without recursion. `enter` says whether to
 * go into a node's children; `leave` runs after the children of every node entered.
 */
export function walkTree(
  root: DomNode,
  enter: (node: DomNode) => boolean,
  leave: (node: DomNode) => void = () => {},
): void {
  if (root.nodeType !== DOCUMENT_NODE) return walkSubtree(root, enter, leave);
  // linkedom links a doctype to no sibling, so a document's children come from `childNodes`.
  if (!enter(root)) return;
  for (const child of childrenOf(root)) walkSubtree(child, enter, leave);
  leave(root);
}

/** A node's children, listed before the caller changes any of them. */
export function childrenOf(node: DomNode): DomNode[] {
  if (node.childNodes) return Array.from(node.childNodes);
  const children: DomNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) children.push(child);
  return children;
}

function walkSubtree(
  root: DomNode,
  enter: (node: DomNode) => boolean,
  leave: (node: DomNode) => void,
): void {
  let node = root;
  for (;;) {
    if (enter(node)) {
      const child = node.firstChild;
      if (child) {
        node = child;
        continue;
      }
      leave(node);
    }
    for (;;) {
      if (node === root) return;
      const next = node.nextSibling;
      if (next) {
        node = next;
        break;
      }
      const parent = node.parentNode;
      if (!parent) return;
      node = parent;
      leave(node);
    }
  }
}

/**
 * The element's tag name in lower case (elements a script created may be upper case); the light
 * DOM's elements (light_dom.ts) carry it ready.
 */
export function tagOf(node: DomNode): string {
  return (node as { tag?: string }).tag ?? node.nodeName.toLowerCase();
}
