/**
 * The file tools under concurrency and odd file systems, through the binary: calls racing each
 * other cannot carry a write out of the root or lose an edit, and a replaced file keeps its
 * owner, its mode and whatever the user protected.
 */
import assert from "node:assert/strict";
import {
  chownSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

function open(root: string) {
  return e2e.server({ args: ["--root", root] });
}

const call = (id: string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: modern({ name, arguments: args }),
  });

const textOf = (reply: { result?: Record<string, unknown> }) =>
  (reply.result?.content as { text: string }[])[0].text;

test("a write racing a move that brings a symlink into place never lands outside the root", async () => {
  const root = scratch("race-root");
  const outside = scratch("race-outside");
  const c = open(root);
  for (let round = 0; round < 60; round++) {
    mkdirSync(join(root, `venv${round}`));
    symlinkSync(outside, join(root, `venv${round}`, "bin"));
    // Both in one write: the server reads them together and starts both at once.
    c.sendLine(
      call(`m${round}`, "move_file", { source: `venv${round}`, destination: `x${round}` }) + "\n" +
        call(`w${round}`, "write_file", { path: `x${round}/bin/pwn.txt`, content: "escaped" }),
    );
    await Promise.all([c.responseTo(`m${round}`), c.responseTo(`w${round}`)]);
  }
  assert.deepEqual(readdirSync(outside), [], "nothing was written outside the root");
});

test("parallel edits of one file are applied one after the other; none is lost", async () => {
  const root = scratch("edits");
  const words = Array.from({ length: 20 }, (_, i) => `word${i}`);
  writeFileSync(join(root, "f.txt"), words.join("\n") + "\n");
  const c = open(root);
  c.sendLine(
    words.map((w, i) =>
      call(`e${i}`, "edit_file", {
        path: "f.txt",
        edits: [{ old_string: `${w}\n`, new_string: `${w.toUpperCase()}\n` }],
      })
    )
      .join("\n"),
  );
  const replies = await Promise.all(words.map((_, i) => c.responseTo(`e${i}`)));
  assert.ok(
    replies.every((r) => r.result?.isError === undefined),
    JSON.stringify(replies.map(textOf)),
  );
  assert.equal(
    readFileSync(join(root, "f.txt"), "utf8"),
    words.map((w) => w.toUpperCase()).join("\n") + "\n",
  );
});

test("a replaced file keeps its owner (when the server may keep it) and says it had other hard links", async () => {
  const root = scratch("owner");
  const path = join(root, "owned.txt");
  writeFileSync(path, "v1\n");
  linkSync(path, join(root, "other-name.txt"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(path, 65534, 65534);
  const c = open(root);
  const reply = await c.request(
    "tools/call",
    modern({ name: "write_file", arguments: { path: "owned.txt", content: "v2\n" } }),
  );
  assert.match(textOf(reply), /it had 2 hard links: only this name has the new content/);
  assert.equal(readFileSync(path, "utf8"), "v2\n");
  assert.equal(readFileSync(join(root, "other-name.txt"), "utf8"), "v1\n");
  if (asRoot) assert.deepEqual([statSync(path).uid, statSync(path).gid], [65534, 65534]);
});

test("names of 240 characters can be written and edited (the temporary name stays short)", async () => {
  const root = scratch("long");
  const name = "n".repeat(240) + ".txt";
  writeFileSync(join(root, name), "old\n");
  const c = open(root);
  const written = await c.request(
    "tools/call",
    modern({ name: "write_file", arguments: { path: name, content: "new\n" } }),
  );
  assert.equal(written.result?.isError, undefined, textOf(written));
  const edited = await c.request(
    "tools/call",
    modern({
      name: "edit_file",
      arguments: { path: name, edits: [{ old_string: "new", new_string: "newer" }] },
    }),
  );
  assert.equal(edited.result?.isError, undefined, textOf(edited));
  assert.equal(readFileSync(join(root, name), "utf8"), "newer\n");
  assert.deepEqual(readdirSync(root).filter((f) => f.endsWith(".tmp")), []);
});

test("a name that starts with two dots is shown relative to the root, not as an escape", async () => {
  const root = scratch("dots");
  const c = open(root);
  const reply = await c.request(
    "tools/call",
    modern({ name: "write_file", arguments: { path: "..notes.txt", content: "x" } }),
  );
  assert.match(textOf(reply), /^Created \.\.notes\.txt:/);
});
