/**
 * Patterns the built-in search refuses because JavaScript's backtracking engine can take
 * exponential time on them: a repeated group whose body can match the same text in more than one
 * way, as in `(a+)+b` or `(a|a)*b`. Nothing can interrupt a running RegExp (under Deno it blocks
 * the whole server; Bun's engine gives up silently and reports no match), so the check is made
 * before searching. It is syntactic and conservative: a group repeated by `*`, `+` or `{n,...}`
 * (n or the upper bound over 1) may hold no quantifier, and may hold `|` only between plain
 * literal alternatives that start with different characters. rg's engine runs in linear time and
 * needs no such rule.
 */

interface Group {
  /** The body has a quantifier (at any depth). */
  quantified: boolean;
  /** The body has `|` (at any depth). */
  alternation: boolean;
  /** The alternatives' literal texts so far; null once one of them is not a plain literal. */
  literals: string[] | null;
  /** The alternative being read, while it is a plain literal. */
  current: string | null;
}

const newGroup = (): Group => ({
  quantified: false,
  alternation: false,
  literals: [],
  current: "",
});

/** The quantifier at `at` ("" when there is none) and whether it repeats (can match twice). */
function quantifierAt(pattern: string, at: number): { text: string; repeats: boolean } {
  const c = pattern[at];
  const lazy = pattern[at + 1] === "?" ? "?" : "";
  if (c === "*" || c === "+") return { text: c + lazy, repeats: true };
  if (c === "?") return { text: c + lazy, repeats: false };
  const braced = /^\{(\d+)(,(\d*))?\}\??/.exec(pattern.slice(at));
  if (!braced) return { text: "", repeats: false };
  const [, low, comma, high] = braced;
  const most = comma === undefined ? Number(low) : high === "" ? Infinity : Number(high);
  return { text: braced[0], repeats: most > 1 };
}

/** Whether the group's `|` alternatives can never both match at one position. */
function distinctLiterals(group: Group, caseInsensitive: boolean): boolean {
  const literals = group.literals;
  if (!literals || literals.some((text) => text === "")) return false;
  // Upper then lower case folds the odd ones too (ſ and s, K and the Kelvin sign K).
  const fold = (c: string) => caseInsensitive ? c.toUpperCase().toLowerCase() : c;
  const firsts = literals.map((text) => fold(String.fromCodePoint(text.codePointAt(0)!)));
  return new Set(firsts).size === firsts.length;
}

/** Why the built-in search would refuse `pattern` (a valid JavaScript pattern), if it would. */
export function backtrackingRisk(pattern: string, caseInsensitive: boolean): string | undefined {
  const stack: Group[] = [newGroup()];
  const top = () => stack[stack.length - 1];
  /** An atom that is not a plain literal character was read. */
  const nonLiteral = () => (top().current = null);
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let atomEnd = i;
    let closed: Group | undefined;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      const token =
        /^\\([pP]\{[^}]*\}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|c[A-Za-z]|[\s\S])/
          .exec(pattern.slice(i))![0];
      atomEnd = i + token.length - 1;
      if (/[^A-Za-z0-9]/.test(next) && top().current !== null) top().current += next;
      else nonLiteral();
    } else if (c === "[") {
      let j = i + 1;
      for (; j < pattern.length && pattern[j] !== "]"; j++) {
        if (pattern[j] === "\\") j++;
      }
      atomEnd = j;
      nonLiteral();
    } else if (c === "(") {
      stack.push(newGroup());
      const prefix = /^\(\?(:|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(pattern.slice(i));
      if (prefix) i += prefix[0].length - 1;
      continue;
    } else if (c === ")") {
      closed = stack.length > 1 ? stack.pop()! : undefined;
      if (closed) {
        closed.literals = closed.literals && closed.current !== null
          ? [...closed.literals, closed.current]
          : null;
        top().quantified ||= closed.quantified;
        top().alternation ||= closed.alternation;
      }
      nonLiteral();
    } else if (c === "|") {
      const group = top();
      group.alternation = true;
      group.literals = group.literals && group.current !== null
        ? [...group.literals, group.current]
        : null;
      group.current = "";
      continue;
    } else if (".^$".includes(c)) {
      nonLiteral();
    } else if (top().current !== null) {
      top().current += c;
    }
    const quantifier = quantifierAt(pattern, atomEnd + 1);
    if (quantifier.text === "") {
      i = atomEnd;
      continue;
    }
    top().quantified = true;
    nonLiteral();
    if (closed && quantifier.repeats) {
      if (closed.quantified) {
        return "repeats a group that itself holds a quantifier";
      }
      if (closed.alternation && !distinctLiterals(closed, caseInsensitive)) {
        return "repeats a group whose alternatives (|) could match the same text";
      }
    }
    i = atomEnd + quantifier.text.length;
  }
  return undefined;
}
