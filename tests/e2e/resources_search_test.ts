/**
 * resources/search, toolhost's announced extension, through the compiled binary with raw lines:
 * a case-insensitive query over the resources and templates in force and the files under the
 * roots by name, ranked, paginated and bounded, in both eras. Standard clients never call it.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { before, test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, type RawClient } from "../helpers/raw_client.ts";

const e2e = e2eFixture();
let root: string;
let client: RawClient;

before(async () => {
  root = e2e.file.scratch("search");
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  mkdirSync(join(root, "ignored"));
  writeFileSync(join(root, ".gitignore"), "ignored/\n");
  writeFileSync(join(root, "Plan-Notes.md"), "# notes\n");
  writeFileSync(join(root, "src", "deep", "planner.ts"), "export {};\n");
  writeFileSync(join(root, "ignored", "plan.txt"), "hidden\n");
  for (let i = 0; i < 120; i++) writeFileSync(join(root, "src", `many_${i}.txt`), "");
  client = e2e.file.server({ args: ["--root", root], cwd: root });
  await client.initialize();
});

type Found = { uri?: string; uriTemplate?: string; name: string };

async function search(params: Record<string, unknown>, legacy = true) {
  const reply = await client.request("resources/search", legacy ? params : modern(params));
  assert.ok(reply.result, JSON.stringify(reply.error));
  return reply.result as { results: Found[]; nextCursor?: string; resultType?: string };
}

test("it is announced in capabilities.experimental in both eras", async () => {
  const c = e2e.server({ args: ["--root", root], cwd: root });
  try {
    const init = await c.initialize();
    const caps = (init.result as { capabilities: Record<string, Record<string, unknown>> })
      .capabilities;
    assert.deepEqual(Object.keys(caps.experimental), ["resources/search"]);
    const discovered = await c.request("server/discover", modern());
    const modernCaps = (discovered.result as { capabilities: Record<string, unknown> })
      .capabilities as Record<string, Record<string, unknown>>;
    assert.ok("resources/search" in modernCaps.experimental);
  } finally {
    await c.close();
  }
});

test("fixed resources, templates and files by name, best match first, whatever the case", async () => {
  const { results } = await search({ query: "PLAN" });
  const names = results.map((r) => r.name);
  // toolhost://plan is named "plan" exactly; then names starting with it; then holding it.
  assert.equal(names[0], "plan");
  assert.ok(names.includes("Plan-Notes.md"));
  assert.ok(names.includes("planner.ts"));
  assert.ok(!results.some((r) => r.uri?.includes("/ignored/")), "ignored files are not offered");
  const notes = results.find((r) => r.name === "Plan-Notes.md")!;
  assert.equal(notes.uri, pathToFileURL(join(root, "Plan-Notes.md")).href);
  const read = await client.request("resources/read", { uri: notes.uri });
  assert.match(JSON.stringify(read.result), /# notes/);
});

test("templates match too, and a modern request gets a complete, uncached result", async () => {
  const found = await search({ query: "file:///" }, false);
  assert.ok(found.results.some((r) => r.uriTemplate === "file:///{+path}"));
  assert.equal(found.resultType, "complete");
});

test("results come in pages that a cursor walks", async () => {
  const first = await search({ query: "many_" });
  assert.equal(first.results.length, 100);
  assert.ok(first.nextCursor);
  const second = await search({ query: "many_", cursor: first.nextCursor });
  assert.equal(second.results.length, 20);
  assert.equal(second.nextCursor, undefined);
  const all = new Set([...first.results, ...second.results].map((r) => r.uri));
  assert.equal(all.size, 120);
});

test("an empty, missing or overlong query is -32602, and nothing found is an empty list", async () => {
  for (
    const params of [{}, { query: "" }, { query: "  " }, { query: "x".repeat(201) }, { query: 5 }]
  ) {
    const reply = await client.request("resources/search", params);
    assert.equal(reply.error?.code, -32602, JSON.stringify(params));
    assert.match(reply.error!.message, /params\.query/);
  }
  assert.deepEqual((await search({ query: "zzz-nothing-zzz" })).results, []);
});
