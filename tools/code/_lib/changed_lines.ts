/** The lines an edit wrote, numbered, with one line around them: what a reply shows. */
import { shownName } from "../../_lib/text/shown_name.ts";

const MAX_LINES = 60;
const MAX_CHARS = 4_000;

/**
 * Lines of `text` around `[from, to)`, numbered `  12| code`; `mark` (a line) gets a `>`
 * and is shown even when it lies outside.
 */
export function changedLines(text: string, from: number, to: number, mark?: number): string {
  const lines = text.split("\n");
  const lineAt = (at: number) => text.slice(0, at).split("\n").length;
  let first = Math.max(1, lineAt(from) - 1);
  let last = Math.min(lines.length, lineAt(Math.max(from, to - 1)) + 1);
  if (mark !== undefined) {
    first = Math.min(first, Math.max(1, mark - 1));
    last = Math.max(last, Math.min(lines.length, mark + 1));
  }
  const out: string[] = [];
  let chars = 0;
  for (let n = first; n <= last; n++) {
    if (out.length >= MAX_LINES || chars > MAX_CHARS) {
      out.push(`[... ${last - n + 1} more lines: read the file to see them]`);
      break;
    }
    const line = `${n === mark ? ">" : " "}${String(n).padStart(5)}| ${shownName(lines[n - 1])}`;
    out.push(line);
    chars += line.length + 1;
  }
  return out.join("\n");
}
