/**
 * Values someone else gave (a client's method name, a tool argument, a file's text), bounded for a
 * message or a log line about them: an absurd value must not make the message as large as itself.
 * Here, in the bottom layer, because mcp/ and tools/ both use it and config/ imports nothing.
 */

/** Characters of a value quoted by default. */
export const QUOTE_CHARS = 100;

const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * A copy of `text` that shares no memory with what it was cut from. In JavaScriptCore a slice
 * keeps its whole source alive: 300 characters kept of a 1 MiB argument (a journal entry waiting
 * to be written) would hold the MiB.
 */
const detached = (text: string): string => JSON.parse(JSON.stringify(text));

/** `text` cut to at most `maxChars` characters, never between the halves of a surrogate pair. */
function cut(text: string, maxChars: number): string {
  const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1] ?? "") ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/**
 * A string quoted as JSON for a message about it: cut, with its length, when long:
 * `"abc…" (8,000,000 characters)`.
 */
export function quoted(value: string, maxChars = QUOTE_CHARS): string {
  if (value.length <= maxChars) return JSON.stringify(value);
  return `${JSON.stringify(`${cut(value, maxChars)}…`)} (${thousands(value.length)} characters)`;
}

/**
 * Any value (an id, a cursor, an argument) as JSON for a message, bounded like quoted(): a string
 * is quoted(), anything else is its JSON cut with its length. Never throws (a cycle, a BigInt).
 */
export function quotedJson(value: unknown, maxChars = QUOTE_CHARS): string {
  if (typeof value === "string") return quoted(value, maxChars);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return String(typeof value);
  if (json.length <= maxChars) return json;
  return detached(`${cut(json, maxChars)}… (${thousands(json.length)} characters of JSON)`);
}

/**
 * Free text that may hold someone else's value (an error message quoting it, a command line for
 * a log), cut to `maxChars` with a marker saying how long it was.
 */
export function bounded(text: string, maxChars = 500): string {
  if (text.length <= maxChars) return text;
  return detached(`${cut(text, maxChars)}… (${thousands(text.length)} characters in all)`);
}
