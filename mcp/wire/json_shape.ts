/**
 * A cheap look at a JSON text before it is parsed: how deep it nests and how many values it
 * holds, counted without building anything. JSON.parse of one 16 MB line of `[` built 8 million
 * nested arrays (1.3 GB resident, kept after the error was sent), and code that walks a parsed
 * message (schema checks, JSON.stringify) recurses once per level. No MCP message needs either.
 *
 * @example
 * shapeProblem("[".repeat(1000)) // "it nests deeper than 128 levels"
 * shapeProblem('{"jsonrpc":"2.0","id":1,"method":"ping"}') // undefined
 */

/** Levels of arrays and objects a message may nest. */
export const MAX_JSON_DEPTH = 128;
/**
 * Arrays, objects and elements after a comma a message may hold. Each costs tens of bytes once
 * parsed; a request with half a million is no request a client means to send.
 */
export const MAX_JSON_VALUES = 500_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Bounds other than a message's (a file's JSON: a notebook). */
export interface ShapeLimits {
  depth: number;
  values: number;
}

/**
 * Why `text` must not be parsed (too deep, too many values), or undefined. Text that is not JSON
 * passes when its shape is within bounds: JSON.parse then says what is wrong with it.
 */
export function shapeProblem(
  text: string,
  limits: ShapeLimits = { depth: MAX_JSON_DEPTH, values: MAX_JSON_VALUES },
): string | undefined {
  const { depth: maxDepth, values: maxValues } = limits;
  // Text this short cannot nest deeper than the limit nor hold that many values.
  if (text.length <= Math.min(maxDepth, maxValues)) return undefined;
  let depth = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return undefined;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return `it nests deeper than ${maxDepth} levels`;
      if (++values > maxValues) return tooMany(maxValues);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA) {
      if (++values > maxValues) return tooMany(maxValues);
    }
  }
  return undefined;
}

const tooMany = (max: number) =>
  `it holds more than ${max.toLocaleString("en-US")} arrays, objects and elements`;
