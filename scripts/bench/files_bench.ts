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
 * set, else dist/toolhost.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
  /** A reference row (the floor), with no target. */
  reference?: boolean;
  alternative: string;
  toolhost: number[];
  command: number[];
}

/** Alternates `ours` and `theirs`, one untimed run each first. */
async function alternate(
  ours: (run: number) => Promise<number>,
  theirs: (run: number) => number,
): Promise<{ toolhost: number[]; command: number[] }> {
  await ours(-1);
  theirs(-1);
  const toolhost: number[] = [];
  const command: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    toolhost.push(await ours(run));
    command.push(theirs(run));
  }
  return { toolhost, command };
}

async function measure(binary: string, progress: Progress): Promise<Case[]> {
  const root = mkdtempSync(join(tmpdir(), "toolhost-files-bench-"));
  const stateDir = join(root, ".state");
  const previousState = process.env.TOOLHOST_STATE_DIR;
  process.env.TOOLHOST_STATE_DIR = stateDir;
  const session = await Session.start(binary, root);
  try {
    const cases: Case[] = [];

    progress(`files: write_file of 5 MiB vs cp, ${RUNS} runs each`);
    writeFileSync(join(root, "source.txt"), text(5 * MIB));
    // Each run writes different content, as a real rewrite does (undo keeps each).
    const contents = Array.from({ length: RUNS + 1 }, (_, i) => text(5 * MIB, i));
    const write = await alternate(
      (run) =>
        session.time(
          session.encode("write_file", { path: "written.txt", content: contents[run + 1] }),
        ),
      () => spawned("cp", [join(root, "source.txt"), join(root, "copied.txt")]),
    );
    if (readFileSync(join(root, "written.txt"), "utf8") !== contents[RUNS]) {
      throw new Error("write_file did not write what was sent");
    }
    cases.push({ name: "write_file, 5 MiB, overwriting", alternative: "cp", ...write });
    // The same request refused before any file work: what receiving and parsing it costs.
    const floor = await alternate(
      (run) =>
        session.timeRefused(
          session.encode("write_file", { path: "no-file/", content: contents[run + 1] }),
          "ends with a slash",
        ),
      () => spawned("cp", [join(root, "source.txt"), join(root, "copied.txt")]),
    );
    cases.push({
      name: "(floor: the same 5 MiB write_file request, refused before any file work)",
      alternative: "cp",
      reference: true,
      ...floor,
    });

    progress(`files: edit_file of 10 MiB vs sed -i, ${RUNS} runs each`);
    // Each run renames the marker line (MARKER_000, MARKER_001, ...): every run changes the
    // file, and to content it never held before (no undo snapshot is ever kept already).
    const marker = (n: number) => `MARKER_${String(n + 1).padStart(3, "0")}`;
    writeFileSync(join(root, "edited.txt"), withMarker(10 * MIB, marker(-1)));
    writeFileSync(join(root, "sedded.txt"), withMarker(10 * MIB, marker(-1)));
    const edit = await alternate(
      (run) =>
        session.time(
          session.encode("edit_file", {
            path: "edited.txt",
            edits: [{ old_string: marker(run), new_string: marker(run + 1) }],
          }),
        ),
      (run) =>
        spawned("sed", ["-i", `s/${marker(run)}/${marker(run + 1)}/`, join(root, "sedded.txt")]),
    );
    if (statSync(join(root, "edited.txt")).size !== statSync(join(root, "sedded.txt")).size) {
      throw new Error("edit_file and sed -i disagree on the result's size");
    }
    cases.push({ name: "edit_file, one replacement, 10 MiB", alternative: "sed -i", ...edit });

    progress(`files: read_file of the last 100 lines of 50 MiB vs tail, ${RUNS} runs each`);
    writeFileSync(join(root, "big.txt"), text(50 * MIB));
    const read = await alternate(
      () => session.time(session.encode("read_file", { path: "big.txt", offset: -100 })),
      () => spawned("tail", ["-n", "100", join(root, "big.txt")]),
    );
    cases.push({ name: "read_file, offset -100, 50 MiB", alternative: "tail -n 100", ...read });
    return cases;
  } finally {
    await session.server.close();
    if (previousState === undefined) delete process.env.TOOLHOST_STATE_DIR;
    else process.env.TOOLHOST_STATE_DIR = previousState;
    rmSync(root, { recursive: true, force: true });
  }
}

/** The file tools' section of the report, in markdown. */
export async function filesReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const cases = await measure(binary, progress);
  const best = (list: number[]) => Math.min(...list);
  const rows = cases.map((c) => {
    const ratio = median(c.toolhost) / median(c.command);
    return [
      c.name,
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
    "(toolhost, command, ...). The floor row sends the write_file request with a path ending " +
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
