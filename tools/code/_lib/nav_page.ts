/** code_nav's answer as a reply: a page of lines within a character budget, and its structure. */
import type { Place } from "./lsp/mod.ts";

const DEFAULT_CHARS = 8000;

export interface Answer {
  lines: string[];
  places: Place[];
  count: number;
  note?: string;
  /** Set when the answer may be incomplete (the server was still loading): why. */
  incomplete?: string;
}

/**
 * The answer's page from `cursor` (a line index) within the character budget.
 *
 * @example
 * page({ lines: ["a.ts:1:1"], places, count: 1 }, "deno lsp", {}, 30_000).content;
 * // "deno lsp: 1 result\na.ts:1:1"
 */
export function page(
  answer: Answer,
  server: string,
  args: { cursor?: number },
  outputChars: number,
) {
  const budget = Math.min(DEFAULT_CHARS, outputChars);
  const start = Math.min(args.cursor ?? 0, answer.lines.length);
  const shown: string[] = [];
  let used = 0;
  let end = start;
  for (; end < answer.lines.length; end++) {
    const line = answer.lines[end].length > budget
      ? answer.lines[end].slice(0, budget) + "…"
      : answer.lines[end];
    if (used + line.length + 1 > budget && shown.length > 0) break;
    shown.push(line);
    used += line.length + 1;
  }
  const next = end < answer.lines.length ? end : undefined;
  const header = `${server}: ${answer.count} result${answer.count === 1 ? "" : "s"}`;
  const parts = [header];
  if (answer.incomplete) parts.push(`incomplete: ${answer.incomplete}`);
  parts.push(...shown);
  if (answer.count === 0 && shown.length === 0) {
    parts.push(answer.incomplete ? "(nothing found yet)" : "(nothing found)");
  }
  if (next !== undefined) parts.push(`… more: call again with cursor ${next}`);
  if (answer.note) parts.push(`note: ${answer.note}`);
  const text = answer.places.length === 0 && answer.lines.length > 0
    ? answer.lines.join("\n").slice(0, budget)
    : undefined;
  return {
    content: parts.join("\n"),
    structured: {
      server,
      count: answer.count,
      places: answer.places.slice(0, 500).map(({ path, line, column, name }) => ({
        path,
        line,
        column,
        ...(name === undefined ? {} : { name }),
      })),
      ...(text === undefined ? {} : { text }),
      ...(answer.incomplete ? { incomplete: answer.incomplete } : {}),
      ...(next === undefined ? {} : { next_cursor: next }),
    },
  };
}
