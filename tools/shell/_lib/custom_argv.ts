/**
 * Custom tools' argv templates: a slot's literal text and `{name}` placeholders, and the argv a
 * call's arguments make of them, each value within its own slot (see custom_tools.ts).
 */
import { ToolError } from "../../../mcp/tool/mod.ts";

/** A piece of a template slot: literal text, or the argument of that name. */
type Piece = string | { name: string };

export interface Slot {
  pieces: Piece[];
  /** Set when the slot is exactly `{name}`: it may expand to several entries, or to none. */
  whole?: string;
}

/** Splits a template slot into literal text and placeholders. */
export function parseSlot(text: string, fail: (problem: string) => never): Slot {
  const pieces: Piece[] = [];
  let literal = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if ((char === "{" || char === "}") && text[i + 1] === char) {
      literal += char;
      i++;
    } else if (char === "}") {
      fail("a lone } (write }} for a literal brace)");
    } else if (char === "{") {
      const end = text.indexOf("}", i + 1);
      const name = end < 0 ? "" : text.slice(i + 1, end);
      if (end < 0 || name === "" || name.includes("{")) {
        fail("a { that does not start a {placeholder} (write {{ for a literal brace)");
      }
      if (literal) pieces.push(literal);
      literal = "";
      pieces.push({ name });
      i = end;
    } else {
      literal += char;
    }
  }
  if (literal || pieces.length === 0) pieces.push(literal);
  const only = pieces.length === 1 ? pieces[0] : undefined;
  return { pieces, whole: typeof only === "object" ? only.name : undefined };
}

/** The slot's text with `{{`/`}}` unescaped; undefined when it holds a placeholder. */
export function unescape(text: string): string | undefined {
  let slot: Slot;
  try {
    slot = parseSlot(text, (problem) => {
      throw new Error(problem);
    });
  } catch {
    return undefined;
  }
  return slot.pieces.every((piece) => typeof piece === "string") ? slot.pieces.join("") : undefined;
}

export function withDefaults(
  args: Record<string, unknown>,
  properties: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  let values = args;
  for (const [name, schema] of Object.entries(properties)) {
    const given = own(args, name) !== undefined;
    if (!given && schema && typeof schema === "object" && "default" in schema) {
      if (values === args) values = { ...args };
      values[name] = schema.default;
    }
  }
  return values;
}

/** An argument's value; never something inherited ("constructor", "toString"). */
function own(values: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

/** The argv entries after the program, from the template and the call's arguments. */
export function expandSlots(slots: Slot[], values: Record<string, unknown>): string[] {
  const argv: string[] = [];
  for (const slot of slots) {
    if (slot.whole !== undefined) {
      const value = own(values, slot.whole);
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) {
        for (const item of value) argv.push(checkText(slot.whole, asText(item)));
      } else {
        argv.push(checkText(slot.whole, asText(value)));
      }
      continue;
    }
    let text = "";
    let absent = false;
    for (const piece of slot.pieces) {
      if (typeof piece === "string") {
        text += piece;
        continue;
      }
      const value = own(values, piece.name);
      if (value === undefined || value === null) {
        absent = true;
        break;
      }
      if (Array.isArray(value)) {
        throw new ToolError(
          `${piece.name} must not be a list here: it is part of a longer argument; pass a single value`,
        );
      }
      text += checkText(piece.name, asText(value));
    }
    if (!absent) argv.push(text);
  }
  return argv;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** No program can receive a NUL character in an argument: say so rather than fail to spawn. */
function checkText(name: string, text: string): string {
  if (text.includes("\0")) {
    throw new ToolError(
      `${name} contains a NUL character (\\u0000), which cannot be passed to a program; remove it`,
    );
  }
  return text;
}

/** A template slot as the description shows it: plain when it reads unambiguously. */
export function showSlot(slot: string): string {
  return /^[\w@%+=:,./{}~-]+$/.test(slot) ? slot : JSON.stringify(slot);
}
