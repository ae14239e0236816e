/**
 * grep's search with ripgrep: rg walks and matches (fast), and its --json events are gathered
 * into the same per-file results the built-in search gives. Its flags make it see the tree as the
 * built-in walk does: hidden files searched, .git and node_modules skipped, .gitignore honoured
 * with or without a repository, parents' rules (up to the sandbox root) passed in a file, global
 * and .ignore rules off, entries in path order.
 */
import { accessSync, constants } from "node:fs";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { ToolError } from "../../mcp/tool.ts";
import { FileLines, type FileMatches, MAX_LINE_CHARS } from "./grep_report.ts";
import { type GrepSearch, MAX_FILE_BYTES } from "./grep_search.ts";
import { signalGroup, spawnInGroup } from "./process_groups.ts";
import { binaryKind, SNIFF_BYTES } from "./text.ts";

/** The rg executable on PATH, if there is one. */
export function findRipgrep(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, "rg");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function argumentsFor(search: GrepSearch, ignoreFile: string | undefined): string[] {
  const args = [
    "--json",
    "--no-config",
    "--sort=path",
    "--hidden",
    "--no-require-git",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--no-messages",
    "--crlf",
    `--max-filesize=${MAX_FILE_BYTES}`,
    "--glob=!.git",
    "--glob=!node_modules",
    search.caseInsensitive ? "--ignore-case" : "--case-sensitive",
  ];
  if (search.multiline) args.push("--multiline", "--multiline-dotall");
  if (search.mode === "content") {
    args.push(`--before-context=${search.before}`, `--after-context=${search.after}`);
  }
  if (search.filter?.rgType) {
    args.push(`--type-add=toolhostglob:${search.filter.rgType}`, "--type=toolhostglob");
  }
  if (ignoreFile) args.push(`--ignore-file=${ignoreFile}`);
  args.push("--regexp", search.pattern.rust, "--", ".");
  return args;
}

type Data = { text: string } | { bytes: string };

interface Submatch {
  start: number;
  end: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

const bytesOf = (data: Data) =>
  "text" in data
    ? encoder.encode(data.text)
    : Uint8Array.from(atob(data.bytes), (c) => c.charCodeAt(0));
const textOf = (data: Data) => "text" in data ? data.text : decoder.decode(bytesOf(data));

/**
 * Where the first match starts in each line of a match event's lines (0 when a match runs into
 * the line from the one before), in characters. Only long lines are cut around it, so short
 * ones are not measured.
 */
function columns(data: Data, lines: string[], submatches: Submatch[]): number[] {
  if (!lines.some((line) => line.length > MAX_LINE_CHARS)) return lines.map(() => 0);
  const bytes = bytesOf(data);
  const out: number[] = [];
  let lineStart = 0;
  for (let i = 0; i < lines.length; i++) {
    let lineEnd = bytes.indexOf(0x0a, lineStart);
    if (lineEnd < 0) lineEnd = bytes.length;
    const runsIn = submatches.some((m) => m.start < lineStart && m.end > lineStart);
    const first = submatches.find((m) => m.start >= lineStart && m.start <= lineEnd);
    out.push(runsIn || !first ? 0 : decoder.decode(bytes.subarray(lineStart, first.start)).length);
    lineStart = lineEnd + 1;
  }
  return out;
}

async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return true;
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return binaryKind(head.subarray(0, bytesRead)) !== undefined;
  } finally {
    await handle.close();
  }
}

/** Files under `search.dir` with matches, in path order, as rg finds them. */
export async function* ripgrepSearch(rg: string, search: GrepSearch): AsyncGenerator<FileMatches> {
  let scratch: string | undefined;
  let ignoreFile: string | undefined;
  if (search.rulesAbove.lines.length > 0) {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-grep-"));
    ignoreFile = join(scratch, "parents.gitignore");
    await writeFile(ignoreFile, search.rulesAbove.lines.join("\n") + "\n");
  }
  const child = spawnInGroup(rg, argumentsFor(search, ignoreFile), {
    cwd: search.dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => (stderr = (stderr + text).slice(0, 4000)));
  let running = true;
  const exited = new Promise<number | null>((done, fail) => {
    child.once("error", fail);
    child.once("close", (code) => {
      running = false;
      done(code);
    });
  });
  exited.catch(() => {}); // awaited below; a failure to start must not go unhandled meanwhile
  const stop = () => {
    if (running && child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
  };
  const timer = setTimeout(() => {
    search.stopped = "time limit reached";
    stop();
  }, Math.max(0, search.deadline - Date.now()));
  const stopListening = search.onAbort(stop);
  const keepLines = search.mode === "content";
  try {
    let file: FileLines | undefined;
    for await (const line of createInterface({ input: child.stdout!, crlfDelay: Infinity })) {
      const event = JSON.parse(line);
      const data = event.data;
      if (event.type === "begin") {
        const rel = textOf(data.path).replace(/^\.\//, "");
        const wanted = !search.filter || search.filter.matches(rel);
        file = wanted ? new FileLines(join(search.dir, rel), keepLines) : undefined;
      } else if (event.type === "match" && file) {
        const lines = textOf(data.lines).split("\n");
        if (lines.at(-1) === "") lines.pop();
        const at = columns(data.lines, lines, data.submatches);
        lines.forEach((text, i) => file!.add(data.line_number + i, text, true, at[i]));
      } else if (event.type === "context" && file) {
        file.add(data.line_number, textOf(data.lines).replace(/\n$/, ""), false);
      } else if (event.type === "end" && file) {
        const found = file.result();
        file = undefined;
        if (data.binary_offset === null && !(await looksBinary(found.path))) yield found;
      }
    }
    const code = await exited;
    if (code === 2 && stderr.trim() && !search.stopped && !search.signal.aborted) {
      throw new ToolError(`rg could not search: ${stderr.trim()}`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError(`could not run rg at ${rg}: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    stopListening();
    stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
