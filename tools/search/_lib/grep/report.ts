/**
 * grep's results, whichever search found them: each file's matching (and context) lines gathered
 * the same way, then formatted in one deterministic order within a character budget, with notes
 * saying what was left out and how to narrow the search.
 */
import { count } from "../../../_lib/text/units.ts";
import { withoutCr } from "./lines.ts";

export type OutputMode = "files_with_matches" | "content" | "count";

export interface MatchLine {
  /** 1-based. */
  number: number;
  /** Without its line break; long lines are cut around their first match. */
  text: string;
  /** A matching line (else a context line). */
  match: boolean;
}

export interface FileMatches {
  /** Absolute path. */
  path: string;
  matchedLines: number;
  /** In content mode: matching and context lines in order, at most LINES_KEPT_PER_FILE. */
  lines: MatchLine[];
  /** Lines past those kept. */
  moreLines: number;
}

/** More lines of one file than any output budget can show, so there is no point keeping them. */
const LINES_KEPT_PER_FILE = 10_000;
/** Longer result lines are cut (read_file's own, larger cap is text_page's MAX_LINE_CHARS). */
export const MAX_MATCH_LINE_CHARS = 500;
/** How much of a long line is shown before its first match. */
const LEAD_CHARS = 100;

/** A line cut to MAX_MATCH_LINE_CHARS around `column` (where its first match starts). */
export function clipLine(text: string, column: number): string {
  if (text.length <= MAX_MATCH_LINE_CHARS) return text;
  const start = Math.max(0, Math.min(column - LEAD_CHARS, text.length - MAX_MATCH_LINE_CHARS));
  const end = start + MAX_MATCH_LINE_CHARS;
  const before = start > 0 ? `[…${count(start)} characters] ` : "";
  const after = end < text.length ? ` […${count(text.length - end)} characters]` : "";
  return `${before}${text.slice(start, end)}${after}`;
}

/**
 * Gathers one file's lines as a search reports them, in increasing line order (a line reported
 * twice, as multiline matches can be, counts once).
 */
export class FileLines {
  #matched = 0;
  #lines: MatchLine[] = [];
  #more = 0;
  #last = 0;

  /**
   * `textUnwanted`: the lines are counted (as lines past those kept) but not kept, when the
   * report they go to is already full.
   */
  constructor(
    readonly path: string,
    readonly keepLines: boolean,
    readonly textUnwanted = false,
  ) {}

  /** `line` without its line break ("\r" included); `column`: where its first match starts. */
  add(number: number, line: string, match: boolean, column = 0): void {
    if (number <= this.#last) return;
    this.#last = number;
    if (match) this.#matched++;
    if (!this.keepLines) return;
    if (this.textUnwanted || this.#lines.length >= LINES_KEPT_PER_FILE) {
      this.#more++;
      return;
    }
    this.#lines.push({ number, text: clipLine(withoutCr(line), column), match });
  }

  get matchedLines(): number {
    return this.#matched;
  }

  result(): FileMatches {
    return {
      path: this.path,
      matchedLines: this.#matched,
      lines: this.#lines,
      moreLines: this.#more,
    };
  }
}

export interface ReportOptions {
  mode: OutputMode;
  /** At most this many entries (files, lines or counts). */
  headLimit?: number;
  maxChars: number;
  /** Whether context lines were asked for: then groups of lines are separated by "--". */
  context: boolean;
  /** How a path reads in the output. */
  display(path: string): string;
}

export interface ReportSummary {
  mode: OutputMode;
  files: number;
  /** Matching lines; null in files_with_matches mode, which stops at a file's first match. */
  lines: number | null;
  shown: number;
  omitted: number;
  stoppedEarly: string | null;
}

export class GrepReport {
  #files = 0;
  #matched = 0;
  #entries = 0;
  #out: string[] = [];
  #shown = 0;
  #chars = 0;
  #full: "head_limit" | "size" | undefined;
  #lastLine = 0;

  constructor(readonly options: ReportOptions) {}

  /** Whether no more entries will be shown: what is added now only counts. */
  get full(): boolean {
    return this.#full !== undefined;
  }

  add(file: FileMatches): void {
    if (file.matchedLines === 0) return;
    this.#files++;
    this.#matched += file.matchedLines;
    const name = this.options.display(file.path);
    const { mode, context } = this.options;
    if (mode === "files_with_matches") return this.#entry(name);
    if (mode === "count") return this.#entry(`${name}:${file.matchedLines}`);
    this.#lastLine = -1;
    for (const line of file.lines) {
      const separator = context && this.#shown > 0 && line.number !== this.#lastLine + 1;
      this.#entry(
        `${name}${line.match ? ":" : "-"}${line.number}${line.match ? ":" : "-"}${line.text}`,
        separator,
      );
      this.#lastLine = line.number;
    }
    if (file.moreLines > 0) {
      this.#entries += file.moreLines;
      this.#full ??= "size";
    }
  }

  #entry(text: string, separated = false): void {
    this.#entries++;
    if (this.#full) return;
    const { headLimit, maxChars } = this.options;
    const line = separated ? `--\n${text}` : text;
    if (headLimit !== undefined && this.#shown >= headLimit) this.#full = "head_limit";
    else if (this.#chars + line.length + 1 > maxChars) this.#full = "size";
    if (this.#full) return;
    this.#out.push(line);
    this.#shown++;
    this.#chars += line.length + 1;
  }

  /** The text for the model and the numbers for structuredContent; `extra` notes end the text. */
  finish(searched: string, stoppedEarly: string | undefined, extra: string[] = []): {
    text: string;
    summary: ReportSummary;
  } {
    const { mode } = this.options;
    const omitted = this.#entries - this.#shown;
    const notes: string[] = [];
    const what = mode === "files_with_matches"
      ? `${count(this.#files)} file${this.#files === 1 ? "" : "s"} under ${searched} match`
      : `${count(this.#matched)} matching line${this.#matched === 1 ? "" : "s"} in ${
        count(this.#files)
      } file${this.#files === 1 ? "" : "s"} under ${searched}`;
    notes.push(`[${this.#files === 0 ? `no matches under ${searched}` : what}]`);
    if (omitted > 0) {
      const unit = (mode === "content" ? "line" : mode === "count" ? "count" : "file") +
        (omitted === 1 ? "" : "s");
      const why = this.#full === "head_limit" ? "head_limit reached" : "output limit reached";
      const narrow = mode === "content"
        ? 'narrow the search with path, glob or a more specific pattern, or use output_mode "files_with_matches" or "count"'
        : "narrow the search with path, glob or a more specific pattern";
      notes.push(
        `[${count(omitted)} more ${unit} not shown (${why}, ${
          count(this.#shown)
        } shown); ${narrow}]`,
      );
    }
    if (stoppedEarly) {
      notes.push(
        `[the search stopped early (${stoppedEarly}): results are incomplete; search a smaller path]`,
      );
    }
    notes.push(...extra);
    const body = this.#out.join("\n");
    return {
      text: body ? `${body}\n\n${notes.join("\n")}` : notes.join("\n"),
      summary: {
        mode,
        files: this.#files,
        lines: mode === "files_with_matches" ? null : this.#matched,
        shown: this.#shown,
        omitted,
        stoppedEarly: stoppedEarly ?? null,
      },
    };
  }
}
