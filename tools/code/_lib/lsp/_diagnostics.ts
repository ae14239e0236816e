/**
 * Diagnostics as shown: `path:line:column severity message`, errors first; and which of a file's
 * diagnostics an edit introduced or fixed, compared by what they say (their lines move with the
 * edit, so the place is not part of the comparison).
 */
import type { Diagnostic } from "./_server.ts";

const SEVERITY = ["", "error", "warning", "info", "hint"];

export function severityName(d: Diagnostic): string {
  return SEVERITY[d.severity ?? 1] ?? "error";
}

export function diagnosticLine(shown: string, d: Diagnostic): string {
  const code = d.code === undefined ? "" : ` [${String(d.code).slice(0, 40)}]`;
  const message = d.message.split("\n")[0].slice(0, 300);
  return `${shown}:${d.range.start.line + 1}:${d.range.start.character + 1} ${
    severityName(d)
  }${code} ${message}`;
}

function identity(d: Diagnostic): string {
  return `${d.severity ?? 1}\0${d.code ?? ""}\0${d.message}`;
}

/** Errors in `after` beyond those in `before` (as a multiset), and how many errors went away. */
export function compareErrors(
  before: Diagnostic[],
  after: Diagnostic[],
): { introduced: Diagnostic[]; fixed: number } {
  const errors = (list: Diagnostic[]) => list.filter((d) => (d.severity ?? 1) === 1);
  const left = new Map<string, number>();
  for (const d of errors(before)) left.set(identity(d), (left.get(identity(d)) ?? 0) + 1);
  const introduced: Diagnostic[] = [];
  for (const d of errors(after)) {
    const n = left.get(identity(d)) ?? 0;
    if (n > 0) left.set(identity(d), n - 1);
    else introduced.push(d);
  }
  let fixed = 0;
  for (const n of left.values()) fixed += n;
  return { introduced, fixed };
}
