/**
 * The roots themselves, and the paths around the held tree, through the binary: a root is looked
 * up by name once, when it is established, so renaming it or putting a symbolic link in its place
 * (even from inside another root) never widens the sandbox; a move across file systems, ignore
 * files and hard links never reach outside either.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

function open(args: string[]): RawClient {
  const client = e2e.server({ args });
  return client;
}

async function text(c: RawClient, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await c.request("tools/call", modern({ name, arguments: args }));
  const result = reply.result as { content?: { text: string }[] } | undefined;
  return result?.content?.map((part) => part.text).join("\n") ??
    JSON.stringify(reply.error ?? reply);
}

const SECRET = "TOPSECRET-outside";

test(
  "a root retargeted or renamed after the server started never leads outside it",
  posixOnly("links to /etc"),
  async () => {
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
  },
);

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

/**
 * Waits for PARENT/.toolhost-*.tmp (the copy's temporary directory), puts a symlink "zz" to
 * OUTSIDE in it and keeps exchanging tmp/SUB with tmp/zz for SECONDS.
 */
const TMP_SWAPPER = `
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc != 5) return 2;
  time_t end = time(0) + atoi(argv[4]);
  char tmp[512];
  while (time(0) < end) {
    DIR *d = opendir(argv[1]); if (!d) return 1;
    struct dirent *e; tmp[0] = 0;
    while ((e = readdir(d))) if (!strncmp(e->d_name, ".toolhost-", 10)) {
      snprintf(tmp, sizeof tmp, "%s/%s", argv[1], e->d_name); break;
    }
    closedir(d);
    if (!tmp[0]) continue;
    int t = open(tmp, O_RDONLY | O_DIRECTORY); if (t < 0) continue;
    symlinkat(argv[3], t, "zz");
    for (int i = 0; i < 2000000 && time(0) < end; i++) {
      if (syscall(SYS_renameat2, t, argv[2], t, "zz", 2) != 0 && faccessat(t, ".", F_OK, 0) != 0) {
        break;
      }
    }
    close(t);
  }
  return 0;
}
`;

test(
  "a move across file systems never writes, overwrites or removes outside the roots",
  posixOnly("/dev/shm for a second filesystem"),
  async (t) => {
    const shm = "/dev/shm";
    const base = scratch("xdev");
    if (
      process.platform !== "linux" || !existsSync(shm) || statSync(shm).dev === statSync(base).dev
    ) {
      t.skip("needs /dev/shm on another file system than the temporary directory");
      return;
    }
    try {
      writeFileSync(join(base, "tmpswap.c"), TMP_SWAPPER);
      execFileSync("cc", ["-O2", "-o", join(base, "tmpswap"), join(base, "tmpswap.c")], {
        stdio: "ignore",
      });
    } catch {
      t.skip("no C compiler for the swapper");
      return;
    }
    const other = realpathSync(mkdtempSync(join(shm, "toolhost-xdev-")));
    try {
      mkdirSync(join(base, "r1"));
      mkdirSync(join(base, "victim"));
      writeFileSync(join(base, "victim", "authorized_keys"), "ORIGINAL\n");
      const c = open(["--root", join(base, "r1"), "--root", other]);
      for (let attempt = 0; attempt < 10; attempt++) {
        const source = join(other, `src${attempt}`);
        mkdirSync(join(source, "sub"), { recursive: true });
        for (let i = 0; i < 400; i++) writeFileSync(join(source, "sub", `f${i}`), "x");
        writeFileSync(join(source, "sub", "authorized_keys"), "ATTACKER\n");
        const swap = spawn(join(base, "tmpswap"), [
          join(base, "r1"),
          "sub",
          join(base, "victim"),
          "1",
        ]);
        const swapped = new Promise((done) => swap.once("exit", done));
        await new Promise((done) => setTimeout(done, 20));
        await text(c, "move_file", { source, destination: join(base, "r1", `dst${attempt}`) });
        await swapped;
        assert.deepEqual(
          readdirSync(join(base, "victim")),
          ["authorized_keys"],
          `attempt ${attempt}`,
        );
        assert.equal(readFileSync(join(base, "victim", "authorized_keys"), "utf8"), "ORIGINAL\n");
      }
      // And a plain move across file systems still works: a file and a tree with a link in it.
      mkdirSync(join(other, "tree", "deep"), { recursive: true });
      writeFileSync(join(other, "tree", "deep", "f.txt"), "tree file\n");
      symlinkSync("deep/f.txt", join(other, "tree", "link"));
      writeFileSync(join(other, "one.txt"), "one\n");
      assert.match(
        await text(c, "move_file", {
          source: join(other, "tree"),
          destination: join(base, "r1", "tree"),
        }),
        /copied across filesystems/,
      );
      assert.match(
        await text(c, "move_file", {
          source: join(other, "one.txt"),
          destination: join(base, "r1", "one.txt"),
        }),
        /copied across filesystems/,
      );
      assert.equal(readFileSync(join(base, "r1", "tree", "link"), "utf8"), "tree file\n");
      assert.equal(readFileSync(join(base, "r1", "one.txt"), "utf8"), "one\n");
      assert.equal(existsSync(join(other, "tree")) || existsSync(join(other, "one.txt")), false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  },
);

test("append refuses a file with other hard links; a trailing slash never names a file", async () => {
  const base = scratch("hardlink");
  mkdirSync(join(base, "root"));
  mkdirSync(join(base, "out"));
  writeFileSync(join(base, "out", "victim"), "ORIGINAL\n");
  linkSync(join(base, "out", "victim"), join(base, "root", "h.txt"));
  writeFileSync(join(base, "root", "f.txt"), "one\n");
  const c = open(["--root", join(base, "root")]);
  assert.match(
    await text(c, "write_file", { path: "h.txt", content: "pwned\n", mode: "append" }),
    /has 2 hard links; append would change them all/,
  );
  assert.equal(readFileSync(join(base, "out", "victim"), "utf8"), "ORIGINAL\n");
  assert.match(
    await text(c, "write_file", { path: "f.txt", content: "two\n", mode: "append" }),
    /Appended/,
  );
  assert.equal(readFileSync(join(base, "root", "f.txt"), "utf8"), "one\ntwo\n");
  for (const path of ["f.txt/", "f.txt//", "f.txt/.", "."]) {
    assert.match(await text(c, "write_file", { path, content: "x" }), /ends with a slash/, path);
  }
  assert.equal(readFileSync(join(base, "root", "f.txt"), "utf8"), "one\ntwo\n");
});
