/**
 * A kept manifest's text checked before it is parsed: the store is in the state directory, which
 * anyone who can write there may fill, and a blob named by its own digest proves only that it
 * was not torn. Parsing builds an object per item, so the items are counted first, in the text.
 */

/**
 * Whether `text` holds at most `maxObjects` JSON objects, nested at most `maxDepth` deep
 * (objects and arrays), counting only brackets outside strings. Cheap: one pass, no allocation.
 *
 * @example
 * objectsWithin('{"items":[{"p":"a{"}]}', 2, 3); // true: the brace in the string is not counted
 */
export function objectsWithin(text: string, maxObjects: number, maxDepth: number): boolean {
  let objects = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (c === 123 && ++objects > maxObjects) return false;
      if (++depth > maxDepth) return false;
    } else if (c === 125 || c === 93) depth--;
  }
  return true;
}

/** Whether `p` is a manifest item's path: "" (the top) or names joined by "/", none "." or "..". */
export function isItemPath(p: unknown): p is string {
  if (typeof p !== "string" || p.length > 4096) return false;
  if (p === "") return true;
  return p.split("/").every((name) => name !== "" && name !== "." && name !== "..");
}
