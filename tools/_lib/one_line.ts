import { count } from "./units.ts";

/** Free text (a description, a message) squeezed onto one bounded line of a listing. */
export function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}

/**
 * A value the caller gave, quoted for a message about it: cut, with its length, when long, so an
 * absurd value cannot make the message as large as itself.
 */
export function quoted(value: string, maxChars = 100): string {
  if (value.length <= maxChars) return JSON.stringify(value);
  // Never end between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(value[maxChars - 1]) ? maxChars - 1 : maxChars;
  return `${JSON.stringify(`${value.slice(0, end)}…`)} (${count(value.length)} characters)`;
}
