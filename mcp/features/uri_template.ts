/**
 * The part of RFC 6570 URI templates that resource templates need: `{name}` (simple expansion,
 * one path segment) and `{+name}` (reserved expansion, which may span slashes). Matching turns
 * a concrete URI back into its variables; expanding builds a URI from them.
 */

interface Literal {
  literal: string;
}
interface Variable {
  name: string;
  /** `{+name}`: reserved characters such as `/` stay as they are. */
  reserved: boolean;
}
type Part = Literal | Variable;

export class UriTemplate {
  readonly variables: string[];
  readonly #parts: Part[];
  readonly #pattern: RegExp;

  constructor(readonly template: string) {
    this.#parts = parse(template);
    this.variables = this.#parts.filter((p): p is Variable => "name" in p).map((p) => p.name);
    if (new Set(this.variables).size !== this.variables.length) {
      throw new Error(`URI template ${template} names a variable twice`);
    }
    const source = this.#parts.map((part) =>
      "literal" in part
        ? escapeRegExp(part.literal)
        // A simple variable is one segment; a reserved one stops only at a query or fragment.
        : part.reserved
        ? "([^?#]+)"
        : "([^/?#]+)"
    ).join("");
    this.#pattern = new RegExp(`^${source}$`);
  }

  /** The variables of `uri` (percent-decoded), or null when it does not fit the template. */
  match(uri: string): Record<string, string> | null {
    const found = this.#pattern.exec(uri);
    if (!found) return null;
    const values: Record<string, string> = {};
    for (let i = 0; i < this.variables.length; i++) {
      try {
        values[this.variables[i]] = decodeURIComponent(found[i + 1]);
      } catch {
        return null; // a malformed percent escape names nothing we serve
      }
    }
    return values;
  }

  /** The URI for `values`, each encoded as its kind of expansion requires. */
  expand(values: Record<string, string>): string {
    return this.#parts.map((part) => {
      if ("literal" in part) return part.literal;
      const value = values[part.name] ?? "";
      return part.reserved ? encodeReserved(value) : encodeURIComponent(value);
    }).join("");
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  const expression = /\{([^{}]*)\}/g;
  let at = 0;
  for (const found of template.matchAll(expression)) {
    if (found.index > at) parts.push({ literal: template.slice(at, found.index) });
    const body = found[1];
    const reserved = body.startsWith("+");
    const name = reserved ? body.slice(1) : body;
    if (!/^[A-Za-z0-9_]+$/.test(name)) {
      throw new Error(
        `URI template ${template}: {${body}} is not supported (only {name} and {+name})`,
      );
    }
    parts.push({ name, reserved });
    at = found.index + found[0].length;
  }
  if (at < template.length) parts.push({ literal: template.slice(at) });
  if (parts.some((p) => "literal" in p && /[{}]/.test(p.literal))) {
    throw new Error(`URI template ${template} has an unbalanced brace`);
  }
  return parts;
}

/**
 * Reserved expansion: `/` and the other reserved characters pass. Unlike RFC 6570, a `%` is
 * escaped too, so that match() gives back exactly the value expanded (a file may be named
 * `50%25.txt`); `?` and `#` are escaped because they would end the path.
 */
function encodeReserved(value: string): string {
  return encodeURI(value).replace(/[?#]/g, (c) => (c === "#" ? "%23" : "%3F"));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
