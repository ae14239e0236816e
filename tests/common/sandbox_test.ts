/** The filesystem sandbox: what is inside the roots, and every way out that must be refused. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { ToolError } from "../../mcp/tool/mod.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";

const test = posixOnlyTest(
  "POSIX paths and symlinks to /etc (Windows rules: windows_paths_test.ts)",
);

/** A scratch tree: root/app (the root), root/app2 (a sibling with the same prefix), outside links. */
function scratch() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-sandbox-")));
  const app = join(top, "app");
  mkdirSync(join(app, "src"), { recursive: true });
  mkdirSync(join(top, "app2"));
  writeFileSync(join(app, "src", "a.ts"), "a");
  writeFileSync(join(top, "app2", "secret"), "s");
  symlinkSync("/etc", join(app, "etc-link"));
  symlinkSync(join(top, "app2"), join(app, "sibling-link"));
  symlinkSync(join(app, "src"), join(app, "src-link"));
  return { top, app, sandbox: () => Sandbox.of({ roots: () => Promise.resolve([app]) }) };
}

async function refused(sandbox: Sandbox, path: string) {
  await assert.rejects(sandbox.resolve(path), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.match(error.message, /outside the allowed roots/);
    assert.match(error.message, /Allowed roots: /);
    return true;
  }, path);
}

test("paths inside the root resolve, relative ones from the first root", async () => {
  const { app, sandbox } = scratch();
  const box = await sandbox();
  const real = async (path: string) => {
    const { real, exists } = await box.resolve(path);
    return { real, exists };
  };
  assert.deepEqual(await real("src/a.ts"), { real: join(app, "src", "a.ts"), exists: true });
  assert.deepEqual(await real(join(app, "src")), { real: join(app, "src"), exists: true });
  assert.deepEqual(await real("."), { real: app, exists: true });
  assert.deepEqual(await real("new/dir/file.txt"), {
    real: join(app, "new", "dir", "file.txt"),
    exists: false,
  });
  assert.deepEqual(await real("src-link/a.ts"), { real: join(app, "src", "a.ts"), exists: true });
  assert.equal((await box.resolve("src-link/a.ts")).absolute, join(app, "src-link", "a.ts"));
  // Through a file as if it were a directory: it does not exist, and it is inside.
  assert.deepEqual(await real("src/a.ts/sub/x"), {
    real: join(app, "src", "a.ts", "sub", "x"),
    exists: false,
  });
});

test("escapes are refused: ../, a sibling with the same prefix, symlinks out, a symlinked parent", async () => {
  const { top, sandbox } = scratch();
  const box = await sandbox();
  await refused(box, "../app2/secret");
  await refused(box, join(top, "app2", "secret"));
  await refused(box, join(top, "app2"));
  await refused(box, "src/../../app2");
  await refused(box, "etc-link/passwd");
  await refused(box, "etc-link");
  await refused(box, "sibling-link/secret");
  await refused(box, "sibling-link/new-file.txt"); // the parent is a symlink out; the file is new
  await refused(box, "/etc/passwd");
  await refused(box, "/");
});

test("a root's own symlink is followed once, and NUL bytes and home paths are handled", async () => {
  const { app, top } = scratch();
  symlinkSync(app, join(top, "app-link"));
  const box = await Sandbox.of({ roots: () => Promise.resolve([join(top, "app-link")]) });
  assert.deepEqual(box.roots, [app]);
  assert.equal((await box.resolve("src/a.ts")).real, join(app, "src", "a.ts"));
  await assert.rejects(box.resolve("src/a\0.ts"), /NUL byte/);
  if (!realpathSync(homedir()).startsWith(app)) await refused(box, "~/.ssh/id_rsa");
});

test("a root that does not exist allows nothing", async () => {
  await assert.rejects(
    Sandbox.of({ roots: () => Promise.resolve(["/no/such/root"]) }),
    /none of the allowed roots exists: \/no\/such\/root/,
  );
});

test("display shows paths relative to the first root", async () => {
  const { app, sandbox } = scratch();
  const box = await sandbox();
  assert.equal(box.display(join(app, "src", "a.ts")), "src/a.ts");
  assert.equal(box.display(app), ".");
});
