/**
 * Which ranking puts first the files a real task touched? For the last commits of this
 * repository's history that changed between 2 and 12 source files that existed before (a task's
 * footprint), each changed file in turn is taken as the file in play; the map of the tree as it
 * was before the commit (the parent's tracked files) is ranked by each method, and the other
 * changed files are looked for in it:
 *
 * - shown: the share of them the default map (6,000 characters) shows;
 * - MRR: 1 / the place of the first of them among the files in map order (files ordered by
 *   their best definition; the file in play left out);
 * - recall@10: the share of them among the first 10 files.
 *
 * Methods: `uses` (the map's order before the graph: other files using a name), `uses+play`
 * (the same, a name the file in play uses counting fifty times), `graph` (aider's PageRank over
 * who uses whose names, not personalised), `graph+play` (personalised by the file in play). Each blob is parsed once, in the parse workers, from source.
 *
 * Run: `deno run --allow-all scripts/bench/code_rank_eval.ts [commits=80] [ref=HEAD]`.
 */
import { execFileSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type FileOutline, outlineOf } from "../../tools/code/_lib/outlines/mod.ts";
import { languageOf, parseBatch, stopParseWorkers } from "../../tools/code/_lib/parse/mod.ts";
import { rankDefinitions, type RankMethod } from "../../tools/code/_lib/rank/mod.ts";
import { mapLines } from "../../tools/code/_lib/symbol_lines.ts";
import { markdownTable } from "./report.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAP_CHARS = 6_000;
const MIN_FILES = 2;
const MAX_FILES = 12;

type Method = { name: string; method: RankMethod; personal: boolean };
export const METHODS: Method[] = [
  { name: "uses", method: "uses", personal: false },
  { name: "uses+play", method: "uses", personal: true },
  { name: "graph", method: "graph", personal: false },
  { name: "graph+play", method: "graph", personal: true },
];

function git(args: string[], input?: string): Buffer {
  return execFileSync("git", args, { cwd: ROOT, input, maxBuffer: 1 << 30 });
}

/** Commits (newest first) with the source files each modified (files that existed before). */
function tasks(count: number, ref: string): { commit: string; files: string[] }[] {
  const log = git(["log", "--no-merges", "--format=@%H", "--name-status", "-n", "2000", ref])
    .toString();
  const found: { commit: string; files: string[] }[] = [];
  for (const block of log.split("@").slice(1)) {
    const [commit, ...lines] = block.trim().split("\n");
    const files = lines
      .map((line) => line.split("\t"))
      .filter(([status, path]) => status === "M" && path && languageOf(path))
      .map(([, path]) => path);
    if (files.length >= MIN_FILES && files.length <= MAX_FILES) found.push({ commit, files });
    if (found.length >= count) break;
  }
  return found;
}

/** The parent's tracked source files: path and blob. */
function treeOf(commit: string): Map<string, string> {
  const listing = git(["ls-tree", "-r", `${commit}^`]).toString();
  const tree = new Map<string, string>();
  for (const line of listing.split("\n")) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(line);
    if (match && languageOf(match[2])) tree.set(match[2], match[1]);
  }
  return tree;
}

const parsedBlobs = new Map<string, Omit<FileOutline, "real" | "shown"> | null>();

/** Parses the blobs not parsed yet, in batches, through the workers. */
async function parseBlobs(tree: Map<string, string>): Promise<void> {
  const wanted = [...tree].filter(([, blob]) => !parsedBlobs.has(blob));
  if (wanted.length === 0) return;
  const output = git(["cat-file", "--batch"], wanted.map(([, blob]) => blob).join("\n") + "\n");
  const texts: string[] = [];
  let at = 0;
  for (let i = 0; i < wanted.length; i++) {
    const end = output.indexOf(10, at);
    const size = Number(output.subarray(at, end).toString().split(" ")[2]);
    texts.push(output.subarray(end + 1, end + 1 + size).toString("utf8"));
    at = end + 1 + size + 1;
  }
  for (let i = 0; i < wanted.length; i += 32) {
    const slice = wanted.slice(i, i + 32);
    const outcomes = await parseBatch(slice.map(([path], k) => ({
      lang: languageOf(path)!,
      text: texts[i + k],
      symbols: true,
      identifiers: true,
    })));
    for (const [k, outcome] of outcomes.entries()) {
      parsedBlobs.set(slice[k][1], "failed" in outcome ? null : outlineOf(outcome));
    }
  }
}

interface Scores {
  shown: number[];
  reciprocal: number[];
  recall10: number[];
}

/** The files in map order (by their best definition), and those the default map shows. */
async function mapOrder(
  files: FileOutline[],
  method: Method,
  inPlay: number,
): Promise<{ order: string[]; shown: Set<string> }> {
  const ranked = await rankDefinitions(files, {
    method: method.method,
    inPlay: method.personal ? new Set([inPlay]) : undefined,
  });
  const playing = files[inPlay].real;
  const others = ranked.filter((r) => r.file.real !== playing);
  const order: string[] = [];
  const seen = new Set<string>();
  for (const r of others) {
    if (!seen.has(r.file.real)) order.push(r.file.real);
    seen.add(r.file.real);
  }
  // Files with no definitions at all come last, in tree order.
  for (const file of files) {
    if (!seen.has(file.real) && file.real !== playing) order.push(file.real);
  }
  const shown = new Set(mapLines(others, MAP_CHARS).shown.map((r) => r.file.real));
  return { order, shown };
}

export async function rankEvaluation(
  count: number,
  ref: string,
  progress: (text: string) => void,
): Promise<{ table: string; tasks: number; trials: number }> {
  const found = tasks(count, ref);
  const scores = new Map(METHODS.map((m) => [m.name, { shown: [], reciprocal: [], recall10: [] }]));
  let trials = 0;
  for (const [n, task] of found.entries()) {
    progress(`rank evaluation: commit ${n + 1} of ${found.length} (${task.commit.slice(0, 8)})`);
    const tree = treeOf(task.commit);
    await parseBlobs(tree);
    const files: FileOutline[] = [];
    for (const [path, blob] of tree) {
      const outline = parsedBlobs.get(blob);
      if (outline) files.push({ real: path, shown: path, ...outline });
    }
    const index = new Map(files.map((file, i) => [file.real, i]));
    const changed = task.files.filter((path) => index.has(path));
    if (changed.length < MIN_FILES) continue;
    for (const playing of changed) {
      const targets = changed.filter((path) => path !== playing);
      trials++;
      for (const method of METHODS) {
        const { order, shown } = await mapOrder(files, method, index.get(playing)!);
        const score = scores.get(method.name)! as Scores;
        score.shown.push(targets.filter((t) => shown.has(t)).length / targets.length);
        const first = Math.min(...targets.map((t) => order.indexOf(t)).filter((i) => i >= 0));
        score.reciprocal.push(Number.isFinite(first) ? 1 / (first + 1) : 0);
        const top = new Set(order.slice(0, 10));
        score.recall10.push(targets.filter((t) => top.has(t)).length / targets.length);
      }
    }
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / (values.length || 1);
  const rows = METHODS.map((m) => {
    const s = scores.get(m.name)! as Scores;
    return [
      m.name,
      `${(mean(s.shown) * 100).toFixed(1)} %`,
      mean(s.reciprocal).toFixed(3),
      `${(mean(s.recall10) * 100).toFixed(1)} %`,
    ];
  });
  const table = markdownTable(
    ["ranking", "other changed files shown (6,000 chars)", "MRR", "recall@10 files"],
    rows,
  );
  return { table, tasks: found.length, trials };
}

if (import.meta.main) {
  const count = Number(Deno.args[0] ?? 80);
  const ref = Deno.args[1] ?? "HEAD";
  try {
    const { table, tasks, trials } = await rankEvaluation(
      count,
      ref,
      (text) => process.stderr.write(`${text}\n`),
    );
    process.stdout.write(
      `${tasks} commits of ${ref}, ${trials} (commit, file in play) trials\n\n${table}\n`,
    );
  } finally {
    stopParseWorkers();
  }
}
