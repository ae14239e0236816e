/**
 * How many nodes (elements, text runs, comments) a page may grow into before it is not built into
 * a tree at all. A tree costs memory per node whatever the page's size in bytes: 2 MiB of `<br>`
 * is half a million elements, and took 800 MB in linkedom (its tree, the rebuilt copy, Readability's
 * clone). Past its budget a page's text is read as it is parsed (dense_text.ts), in memory that
 * grows only with the text.
 *
 * The budgets are well above ordinary pages: the benchmark's 2 MiB article is 120,000 nodes, and
 * 2 MiB of syntax-highlighted code about 170,000.
 */
import { Parser } from "htmlparser2";

/** Nodes the light tree (light_dom.ts: about 200 bytes a node) may hold: at most about 60 MB. */
export const LIGHT_MAX_NODES = 300_000;

/**
 * Nodes linkedom's tree may hold: about 1.2 kB a node while building, so at most about 200 MB
 * for a page it has to rebuild (parsed twice).
 */
export const DOM_MAX_NODES = 150_000;

/** The page would grow into more than `limit` nodes. */
export class TooManyNodes extends Error {
  constructor(readonly limit: number) {
    super(`The page has more than ${limit} nodes.`);
    this.name = "TooManyNodes";
  }
}

/**
 * At least the number of nodes and attributes htmlparser2 makes of `html`: every node starts at
 * a `<` (a tag, a comment, an element a stray end tag implies) or is a text run, which ends at a
 * `<` or is split at an `&` (a character reference); every attribute takes at least two
 * characters (a separator and its name).
 */
function mostNodes(html: string): number {
  let marks = 0;
  for (let at = html.indexOf("<"); at >= 0; at = html.indexOf("<", at + 1)) marks++;
  for (let at = html.indexOf("&"); at >= 0; at = html.indexOf("&", at + 1)) marks++;
  return 2 * marks + 1 + Math.floor(html.length / 2);
}

/**
 * Throws TooManyNodes when `html` parses into more than `limit` nodes, each attribute counted as
 * one: a tree holds an object per attribute too, and a page of a few thousand elements with
 * hundreds of attributes each took 650 MB in linkedom. Counting parses without building
 * anything, and only pages that could be over the limit are parsed for it.
 */
export function checkNodeBudget(html: string, limit: number): void {
  if (mostNodes(html) <= limit) return;
  let nodes = 0;
  const counted = () => {
    if (++nodes > limit) throw new TooManyNodes(limit);
  };
  const parser = new Parser({
    onopentag: counted,
    onattribute: counted,
    ontext: counted,
    oncomment: counted,
  }, {
    lowerCaseAttributeNames: false,
    decodeEntities: true,
    xmlMode: false,
  });
  parser.write(html);
  parser.end();
}
