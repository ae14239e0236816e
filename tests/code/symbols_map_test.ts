/**
 * symbols map in-process: `focus` (the files in play rank what they use first and are left out;
 * a focus that is not a parsable file is refused with a sentence), and the disk cache read as
 * untrusted input (a torn or malformed line, a wrong header, a FIFO in its place: each line
 * checked, what fails parsed again from source, never a hang).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import symbols from "../../tools/code/symbols.ts";
import { stopParseWorkers } from "../../tools/code/_lib/parse/mod.ts";
import { versionOf } from "../../tools/code/_lib/source_files.ts";
import { projectStateDir } from "../../tools/_lib/state.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { currentStateDir, scratchStateDir } from "../helpers/state_dir.ts";

scratchStateDir();
after(() => stopParseWorkers());

interface Row {
  path: string;
  namePath: string;
}

const paths = (data: Record<string, unknown>) => (data.symbols as Row[]).map((r) => r.path);

/**
 * `popular.ts` is used by ten files; `task.ts` alone uses `helperForTask` of `helper.ts`, which
 * nothing else uses.
 */
function project(): string {
  const root = scratchDir("toolhost-symbols-map-");
  writeFileSync(join(root, "popular.ts"), "export function popularThing() {}\n");
  for (let i = 0; i < 10; i++) {
    writeFileSync(
      join(root, `user${i}.ts`),
      `import { popularThing } from "./popular.ts";\nexport function userNumber${i}() {\n  popularThing();\n}\n`,
    );
  }
  writeFileSync(join(root, "helper.ts"), "export function helperForTask() {}\n");
  writeFileSync(
    join(root, "task.ts"),
    'import { helperForTask } from "./helper.ts";\nexport function runTheTask() {\n  helperForTask();\n}\n',
  );
  return root;
}

test("map ranks what the focus files use first and leaves them out", async () => {
  const root = project();
  const plain = await callInRoots(symbols, [root], { operation: "map" });
  assert.equal(paths(plain.data)[0], "popular.ts");
  assert.ok(paths(plain.data).includes("task.ts"));
  assert.match(plain.text, /^\[map of 13 definitions in 13 files, most used first;/);

  const focused = await callInRoots(symbols, [root], { operation: "map", focus: ["task.ts"] });
  assert.equal(focused.result.isError, undefined, focused.text);
  assert.deepEqual((focused.data.symbols as Row[])[0], {
    ...(focused.data.symbols as Row[])[0],
    path: "helper.ts",
    namePath: "helperForTask",
  });
  assert.ok(!paths(focused.data).includes("task.ts"), focused.text);
  assert.match(focused.text, /ranked from the files in play \(task\.ts, left out\)/);
});

test("map refuses a focus that is missing, a directory, not parsable, or of too many files", async () => {
  const root = project();
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "notes.txt"), "plain text\n");
  const cases: [string, RegExp][] = [
    ["gone.ts", /^focus: gone\.ts does not exist$/],
    ["dir", /^focus: dir is not a file \(name the files you work on\)$/],
    ["notes.txt", /^focus: notes\.txt is not in a language the built-in parser knows$/],
  ];
  for (const [focus, expected] of cases) {
    const reply = await callInRoots(symbols, [root], { operation: "map", focus: [focus] });
    assert.equal(reply.result.isError, true, focus);
    assert.match(reply.text, expected);
  }
  const many = Array.from({ length: 21 }, (_, i) => `user${i % 10}.ts`);
  const tooMany = await callInRoots(symbols, [root], { operation: "map", focus: many });
  assert.equal(tooMany.text, "focus: at most 20 files (the ones you work on), not 21");
});

/** The cache file of the project whose first root is `root`. */
async function cacheFile(root: string): Promise<string> {
  return join(await projectStateDir(currentStateDir(), root), "parse-cache.jsonl");
}

const HEADER = JSON.stringify({ format: "toolhost parse cache", version: 2 });

/** A line as the cache writes it, for `file` as it is now, with one function named `name`. */
function entry(root: string, file: string, name: string, line = 1): string {
  const real = join(root, file);
  return JSON.stringify([
    real,
    versionOf(statSync(real)),
    [[name, "function", name, line, 1, `function ${name}() {}`, 0, 0]],
    [],
    [],
  ]);
}

/** A line saying that `file`, as it is now, failed for `why`. */
function failure(root: string, file: string, why: string): string {
  const real = join(root, file);
  return JSON.stringify([real, versionOf(statSync(real)), why]);
}

test("the disk cache's lines are each checked: what fails is parsed from source", async () => {
  const root = scratchDir("toolhost-symbols-cache-");
  for (const name of ["kept", "malformed", "negative", "torn", "complex", "excuse"]) {
    writeFileSync(join(root, `${name}.ts`), `export function ${name}FromSource() {}\n`);
  }
  writeFileSync(
    await cacheFile(root),
    [
      HEADER,
      entry(root, "kept.ts", "keptFromCache"),
      "{not json",
      entry(root, "negative.ts", "negativeFromCache", -3),
      JSON.stringify(["relative.ts", "1:2:3", [], [], []]),
      failure(
        root,
        "complex.ts",
        "skipped: too complex (its syntax tree would take more than 32 MB)",
      ),
      // Only the failures a file's text decides are kept: any other reason is not believed.
      failure(root, "excuse.ts", "no reason at all"),
      entry(root, "torn.ts", "tornFromCache").slice(0, 40),
    ].join("\n"),
  );
  const { data, text } = await callInRoots(symbols, [root], { operation: "map" });
  const names = (data.symbols as Row[]).map((r) => r.namePath).sort();
  // The well-formed entry of an unchanged file is taken (its version matches); the others are
  // parsed again from the files.
  assert.deepEqual(names, [
    "excuseFromSource",
    "keptFromCache",
    "malformedFromSource",
    "negativeFromSource",
    "tornFromSource",
  ]);
  assert.equal(data.parsed, 4);
  assert.match(text, /\[1 file not parsed, e\.g\. complex\.ts: skipped: too complex \(/);
});

test("a disk cache with a foreign header is ignored, and a FIFO in its place does not hang", async () => {
  const foreign = scratchDir("toolhost-symbols-cache-");
  writeFileSync(join(foreign, "a.ts"), "export function fromSource() {}\n");
  writeFileSync(
    await cacheFile(foreign),
    `{"format":"other"}\n${entry(foreign, "a.ts", "fake")}\n`,
  );
  const first = await callInRoots(symbols, [foreign], { operation: "map" });
  assert.deepEqual([(first.data.symbols as Row[])[0].namePath, first.data.parsed], [
    "fromSource",
    1,
  ]);

  if (process.platform === "win32") return; // no FIFOs
  const fifo = scratchDir("toolhost-symbols-cache-");
  writeFileSync(join(fifo, "b.ts"), "export function alsoFromSource() {}\n");
  execFileSync("mkfifo", [await cacheFile(fifo)]);
  const second = await callInRoots(symbols, [fifo], { operation: "map" });
  assert.deepEqual([(second.data.symbols as Row[])[0].namePath, second.data.parsed], [
    "alsoFromSource",
    1,
  ]);
});
