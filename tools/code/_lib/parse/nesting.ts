/**
 * How deeply brackets nest in a text, counted up to a limit: tree-sitter's parse of text nested
 * 500,000 levels deep takes hundreds of megabytes, and no real code nests past a few dozen.
 */

/** Deeper than this is refused before parsing. */
export const MAX_NESTING = 1_000;

/** The deepest bracket nesting of `text`, or MAX_NESTING + 1 once it is deeper than that. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    // Compared, not looked up in a set: this runs for every character of every file parsed.
    const c = text.charCodeAt(i);
    if (c === 0x28 || c === 0x5b || c === 0x7b) { // ( [ {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > MAX_NESTING) return deepest;
      }
    } else if ((c === 0x29 || c === 0x5d || c === 0x7d) && depth > 0) depth--; // ) ] }
  }
  return deepest;
}
