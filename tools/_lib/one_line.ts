/** Free text (a description, a message) squeezed onto one bounded line of a listing. */
export function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}

/**
 * A value the caller gave, quoted for a message about it: cut, with its length, when long, so an
 * absurd value cannot make the message as large as itself. One implementation for mcp/ and tools/.
 */
export { quoted } from "../../config/quote.ts";
