/**
 * What a planted journal costs `undo` and `history`: the peak resident memory (VmHWM) of the
 * binary after each reads a journal holding 300,000 planted lines, and then one more line of
 * 200 MB, each case in a fresh server on a fresh project (the promise: at most 150 MB). With
 * TOOLHOST_BENCH_BASELINE=<binary> an older build gets a column of its own. Linux only (it reads
 * /proc). Run alone with `deno run --allow-all scripts/bench/journal_flood_bench.ts`; the binary
 * is $TOOLHOST_BENCH_BINARY when set, else dist/toolhost.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, mb, ms } from "./report.ts";
import { ServerProcess } from "./server_process.ts";

type Progress = (text: string) => void;

/** What the planted lines name: the server's own session and a file it wrote. */
interface Own {
  session: string;
  path: string;
}

const CASES = [
  { name: "300,000 planted lines", plant: plantLines },
  {
    name: "300,000 lines, then one of 200 MB",
    plant: (fd: number, own: Own) => plantLong(plantLines(fd, own)),
  },
];
const TOOLS = ["undo", "history"] as const;

/** Lines of the server's own session, each a write of the file it wrote: undo takes the last. */
function plantLines(fd: number, own: Own): number {
  const entry = {
    id: "",
    session: own.session,
    time: new Date().toISOString(),
    era: "modern",
    tool: "write_file",
    args: { path: "x.txt" },
    outcome: "ok",
    ms: 1,
    files: ["x.txt"],
    changes: [{
      path: own.path,
      before: { kind: "absent" },
      after: {
        kind: "file",
        sha: createHash("sha256").update("x").digest("hex"),
        mode: 420,
        size: 1,
      },
    }],
  };
  let chunk = "";
  for (let i = 0; i < 300_000; i++) {
    entry.id = `planted-${i}`;
    chunk += JSON.stringify(entry) + "\n";
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = "";
    }
  }
  writeSync(fd, chunk);
  return fd;
}

function plantLong(fd: number): number {
  const part = "a".repeat(1 << 20);
  writeSync(fd, '{"id":"huge","tool":"write_file","args":{"p":"');
  for (let i = 0; i < 200; i++) writeSync(fd, part);
  writeSync(fd, '"}}\n');
  return fd;
}

/** One case in a fresh server: its peak memory and the call's time. */
async function measure(
  binary: string,
  plant: (fd: number, own: Own) => number,
  tool: string,
): Promise<{ peak: number; ms: number; reply: string }> {
  const root = mkdtempSync(join(tmpdir(), "toolhost-flood-bench-"));
  mkdirSync(join(root, "project"));
  const saved = process.env.TOOLHOST_STATE_DIR;
  process.env.TOOLHOST_STATE_DIR = join(root, ".state");
  const server = new ServerProcess(binary, ["--root", join(root, "project")]);
  if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
  else process.env.TOOLHOST_STATE_DIR = saved;
  try {
    await server.initialize();
    // The project's journal exists once history has written list_roots' line.
    await server.tool("write_file", { path: "x.txt", content: "x" });
    await server.tool("history", {});
    const projects = join(root, ".state", "projects");
    const journal = join(projects, readdirSync(projects)[0], "journal.jsonl");
    const lines = readFileSync(journal, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const written = lines.find((l) => l.tool === "write_file");
    const own = { session: written.session ?? "", path: written.changes[0].path };
    const fd = openSync(journal, "a");
    closeSync(plant(fd, own));
    const sent = performance.now();
    let reply = "answered";
    await server.tool(tool, {}).catch((error: Error) => {
      // A refusal is an answer too (the 200 MB line stops the reading: said, not hidden).
      if (!/"isError":true/.test(error.message)) throw error;
      reply = "refused, saying why";
    });
    return { peak: server.peakRss(), ms: performance.now() - sent, reply };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function journalFloodReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  const rows: string[][] = [];
  for (const { name, plant } of CASES) {
    for (const tool of TOOLS) {
      progress(`journal flood: ${tool} over ${name}`);
      const now = await measure(binary, plant, tool);
      const row = [`${tool}, ${name}`, mb(now.peak), ms(now.ms), now.reply];
      if (baseline) {
        const before = await measure(baseline, plant, tool);
        row.push(mb(before.peak), ms(before.ms), before.reply);
      }
      rows.push(row);
    }
  }
  const header = ["case", "peak RSS", "time", "reply"];
  if (baseline) header.push("baseline peak RSS", "baseline time", "baseline reply");
  return [
    "## A planted journal: undo's and history's memory",
    "",
    markdownTable(header, rows),
    "",
    "Each case in a fresh server: once it wrote x.txt, its project's journal.jsonl gets 300,000 " +
    "lines saying the same session wrote x.txt (then one line of 200 MB), then one call. " +
    "Target: at most 150 MB.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await journalFloodReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}
