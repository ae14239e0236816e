/**
 * The file tools against the commands a user would run instead, through the binary:
 *
 * - `write_file` of a 5 MiB text file (overwriting it) against `cp` of a 5 MiB file;
 * - `edit_file`, one small replacement in the middle of a 10 MiB file, against `sed -i`;
 * - `read_file` with offset -100 (the last 100 lines) of a 50 MiB file against `tail -n 100`.
 *
 * toolhost: one persistent server (stdio, legacy session, default settings: the journal keeps
 * undo snapshots, in a state directory of its own); each call is encoded beforehand and timed
 * from writing its line to reading its reply. The command: spawned for each run, timed from the
 * spawn to its exit. Runs alternate (toolhost, command, toolhost, ...) after one untimed run each;
 * figures are medians.
 *
 * `deno task bench` prints it after the other sections; run it alone with
 * `deno run --allow-all scripts/bench/files_bench.ts`. The binary is $TOOLHOST_BENCH_BINARY when
 * set, else dist/toolhost. $TOOLHOST_BENCH_BASELINE names another build (of an older commit) to
 * measure in the same alternation, in rows of its own, for before/after figures from one run.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, ms, times } from "./report.ts";
import { type Request, ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const MIB = 1024 * 1024;
/** Timed runs of each side; $TOOLHOST_BENCH_FILE_RUNS overrides it. */
const RUNS = Number(process.env.TOOLHOST_BENCH_FILE_RUNS ?? 9);
const TARGET_RATIO = 2;

type Progress = (text: string) => void;

/** About `size` bytes of source-like text lines, the `seed` in the first line. */
function text(size: number, seed = 0): string {
  const lines: string[] = [`// generated ${seed}`];
  let length = lines[0].length + 1;
  for (let i = 0; length < size; i++) {
    const line = `  const value${i} = compute(${i}, "some text to fill the line", ${
      i % 97
    }); // ok`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** `text(size)` with `marker` as a line in the middle. */
function withMarker(size: number, marker: string): string {
  const body = text(size);
  const middle = body.indexOf("\n", body.length >> 1) + 1;
  return body.slice(0, middle) + marker + "\n" + body.slice(middle);
}

class Session {
  #id = 1;
  constructor(readonly server: ServerProcess) {}

  /** ServerProcess spawns with this process's environment: TOOLHOST_STATE_DIR is set there. */
  static async start(binary: string, root: string): Promise<Session> {
    const server = new ServerProcess(binary, ["--root", root]);
    const session = new Session(server);
    await server.initialize();
    return session;
  }

  /** The request and its line, encoded outside the timed part. */
  encode(name: string, args: Record<string, unknown>): { request: Request; line: string } {
    const request = {
      id: this.#id++,
      method: "tools/call",
      params: { name, arguments: args },
    };
    return { request, line: JSON.stringify({ jsonrpc: "2.0", ...request }) + "\n" };
  }

  /** Milliseconds from writing the call's line to its (successful) reply. */
  async time(call: { request: Request; line: string }): Promise<number> {
    const sent = performance.now();
    await this.server.pipeline([call.request], call.line);
    return performance.now() - sent;
  }

  /** Milliseconds for a call that must be refused with a reply saying `why`. */
  async timeRefused(call: { request: Request; line: string }, why: string): Promise<number> {
    const sent = performance.now();
    const refused = await this.server.pipeline([call.request], call.line).then(
      () => false,
      (error: Error) => error.message.includes(why),
    );
    const elapsed = performance.now() - sent;
    if (!refused) throw new Error(`${call.request.params?.name} was not refused (${why})`);
    return elapsed;
  }
}

/** Milliseconds for `command args`, spawned, to exit. */
function spawned(command: string, args: string[]): number {
  const start = performance.now();
  execFileSync(command, args, { stdio: ["ignore", "ignore", "inherit"] });
  return performance.now() - start;
}

interface Case {
  name: string;
  /** The build measured: "" for the binary under test, "baseline" for $TOOLHOST_BENCH_BASELINE. */
  build: string;
  /** A reference row (the floor), with no target. */
  reference?: boolean;
  alternative: string;
  toolhost: number[];
  command: number[];
}

type Timings = { toolhost: number[]; command: number[] };

/**
 * Alternates each session's `ours` and `theirs` (ours on each session, then theirs, ...), one
 * untimed run each first; the command's times go with every session's.
 */
async function alternate(
  sessions: Session[],
  ours: (session: Session, run: number) => Promise<number>,
  theirs: (run: number) => number,
): Promise<Timings[]> {
  for (const session of sessions) await ours(session, -1);
  theirs(-1);
  const toolhost: number[][] = sessions.map(() => []);
  const command: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const [i, session] of sessions.entries()) toolhost[i].push(await ours(session, run));
    command.push(theirs(run));
  }
  return toolhost.map((times) => ({ toolhost: times, command }));
}

/** One case's rows: the binary under test first, then the baseline's. */
function rows(
  name: string,
  alternative: string,
  timings: Timings[],
  reference = false,
): Case[] {
  return timings.map((t, i) => ({
    name,
    build: i === 0 ? "" : "baseline",
    alternative,
    reference,
    ...t,
  }));
}

async function measure(binaries: string[], progress: Progress): Promise<Case[]> {
  const root = mkdtempSync(join(tmpdir(), "toolhost-files-bench-"));
  const previousState = process.env.TOOLHOST_STATE_DIR;
  const sessions: Session[] = [];
  try {
    // Each build in a directory (and state directory) of its own, under one root.
    for (const [i, binary] of binaries.entries()) {
      const own = join(root, `build${i}`);
      process.env.TOOLHOST_STATE_DIR = join(own, ".state");
      mkdirSync(own);
      sessions.push(await Session.start(binary, own));
    }
    const dirs = binaries.map((_, i) => join(root, `build${i}`));
    const cases: Case[] = [];

    progress(`files: write_file of 5 MiB vs cp, ${RUNS} runs each`);
    writeFileSync(join(root, "source.txt"), text(5 * MIB));
    // Each run writes different content, as a real rewrite does (undo keeps each).
    const contents = Array.from({ length: RUNS + 1 }, (_, i) => text(5 * MIB, i));
    const write = await alternate(
      sessions,
      (session, run) =>
        session.time(
          session.encode("write_file", { path: "written.txt", content: contents[run + 1] }),
        ),
      () => spawned("cp", [join(root, "source.txt"), join(root, "copied.txt")]),
    );
    for (const dir of dirs) {
      if (readFileSync(join(dir, "written.txt"), "utf8") !== contents[RUNS]) {
        throw new Error("write_file did not write what was sent");
      }
    }
    cases.push(...rows("write_file, 5 MiB, overwriting", "cp", write));
    // The same request refused before any file work: what receiving and parsing it costs.
    const floor = await alternate(
      sessions,
      (session, run) =>
        session.timeRefused(
          session.encode("write_file", { path: "no-file/", content: contents[run + 1] }),
          "ends with a slash",
        ),
      () => spawned("cp", [join(root, "source.txt"), join(root, "copied.txt")]),
    );
    cases.push(
      ...rows(
        "(floor: the same 5 MiB write_file request, refused before any file work)",
        "cp",
        floor,
        true,
      ),
    );

    progress(`files: edit_file of 10 MiB vs sed -i, ${RUNS} runs each`);
    // Each run renames the marker line (MARKER_000, MARKER_001, ...): every run changes the
    // file, and to content it never held before (no undo snapshot is ever kept already).
    const marker = (n: number) => `MARKER_${String(n + 1).padStart(3, "0")}`;
    for (const dir of dirs) {
      writeFileSync(join(dir, "edited.txt"), withMarker(10 * MIB, marker(-1)));
    }
    writeFileSync(join(root, "sedded.txt"), withMarker(10 * MIB, marker(-1)));
    const edit = await alternate(
      sessions,
      (session, run) =>
        session.time(
          session.encode("edit_file", {
            path: "edited.txt",
            edits: [{ old_string: marker(run), new_string: marker(run + 1) }],
          }),
        ),
      (run) =>
        spawned("sed", ["-i", `s/${marker(run)}/${marker(run + 1)}/`, join(root, "sedded.txt")]),
    );
    for (const dir of dirs) {
      if (statSync(join(dir, "edited.txt")).size !== statSync(join(root, "sedded.txt")).size) {
        throw new Error("edit_file and sed -i disagree on the result's size");
      }
    }
    cases.push(...rows("edit_file, one replacement, 10 MiB", "sed -i", edit));

    progress(`files: read_file of the last 100 lines of 50 MiB vs tail, ${RUNS} runs each`);
    writeFileSync(join(root, "big.txt"), text(50 * MIB));
    // One copy of the file, under each build's directory by a hard link.
    for (const dir of dirs) linkSync(join(root, "big.txt"), join(dir, "big.txt"));
    const read = await alternate(
      sessions,
      (session) => session.time(session.encode("read_file", { path: "big.txt", offset: -100 })),
      () => spawned("tail", ["-n", "100", join(root, "big.txt")]),
    );
    cases.push(...rows("read_file, offset -100, 50 MiB", "tail -n 100", read));
    return cases;
  } finally {
    for (const session of sessions) await session.server.close();
    if (previousState === undefined) delete process.env.TOOLHOST_STATE_DIR;
    else process.env.TOOLHOST_STATE_DIR = previousState;
    rmSync(root, { recursive: true, force: true });
  }
}

/** The file tools' section of the report, in markdown. */
export async function filesReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  const cases = await measure(baseline ? [binary, baseline] : [binary], progress);
  const best = (list: number[]) => Math.min(...list);
  const rows = cases.map((c) => {
    const ratio = median(c.toolhost) / median(c.command);
    return [
      c.build ? `${c.name} — ${c.build}` : c.name,
      `${ms(median(c.toolhost))} (${ms(best(c.toolhost))})`,
      `${c.alternative}: ${ms(median(c.command))} (${ms(best(c.command))})`,
      `${times(ratio)} (${times(best(c.toolhost) / best(c.command))})`,
      c.reference ? "" : `≤ ${TARGET_RATIO}× (${ratio <= TARGET_RATIO ? "met" : "MISSED"})`,
    ];
  });
  return [
    "## File tools against cp, sed -i and tail",
    "",
    markdownTable(
      ["case", "toolhost, median (best)", "command, median (best)", "ratio (of bests)", "target"],
      rows,
    ),
    "",
    "Ratio: toolhost ÷ the command, of the medians (below 1: toolhost is faster); the best run " +
    "of each side, and their ratio, show the cost without a busy machine's pauses. Method: one legacy session of " +
    "the binary with --root on a fresh temporary directory and default settings (the journal " +
    "keeps undo snapshots; TOOLHOST_STATE_DIR inside that directory); each call encoded " +
    "beforehand, timed from writing its line to reading its reply. The command is spawned for " +
    `each run and timed to its exit. After one untimed run each, ${RUNS} runs alternate ` +
    "(toolhost, command, ...; with a baseline build: toolhost, baseline, command, ..., each " +
    "build in a directory and state directory of its own). The floor row sends the write_file request with a path ending " +
    "in a slash, refused once the request is read, parsed and checked. write_file overwrites the same file with different generated " +
    "text each run; edit_file and sed -i each rename a marker line in the middle of their own " +
    "10 MiB file; read_file and tail read the same 50 MiB file.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await filesReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}
