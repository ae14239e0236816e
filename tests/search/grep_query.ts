/** Queries for grep's engines in tests: a directory searched by path, content mode by default. */
import { open } from "node:fs/promises";
import { IgnoreRules } from "../../tools/_lib/walk/gitignore.ts";
import { compilePattern } from "../../tools/search/_lib/grep/pattern.ts";
import type { GrepQuery, SearchedRoots } from "../../tools/search/_lib/grep/query.ts";

/** Roots that hold every path, read by path, shown as they are. */
export const ANY_ROOTS: SearchedRoots = {
  contains: () => true,
  open: (real) => open(real),
  display: (path) => path,
};

/** A query for `pattern` under `dir`; `fields` replace the defaults. */
export function grepQuery(
  dir: string,
  pattern: string,
  fields: Partial<Omit<GrepQuery, "pattern">> = {},
): GrepQuery {
  const multiline = fields.multiline ?? false;
  const caseInsensitive = fields.caseInsensitive ?? false;
  return {
    dir,
    label: dir,
    pattern: compilePattern(pattern, { caseInsensitive, multiline }),
    multiline,
    caseInsensitive,
    mode: "content",
    before: 0,
    after: 0,
    rulesAbove: IgnoreRules.empty(),
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
    roots: ANY_ROOTS,
    // The engines' own tests; grep's sandbox is tested through the binary (tests/e2e).
    confinement: { unconfined: "a unit test of grep's engines" },
    ...fields,
  };
}
