/**
 * copy_file, delete_file, write_file's append and read_file's `paths` and negative offset through
 * the compiled binary; --read-only offers none of the tools that change files.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

test("copy a tree, append to a file, read the tails of several files, delete the tree", async () => {
  const root = scratch("cd-root");
  const outside = scratch("cd-out");
  writeFileSync(join(outside, "secret"), "secret\n");
  mkdirSync(join(root, "src", "lib"), { recursive: true });
  writeFileSync(join(root, "src", "lib", "a.ts"), "export const a = 1;\n");
  symlinkSync(outside, join(root, "src", "out"));
  const c = e2e.server({ args: ["--root", root] });

  const copied = await callTool(c, "copy_file", {
    source: "src",
    destination: "dst",
    recursive: true,
  });
  assert.equal(copied.isError, false, copied.text);
  assert.equal(copied.text, "Copied src to dst (3 entries, 20 bytes of files).");
  assert.equal(readFileSync(join(root, "dst", "lib", "a.ts"), "utf8"), "export const a = 1;\n");
  assert.equal(readlinkSync(join(root, "dst", "out")), outside);

  for (const line of ["one", "two", "three"]) {
    const appended = await callTool(c, "write_file", {
      path: "log.txt",
      content: `${line}\n`,
      mode: "append",
    });
    assert.equal(appended.isError, false, appended.text);
  }
  assert.equal(readFileSync(join(root, "log.txt"), "utf8"), "one\ntwo\nthree\n");

  const read = await callTool(c, "read_file", { paths: ["log.txt", "dst/lib/a.ts"], offset: -2 });
  assert.equal(read.isError, false, read.text);
  assert.match(read.text, /^==> log\.txt <==\n {5}2\ttwo\n {5}3\tthree\n/);
  assert.match(read.text, /==> dst\/lib\/a\.ts <==\n {5}1\texport const a = 1;/);

  const refused = await callTool(c, "delete_file", { path: "dst" });
  assert.equal(refused.isError, true);
  const deleted = await callTool(c, "delete_file", { path: "dst", recursive: true });
  assert.equal(deleted.isError, false, deleted.text);
  assert.equal(existsSync(join(root, "dst")), false);
  assert.equal(readFileSync(join(outside, "secret"), "utf8"), "secret\n");
  const rootRefused = await callTool(c, "delete_file", { path: ".", recursive: true });
  assert.match(rootRefused.text, /is an allowed root/);
});

test("--read-only offers neither copy_file, delete_file nor write_file", async () => {
  const client = e2e.server({ args: ["--root", scratch("cd-ro"), "--read-only"] });
  const reply = await client.request("tools/list", modern({}));
  const names = (reply.result!.tools as { name: string }[]).map((t) => t.name);
  assert.ok(names.includes("read_file"));
  for (const name of ["copy_file", "delete_file", "write_file"]) {
    assert.equal(names.includes(name), false, name);
  }
});
