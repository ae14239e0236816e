/**
 * `symbols map` at scale through the compiled binary: a generated tree of 3,000 files mapped
 * with progress by counts while pings are answered, its parse cache on disk when it answers (the
 * server killed then), then a new session warm from that cache (only the file changed since is
 * parsed again) whose map with a file in play (`focus`) puts the
 * modules it imports first; issue 36 §4's hostile files each skipped as too complex with the
 * process's peak memory bounded, the other file mapped and pings answered.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { afterEach, test } from "node:test";
import { writeCodeTree, writeHostileFiles } from "../../scripts/bench/code_tree.ts";
import { type Message, modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { callTool, toolReply } from "../helpers/tool_calls.ts";

const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));

function start(root: string, state: string) {
  const c = new RawClient(PRODUCT_BINARY, ["--root", root], root, { TOOLHOST_STATE_DIR: state });
  clients.push(c);
  return c;
}

/** A map on a loaded machine may take minutes; the test asserts what it did, not how fast. */
const MAP_TIMEOUT_MS = 600_000;

/**
 * Sends `tools/call` map with a progress token, and pings one after another until it answers:
 * the reply, the progress notifications and the pings answered before it, in order of arrival.
 */
async function mapWhilePinging(c: RawClient, token: string) {
  const id = c.start(
    "tools/call",
    modern({ name: "symbols", arguments: { operation: "map", max_chars: 2_000 } }, {
      progressToken: token,
    }),
    `map-${token}`,
  );
  const reply = c.responseTo(id, MAP_TIMEOUT_MS);
  let answered = false;
  void reply.then(() => (answered = true), () => (answered = true));
  const pings = new Set<string | number>();
  while (!answered) {
    const ping = c.start("ping"); // a request without a version: the legacy era's ping
    pings.add(ping);
    const pong = await c.responseTo(ping, MAP_TIMEOUT_MS);
    assert.ok(pong.result, JSON.stringify(pong));
  }
  const answer = await reply;
  const at = c.messages.indexOf(answer);
  const pingsBefore = c.messages.slice(0, at).filter((m) => pings.has(m.id as string | number))
    .length;
  const progress = c.messages.slice(0, at).filter((m: Message) =>
    m.method === "notifications/progress" &&
    (m.params as { progressToken?: string }).progressToken === token
  ).map((m) => m.params as { progress: number; total?: number; message?: string });
  return { result: toolReply(answer, "symbols"), progress, pingsBefore };
}

/** How many files' lines the project's parse cache under `state` holds now (0: none). */
function cachedLines(state: string): number {
  const projects = join(state, "projects");
  let lines = 0;
  for (const project of existsSync(projects) ? readdirSync(projects) : []) {
    const cache = join(projects, project, "parse-cache.jsonl");
    // The header, then a line per file, each ended by a newline.
    if (existsSync(cache)) lines += readFileSync(cache, "utf8").split("\n").length - 2;
  }
  return lines;
}

test("a map of 3,000 files counts its progress and answers pings; a new session is warm from disk", async () => {
  const root = scratch("code-map-tree");
  const state = scratch("code-map-state");
  writeCodeTree(root, 3_000);
  const first = start(root, state);
  const cold = await mapWhilePinging(first, "cold");
  assert.equal(cold.result.isError, false, cold.result.text);
  assert.equal(cold.result.data.files, 3_000);
  assert.equal(cold.result.data.parsed, 3_000);
  // Every module defines a class with a constructor and two methods, a function and a constant.
  assert.equal(cold.result.data.total, 3_000 * 6);
  // The map still parsed while these were answered: its own reply came after them.
  assert.ok(cold.pingsBefore >= 1, `no ping was answered during the map`);
  const counted = cold.progress.filter((p) =>
    /^parsing [\d,]+ of 3,000 files$/.test(p.message ?? "")
  );
  assert.ok(counted.length >= 1, JSON.stringify(cold.progress));
  assert.ok(counted.every((p) => p.total === 3_000 && p.progress <= 3_000));
  const values = cold.progress.map((p) => p.progress);
  assert.deepEqual(values, [...values].sort((a, b) => a - b), "progress went backwards");
  // The cache is written before the map answers: a client that goes at once, even a server
  // killed then (no shutdown hook runs), leaves it whole for the next session.
  first.child.kill("SIGKILL");
  await first.exited;
  assert.equal(cachedLines(state), 3_000);

  // A file changed between the sessions is parsed again; the others come from the disk cache.
  appendFileSync(
    join(root, "pkg7", "mod777.ts"),
    "\nexport function addedLater(): number {\n  return 1;\n}\n",
  );
  const second = start(root, state);
  const warm = await mapWhilePinging(second, "warm");
  assert.equal(warm.result.isError, false, warm.result.text);
  assert.equal(warm.result.data.files, 3_000);
  assert.equal(warm.result.data.parsed, 1);
  assert.equal(warm.result.data.total, 3_000 * 6 + 1);
  const found = await callTool(second, "symbols", { operation: "find", name: "addedLater" });
  assert.match(found.text, /pkg7\/mod777\.ts:\d+-\d+ function addedLater/);
  // The same ranking from the cache as from the parse, but for the file that changed.
  const shown = (r: typeof cold) =>
    (r.result.data.symbols as { path: string; namePath: string }[])
      .filter((s) => s.path !== "pkg7/mod777.ts")
      .map((s) => `${s.path} ${s.namePath}`);
  assert.deepEqual(shown(warm).slice(0, 10), shown(cold).slice(0, 10));

  // With a file in play, the modules it imports come first, and it is left out.
  const imported = [
    ...readFileSync(join(root, "pkg0", "mod0.ts"), "utf8").matchAll(
      /from "\.\.\/(pkg\d+\/mod\d+\.ts)"/g,
    ),
  ].map((m) => m[1]);
  assert.equal(imported.length, 3);
  const focused = await callTool(second, "symbols", {
    operation: "map",
    focus: ["pkg0/mod0.ts"],
    max_chars: 2_000,
  });
  const rows = focused.data.symbols as { path: string }[];
  assert.ok(!rows.some((r) => r.path === "pkg0/mod0.ts"), focused.text);
  // Their widget and helper each: the names it uses.
  const top = rows.slice(0, 6).map((r) => r.path);
  assert.ok(top.every((path) => imported.includes(path)), focused.text);
  assert.deepEqual(new Set(top), new Set(imported), focused.text);
  assert.equal(focused.data.parsed, 0);
});

/** The process's peak resident memory (VmHWM), in bytes, where /proc tells it. */
function peakRss(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

test("hostile files are each skipped as too complex within bounded memory; the rest is mapped", async () => {
  const root = scratch("code-map-hostile");
  writeHostileFiles(root);
  const state = scratch("code-map-state");
  const c = start(root, state);
  const first = await mapWhilePinging(c, "hostile");
  assert.equal(first.result.isError, false, first.result.text);
  assert.deepEqual(
    (first.result.data.symbols as { path: string; namePath: string }[]).map((s) =>
      `${s.path} ${s.namePath}`
    ),
    ["fine.py fine"],
  );
  assert.deepEqual([first.result.data.skipped, first.result.data.parsed], [4, 5]);
  assert.match(
    first.result.text,
    /\[4 files not parsed, e\.g\. (minus\.rs|not\.ts|ternary\.ts|names\.js): skipped: too complex \(/,
  );
  assert.ok(first.pingsBefore >= 1, "no ping was answered while the hostile files were parsed");
  // Each took tree-sitter 165-412 MB before its work was bounded (the process 409-1,487 MB).
  // 150 MB is the target the bench measures; this leaves room for another runtime's heaps.
  const peak = peakRss(c.child.pid!);
  if (process.platform === "linux") {
    assert.ok(peak !== undefined && peak < 200 * 1024 * 1024, `peak RSS ${peak} bytes`);
  }
  // Unchanged, they are not given to the parser again: not by this session, nor by the next
  // (the disk cache keeps why they failed).
  const again = await callTool(c, "symbols", { operation: "map" }, { timeoutMs: MAP_TIMEOUT_MS });
  assert.deepEqual([again.data.skipped, again.data.parsed], [4, 0]);
  const outline = await callTool(c, "symbols", { operation: "outline", path: "fine.py" });
  assert.match(outline.text, /fine\.py:1-2 function fine/);
  await c.close();
  const next = start(root, state);
  const warm = await callTool(next, "symbols", { operation: "map" }, { timeoutMs: MAP_TIMEOUT_MS });
  assert.deepEqual([warm.data.skipped, warm.data.parsed], [4, 0]);
  assert.equal(warm.text, again.text);
});
