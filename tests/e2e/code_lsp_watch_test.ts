/**
 * Changes made outside toolhost (here: the test process writes the files itself, as an editor or
 * `git checkout` would) reach the language servers that ask the client to watch files (issue 34:
 * "for changes made outside toolhost alike"): pyright and gopls, through the compiled binary. The
 * next query after the write answers from the files as they are now; assertions are on what the
 * answer holds. And the watch ends with the server: no inotify watch is left after an idle stop.
 */
import assert from "node:assert/strict";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { missing, ok, PATIENT, project, startOn } from "../helpers/code_servers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { inotifyWatches } from "../helpers/processes.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const POSIX = posixOnly("the servers are found through a POSIX PATH");
const e2e = e2eFixture();

const skipUnless = (server: Parameters<typeof missing>[0]) => ({
  skip: POSIX.skip ?? missing(server),
});

const PY_FILES = {
  "pyproject.toml": "[project]\nname = 'p'\n",
  "m.py": "def f(n: int) -> int:\n    return n\n",
  "u.py": "from m import f\n\nv: int = f(1)\n",
};

test(
  "Python (pyright): a file's diagnostics follow a change made outside toolhost to what it imports",
  POSIX,
  async () => {
    const root = project("py-watch", PY_FILES);
    const c = startOn(e2e, root, [], PATIENT);
    const clean = await ok(c, "code_nav", { operation: "diagnostics", path: "u.py" });
    assert.equal(clean.structured?.count, 0, clean.text);
    for (let round = 0; round < 2; round++) {
      writeFileSync(join(root, "m.py"), "def f(n: str) -> int:\n    return 1\n");
      const broken = await ok(c, "code_nav", { operation: "diagnostics", path: "u.py" });
      assert.match(broken.text, /u\.py:3:12 error \[reportArgumentType\]/, `round ${round}`);
      writeFileSync(join(root, "m.py"), PY_FILES["m.py"]);
      const reverted = await ok(c, "code_nav", { operation: "diagnostics", path: "u.py" });
      assert.equal(reverted.structured?.count, 0, `round ${round}: ${reverted.text}`);
    }
  },
);

const GO_FILES = {
  "go.mod": "module example.com/shop\n\ngo 1.21\n",
  "price.go": "package shop\n\nfunc Price(n int) int {\n\treturn n * 3\n}\n",
  "use.go": "package shop\n\nfunc Total() int {\n\treturn Price(1) + Price(2)\n}\n",
};

test(
  "Go (gopls): references and diagnostics follow files created and changed outside toolhost",
  skipUnless("gopls"),
  async () => {
    const root = project("go-watch", GO_FILES);
    const c = startOn(e2e, root, [], PATIENT);
    const refs = () =>
      ok(c, "code_nav", { operation: "references", path: "price.go", symbol: "Price" });
    assert.match((await refs()).text, /^gopls: 3 results/);
    // A new file no query has opened, calling Price once more.
    writeFileSync(
      join(root, "more.go"),
      "package shop\n\nfunc More() int {\n\treturn Price(5)\n}\n",
    );
    const more = await refs();
    assert.match(more.text, /^gopls: 4 results/, more.text);
    assert.match(more.text, /more\.go \(1\): 4:9/, more.text);
    // Removed again: its use is gone.
    rmSync(join(root, "more.go"));
    assert.match((await refs()).text, /^gopls: 3 results/);
    // price.go is open (the references opened it); use.go, which breaks, is asked about.
    const clean = await ok(c, "code_nav", { operation: "diagnostics", path: "use.go" });
    assert.equal(clean.structured?.count, 0, clean.text);
    writeFileSync(join(root, "use.go"), GO_FILES["use.go"].replace("Price(1)", 'Price("one")'));
    rmSync(join(root, "price.go"));
    writeFileSync(join(root, "price.go"), GO_FILES["price.go"]);
    const broken = await ok(c, "code_nav", { operation: "diagnostics", path: "use.go" });
    assert.match(broken.text, /use\.go:4:15 error/, broken.text);
  },
);

/** The inotify watches toolhost's process holds (each `inotify wd:` line of its fdinfo). */
test(
  "the watch ends with the server: after an idle stop no watch and no descriptor is left",
  { skip: POSIX.skip ?? (process.platform !== "linux" && "reads /proc (Linux)") },
  async () => {
    const root = project("py-watch-idle", { ...PY_FILES, "pkg/sub/x.py": "X = 1\n" });
    const c = startOn(e2e, root, [], { ...PATIENT, TOOLHOST_CODE_SERVER_IDLE_SECONDS: "10" });
    const fds = () => readdirSync(`/proc/${c.child.pid}/fd`).length;
    // Two starts and idle stops: what the first leaves open (toolhost's own first-use state, the
    // process's one inotify descriptor) the second must not add to.
    let after: number | undefined;
    for (let cycle = 1; cycle <= 2; cycle++) {
      const clean = await ok(c, "code_nav", { operation: "diagnostics", path: "u.py" });
      assert.equal(clean.structured?.count, 0, clean.text);
      // The project's 3 directories and the fence's own, while the server runs.
      assert.equal(inotifyWatches(c.child.pid!), 4, `cycle ${cycle}`);
      const stop = "ended: it was stopped after 10 s idle";
      const seen = c.stderr.split(stop).length - 1;
      await c.waitForStderr(new RegExp(`(${stop}[^]*){${seen + 1}}`), 120_000);
      // Bun removes a closed watch on its watcher thread: a moment after the close.
      for (let i = 0; i < 100 && inotifyWatches(c.child.pid!) > 0; i++) await delay(100);
      assert.equal(inotifyWatches(c.child.pid!), 0, `cycle ${cycle}`);
      if (after !== undefined) assert.equal(fds(), after, "descriptors after the second stop");
      after = fds();
    }
  },
);
