/**
 * Matching a symbol's name path (`Class/method`) against what a caller asks for: "method",
 * "Class/method" (the last segments), "/Class/method" (from the file's top), or with
 * `substring` a part of the last segment, in any case.
 */
export interface NamePattern {
  segments: string[];
  anchored: boolean;
  substring: boolean;
}

export function namePattern(text: string, substring: boolean): NamePattern {
  const anchored = text.startsWith("/");
  const segments = text.split("/").filter((segment) => segment !== "");
  return {
    segments: substring ? [...segments.slice(0, -1), segments.at(-1)!.toLowerCase()] : segments,
    anchored,
    substring,
  };
}

export function matchesName(namePath: string, pattern: NamePattern): boolean {
  const parts = namePath.split("/");
  const wanted = pattern.segments;
  if (wanted.length > parts.length) return false;
  if (pattern.anchored && wanted.length !== parts.length) return false;
  const offset = parts.length - wanted.length;
  for (let i = 0; i < wanted.length; i++) {
    const part = parts[offset + i];
    const last = i === wanted.length - 1;
    if (last && pattern.substring) {
      if (!part.toLowerCase().includes(wanted[i])) return false;
    } else if (part !== wanted[i]) return false;
  }
  return true;
}

/** What pickSymbol needs of a definition (CodeSymbol has it). */
export interface Named {
  name: string;
  kind: string;
  namePath: string;
  line: number;
  endLine: number;
  start: number;
}

/** Why no single definition was picked: a sentence listing what there is. */
export class NotPicked extends Error {}

/**
 * The one definition `namePath` (and `line`, when given) names among `symbols`, as `symbols`
 * reads name paths: `method`, `Class/method` (its last segments), `/Class/method` (from the
 * top). A type and its Rust `impl` of the same name count as one: the type is picked. Throws
 * NotPicked listing the choices.
 *
 * @example
 * pickSymbol(outline.symbols, "/Shop/price", undefined, "m.py"); // the method, not a nested one
 */
export function pickSymbol<S extends Named>(
  symbols: S[],
  namePath: string,
  line: number | undefined,
  shown: string,
  shownName: (name: string) => string = (name) => name,
): S {
  const pattern = namePattern(namePath, false);
  let found = symbols.filter((s) => matchesName(s.namePath, pattern));
  if (line !== undefined) found = found.filter((s) => s.line <= line && line <= s.endLine);
  if (found.length > 1 && line === undefined) {
    const types = found.filter((s) => s.kind !== "impl");
    if (types.length === 1 && found.every((s) => s.namePath === types[0].namePath)) {
      found = types;
    }
  }
  if (found.length === 1) return found[0];
  if (found.length === 0) {
    const last = pattern.segments.at(-1)?.toLowerCase() ?? "";
    const close = symbols.filter((s) => s.name.toLowerCase().includes(last)).slice(0, 10);
    const listing = (close.length ? close : symbols.slice(0, 10))
      .map((s) => `${s.line} ${s.kind} ${shownName(s.namePath)}`).join("\n");
    throw new NotPicked(
      `no definition ${JSON.stringify(namePath)}${
        line === undefined ? "" : ` at line ${line}`
      } in ${shown}${listing ? `; ${close.length ? "similar" : "some"} there:\n${listing}` : ""}`,
    );
  }
  // Nested matches: the innermost around `line` is meant.
  if (line !== undefined) return found.reduce((a, b) => (b.start >= a.start ? b : a));
  throw new NotPicked(
    `${found.length} definitions match ${
      JSON.stringify(namePath)
    } in ${shown}; give a longer name path or \`line\`:\n${
      found.slice(0, 10).map((s) => `${s.line} ${s.kind} ${shownName(s.namePath)}`).join("\n")
    }`,
  );
}
