/**
 * The roots themselves, and the paths around the held tree, through the binary: a root is looked
 * up by name once, when it is established, so renaming it or putting a symbolic link in its place
 * (even from inside another root) never widens the sandbox; a move across file systems, ignore
 * files and hard links never reach outside either.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";

let clients: RawClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));

function open(args: string[]): RawClient {
  const client = new RawClient(PRODUCT_BINARY, args);
  clients.push(client);
  return client;
}

async function text(c: RawClient, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await c.request("tools/call", modern({ name, arguments: args }));
  const result = reply.result as { content?: { text: string }[] } | undefined;
  return result?.content?.map((part) => part.text).join("\n") ??
    JSON.stringify(reply.error ?? reply);
}

const SECRET = "TOPSECRET-outside";

test("a root retargeted or renamed after the server started never leads outside it", async () => {
  const base = scratch("rootswap");
  mkdirSync(join(base, "out"));
  mkdirSync(join(base, "proj", "work"), { recursive: true });
  writeFileSync(join(base, "out", "secret"), `${SECRET}\n`);
  writeFileSync(join(base, "proj", "mine.txt"), "mine\n");
  symlinkSync("proj", join(base, "link"));

  // The root given through a link: the link retargeted at a folder outside.
  const c = open(["--root", join(base, "link"), "--read-only"]);
  assert.match(await text(c, "read_file", { path: "mine.txt" }), /mine/);
  unlinkSync(join(base, "link"));
  symlinkSync("out", join(base, "link"));
  assert.doesNotMatch(
    await text(c, "read_file", { path: join(base, "out", "secret") }),
    /TOPSECRET/,
  );
  assert.doesNotMatch(await text(c, "read_file", { path: "secret" }), /TOPSECRET/);
  assert.doesNotMatch(await text(c, "grep", { pattern: "TOPSECRET", path: "." }), /TOPSECRET/);
  assert.match(await text(c, "read_file", { path: "mine.txt" }), /mine/);
  assert.match(await text(c, "list_roots", {}), new RegExp(`${base}/proj`));

  // The root named directly: renamed away, a symlink to / in its place.
  const d = open(["--root", join(base, "proj"), "--read-only"]);
  assert.match(await text(d, "read_file", { path: "mine.txt" }), /mine/);
  renameSync(join(base, "proj"), join(base, "proj.old"));
  symlinkSync("/", join(base, "proj"));
  for (const path of [join(base, "out", "secret"), "/etc/hostname", "etc/hostname"]) {
    const answer = await text(d, "read_file", { path });
    assert.doesNotMatch(answer, /TOPSECRET/);
    assert.match(answer, /outside the allowed roots|moved or replaced|none of the allowed roots/);
  }
  assert.match(await text(d, "list_roots", {}), /moved or replaced/);
});

test("a root nested in another cannot be replaced from inside the outer one to reach outside", async () => {
  const base = scratch("nestedroot");
  mkdirSync(join(base, "proj", "lib"), { recursive: true });
  mkdirSync(join(base, "out"));
  writeFileSync(join(base, "out", "secret"), `${SECRET}\n`);
  const c = open(["--root", join(base, "proj"), "--root", join(base, "proj", "lib")]);
  assert.doesNotMatch(
    await text(c, "read_file", { path: join(base, "out", "secret") }),
    /TOPSECRET/,
  );
  // Everything below happens inside the outer root.
  renameSync(join(base, "proj", "lib"), join(base, "proj", "lib.old"));
  symlinkSync("/", join(base, "proj", "lib"));
  assert.doesNotMatch(
    await text(c, "read_file", { path: join(base, "out", "secret") }),
    /TOPSECRET/,
  );
  await text(c, "write_file", { path: join(base, "out", "planted"), content: "pwned\n" });
  await text(c, "delete_file", { path: join(base, "out", "secret") });
  await text(c, "write_file", {
    path: join(base, "proj", "lib", join(base, "out", "p2")),
    content: "x",
  });
  assert.deepEqual(readdirSync(join(base, "out")), ["secret"]);
  assert.equal(existsSync(join(base, "out", "secret")), true);
  // The outer root still works, through its own held directory.
  assert.match(
    await text(c, "write_file", { path: join(base, "proj", "lib.old", "ok.txt"), content: "ok\n" }),
    /ok\.txt|Wrote|wrote|Created|created/,
  );
  assert.equal(readFileSync(join(base, "proj", "lib.old", "ok.txt"), "utf8"), "ok\n");
});
