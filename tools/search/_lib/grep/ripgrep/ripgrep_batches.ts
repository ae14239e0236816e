/**
 * grep's search with ripgrep: rg walks and matches (fast, and in linear time whatever the
 * pattern), and its --json events are gathered into the same per-file results the built-in search
 * gives. Its flags make it see the tree as the built-in walk does: hidden files searched, .git and
 * node_modules skipped, .gitignore honoured with or without a repository, parents' rules (up to
 * the sandbox root) passed in a file, global and .ignore rules off, entries in path order, text
 * decoded as UTF-8 (invalid bytes as U+FFFD) before matching when that can change the answer.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { ToolError } from "../../../../../mcp/tool/mod.ts";
import { FileLines, type FileMatches } from "../report.ts";
import { nativeLookupsLoaded, openByPath } from "../../../../_lib/sandbox/mod.ts";
import {
  confirms,
  confirmsBytes,
  decodeAsRg,
  HeldReader,
  heldText,
  regularBytes,
} from "./held_reader.ts";
import { bomOf } from "../../../../_lib/text/text.ts";
import { backtrackingRisk } from "../backtracking.ts";
import type { GrepOutcome } from "../engine.ts";
import { searchText } from "../text_search.ts";
import { mayMatchReplacement } from "../pattern_decoding.ts";
import { endEvent, jsonLineBatches, matchEventLines, textOf } from "./events.ts";
import { binaryFileError, type GrepQuery, MAX_FILE_BYTES } from "../query.ts";
import { signalGroup, spawnInGroup } from "../../../../_lib/processes/mod.ts";

/** Files rg reported that are read again (grep_held.ts) at once. */
const VERIFY_CONCURRENCY = 16;
/** Longest the synchronous re-reads run before other work on the main thread gets a turn. */
const SYNC_SLICE_MS = 10;

/** How one run of rg differs from the plain one (beside_guard.ts runs it capped, maybe twice). */
export interface RgRun {
  /** Stops this run (by default the query's signal, which a cancel aborts). */
  signal?: AbortSignal;
  /** rg runs under this cap on its data segment, in bytes (guard.ts). */
  dataLimit?: number;
  /** rg runs without --max-filesize: the guard looks for files over the limit (beside_guard.ts). */
  withoutSizeLimit?: boolean;
}

function argumentsFor(search: GrepQuery, run: RgRun, ignoreFile: string | undefined): string[] {
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
    "--glob=!.git",
    "--glob=!node_modules",
    search.caseInsensitive ? "--ignore-case" : "--case-sensitive",
  ];
  // Without an encoding rg matches raw bytes, where `.` never matches an invalid one: decoding
  // is needed only for a pattern that may match the U+FFFD each invalid sequence becomes.
  if (mayMatchReplacement(search.pattern.source)) args.push("--encoding=utf-8");
  // Larger files are dropped when read again (grep_held.ts); this keeps rg's time off them.
  if (!run.withoutSizeLimit) args.push(`--max-filesize=${MAX_FILE_BYTES}`);
  if (search.multiline) args.push("--multiline", "--multiline-dotall");
  if (search.mode === "content") {
    args.push(`--before-context=${search.before}`, `--after-context=${search.after}`);
  }
  // Which files match is all this mode needs: rg stops at a file's first match (and so may
  // miss a NUL byte further on, which confirmed() then finds).
  if (search.mode === "files_with_matches") args.push("--max-count=1");
  if (search.filter?.rgType && !search.file) {
    args.push(`--type-add=toolhostglob:${search.filter.rgType}`, "--type=toolhostglob");
  }
  if (ignoreFile) args.push(`--ignore-file=${ignoreFile}`);
  // A named file is given on stdin, read through the held directory: rg never opens it by name.
  args.push("--regexp", search.pattern.rust, "--", search.file ? "-" : ".");
  return args;
}

/** The named file's bytes, read through the held directory (never following a link). */
async function namedFileBytes(search: GrepQuery): Promise<Uint8Array> {
  const name = basename(search.file!);
  const handle = search.within
    ? await search.within.openFile(name)
    : await openByPath(search.file!, "read strictly");
  try {
    const bytes = await regularBytes(handle);
    if (!bytes) throw new ToolError(`${search.label} is no longer a regular file; try again`);
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * A file rg reported, as its held content confirms it (grep_held.ts): rg's lines when each is
 * that line of the file inside; otherwise the built-in matcher's answer on that content (when it
 * may run the pattern), or nothing.
 */
function confirmed(
  text: string | undefined,
  found: FileMatches,
  reported: { number: number; text: string }[],
  search: GrepQuery,
  builtinMayRun: boolean,
): FileMatches | undefined {
  if (text === undefined) return undefined;
  // A NUL byte anywhere makes it binary, which rg, stopping at a first match (--max-count=1),
  // may not have seen. (Across lines rg looks at the first 64 KB only, as the built-in search
  // does then.)
  if (search.mode === "files_with_matches" && !search.multiline && text.includes("\0")) {
    return undefined;
  }
  if (confirms(text, reported)) return found;
  if (!builtinMayRun) return undefined;
  const again = searchText(found.path, text, search);
  return again.matchedLines > 0 ? again : undefined;
}

/**
 * confirmed() on the held file's bytes: when they confirm rg's lines without decoding (no BOM,
 * each line the same UTF-8), that answer; otherwise confirmed() on the decoded text.
 */
function confirmedBytes(
  bytes: Uint8Array | undefined,
  found: FileMatches,
  reported: { number: number; text: string }[],
  search: GrepQuery,
  builtinMayRun: boolean,
): FileMatches | undefined {
  if (bytes === undefined) return undefined;
  if (bomOf(bytes) || !confirmsBytes(bytes, reported)) {
    return confirmed(decodeAsRg(bytes), found, reported, search, builtinMayRun);
  }
  // As confirmed(): without a BOM a NUL byte is a NUL character, and the file is binary.
  if (search.mode === "files_with_matches" && !search.multiline && bytes.includes(0)) {
    return undefined;
  }
  return found;
}

/**
 * Files with matches, in path order, as rg finds them: under `search.dir`, or `search.file`;
 * then how the search ended.
 */
export async function* ripgrepSearch(
  rg: string,
  search: GrepQuery,
  run: RgRun = {},
): AsyncGenerator<FileMatches, GrepOutcome> {
  const batches = ripgrepBatches(rg, search, run);
  try {
    for (;;) {
      const step = await batches.next();
      if (step.done) return step.value;
      yield* step.value;
    }
  } finally {
    await batches.return({ unreadable: false }); // left early: rg is stopped
  }
}

/**
 * ripgrepSearch's files in batches, one per piece of rg's output read: a search reporting
 * thousands of files then costs an await per batch rather than one per file.
 */
export async function* ripgrepBatches(
  rg: string,
  search: GrepQuery,
  run: RgRun = {},
): AsyncGenerator<FileMatches[], GrepOutcome> {
  const signal = run.signal ?? search.signal;
  // A call cancelled before the search starts runs nothing and reports nothing.
  if (signal.aborted) return { unreadable: false };
  let stopped: string | undefined;
  // rg's answer for a file its held content disagrees with is searched again by the built-in
  // matcher, when it cannot backtrack for ever on the pattern.
  const builtinMayRun = !backtrackingRisk(search.pattern.source, search.caseInsensitive);
  let scratch: string | undefined;
  let ignoreFile: string | undefined;
  const parentLines = search.file ? [] : search.rulesAbove.parentLines;
  if (parentLines.length > 0) {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-grep-"));
    ignoreFile = join(scratch, "parents.gitignore");
    await writeFile(ignoreFile, parentLines.join("\n") + "\n");
  }
  let named: Uint8Array | undefined;
  if (search.file) named = await namedFileBytes(search);
  const args = argumentsFor(search, run, ignoreFile);
  const capped = run.dataLimit !== undefined;
  // A soft limit: one that cannot be set means a lower hard limit is in force already.
  const cap = `ulimit -S -d ${Math.floor((run.dataLimit ?? 0) / 1024)} 2>/dev/null; ` +
    `exec "$0" "$@"`;
  const child = spawnInGroup(capped ? "/bin/sh" : rg, capped ? ["-c", cap, rg, ...args] : args, {
    // In the directory held open (through this process's descriptor, which rg's chdir follows to
    // that very directory), not by its path, which a rename may have redirected since.
    cwd: search.within?.fd === undefined
      ? search.dir
      : `/proc/${process.pid}/fd/${search.within.fd}`,
    stdio: [search.file ? "pipe" : "ignore", "pipe", "pipe"],
  }, { confinement: search.confinement });
  if (named) {
    child.stdin!.on("error", () => {}); // rg may stop reading once it knows enough
    child.stdin!.end(named);
  }
  // Files are read again straight from the held descriptors once the native lookups are in.
  await nativeLookupsLoaded();
  const reader = search.file ? undefined : new HeldReader(search.within, search.dir);
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => (stderr = (stderr + text).slice(0, 4000)));
  let running = true;
  const exited = new Promise<{ code: number | null; signal: string | null }>((done, fail) => {
    child.once("error", fail);
    child.once("close", (code, signal) => {
      running = false;
      done({ code, signal });
    });
  });
  exited.catch(() => {}); // awaited below; a failure to start must not go unhandled meanwhile
  /** Whether we killed rg (time limit or cancel): then its exit says nothing about rg. */
  let killed = false;
  const stop = () => {
    if (!running || child.pid === undefined) return;
    killed = true;
    signalGroup(child.pid, "SIGKILL");
    // Just after spawn, mid-exec, the group's mark cannot be read yet and signalGroup may pass
    // it over; the process we started (rg itself, or the shell about to become rg) is ours.
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => {
    stopped = "time limit reached";
    stop();
  }, Math.max(0, search.deadline - Date.now()));
  signal.addEventListener("abort", stop);
  if (signal.aborted) stop();
  const keepLines = search.mode === "content";
  // rg's paths are clean ("./a/b"): joined by hand, as path.join costs far more per file.
  const base = search.dir.endsWith("/") ? search.dir : `${search.dir}/`;
  try {
    let file: FileLines | undefined;
    let rel = "";
    const pending: Promise<FileMatches | undefined>[] = [];
    let reported: { number: number; text: string }[] = [];
    read: for await (const lines of jsonLineBatches(child.stdout!, !search.multiline)) {
      let ready: FileMatches[] = [];
      let since = performance.now();
      for (const line of lines) {
        // What rg had written before the kill reached it is not reported for a cancelled call.
        if (signal.aborted) break read;
        let event;
        try {
          event = endEvent(line) ?? JSON.parse(line);
        } catch {
          // Killed at the time limit, rg's last line is usually cut: the kill's doing, not rg's.
          if (killed) break read;
          stop();
          throw new ToolError(`rg wrote a line grep could not read: ${line.slice(0, 200)}`);
        }
        const data = event.data;
        if (event.type === "begin") {
          rel = search.file ? "" : textOf(data.path).replace(/^\.\//, "");
          reported = [];
          const wanted = search.file !== undefined || !search.filter || search.filter.matches(rel);
          file = wanted ? new FileLines(search.file ?? base + rel, keepLines) : undefined;
        } else if (event.type === "match" && file) {
          for (const at of matchEventLines(data)) {
            file.add(at.number, at.text, true, at.column);
            reported.push(at);
          }
        } else if (event.type === "context" && file) {
          const text = textOf(data.lines).replace(/\n$/, "");
          file.add(data.line_number, text, false);
          reported.push({ number: data.line_number, text });
        } else if (event.type === "end" && file) {
          const found = file.result();
          file = undefined;
          // A NUL byte anywhere makes a file binary; rg may find it after reporting matches.
          if (data.binary_offset !== null) {
            if (search.file) throw binaryFileError(search.label, "text with NUL bytes");
          } else if (!reader) ready.push(found); // the named file's bytes came from the held directory
          else if (reader.synchronous) {
            // Read now, beneath the held directory (its directories stay held between files).
            const held = confirmedBytes(
              reader.bytesSync(rel),
              found,
              reported,
              search,
              builtinMayRun,
            );
            if (held) ready.push(held);
            // Synchronous reads hold the thread every request shares: let others in now and then.
            if (performance.now() - since > SYNC_SLICE_MS) {
              if (ready.length > 0) yield ready;
              ready = [];
              await new Promise((next) => setImmediate(next));
              since = performance.now();
            }
          } else {
            // Opened now, in order (its directories stay held); read and checked alongside
            // the next ones, and reported in rg's order.
            const handle = await reader.open(rel);
            const check = reported;
            pending.push(
              heldText(handle).then((text) => confirmed(text, found, check, search, builtinMayRun))
                .catch(() => undefined),
            );
            if (pending.length >= VERIFY_CONCURRENCY) {
              const held = await pending.shift()!;
              if (held) ready.push(held);
            }
          }
        }
      }
      if (ready.length > 0) yield ready;
    }
    const rest: FileMatches[] = [];
    for (const started of pending.splice(0)) {
      const held = await started;
      if (held) rest.push(held);
    }
    if (rest.length > 0) yield rest;
    const { code, signal: killedBy } = await exited;
    if (killed || code === 0 || code === 1) return { stopped, unreadable: false };
    if (capped && code === 127) throw new ToolError(`could not run rg at ${rg}: ${stderr.trim()}`);
    if (code === 2 && !stderr.trim()) {
      // --no-messages: rg says nothing about files it could not read, only that there were some.
      return { stopped, unreadable: true };
    }
    const how = code === null ? `was killed by ${killedBy}` : `failed with exit code ${code}`;
    const said = stderr.trim() ? `: ${stderr.trim()}` : "";
    throw new ToolError(
      `rg ${how}${said}. Its results would be incomplete, so none are shown; ` +
        `try a simpler pattern or a smaller path`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError(`could not run rg at ${rg}: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
    stop();
    await reader?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
