/**
 * What commands change, journaled and undone, through the compiled binary, in a git repository
 * (snapshots in toolhost's private git directory) and outside one (the journal's own walk): a
 * `bash` call that creates, changes, removes and renames files and a directory and flips a mode
 * is listed by history and undone whole, the repository's own index, refs and objects untouched;
 * a second undo of it is refused; a file changed after the command blocks undo unless force;
 * ignored files are said not kept; a tree over the snapshot budget says "not kept for undo".
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { modern, type RawClient } from "../helpers/raw_client.ts";

/** The git cases need git (a machine with only Node.js and npm may lack it): skipped, saying so. */
const withGit = (kind: string) =>
  kind === "git" && !hasGit() ? { skip: "git is not installed here" } : {};

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const test = posixOnlyTest("the commands are sh scripts and the modes POSIX modes");
const e2e = e2eFixture();
const KINDS = ["git", "plain"] as const;
type Kind = typeof KINDS[number];

/** A project: a few files, an ignore file, and for "git" a repository with them committed. */
function project(kind: Kind): string {
  const root = e2e.scratch(`cmd-${kind}`);
  writeFileSync(join(root, "a.txt"), "A\n");
  writeFileSync(join(root, "b.txt"), "B\n");
  writeFileSync(join(root, "gone.txt"), "gone\n");
  writeFileSync(join(root, "crlf.txt"), "one\r\ntwo\r\n");
  writeFileSync(join(root, "run.sh"), "echo run\n", { mode: 0o644 });
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "dir", "x.txt"), "X\n");
  writeFileSync(join(root, ".gitignore"), "*.log\nnode_modules/\n");
  // A .gitattributes that would convert line ends and expand $Id$ if the snapshot let it.
  writeFileSync(join(root, ".gitattributes"), "* text=auto\n*.txt ident\n");
  if (kind === "git") {
    // Older than the index git writes next: git trusts what its index records of them (their
    // blobs: crlf.txt's with LF line ends, converted by `text=auto`) without reading them again.
    const past = new Date(Date.now() - 3_600_000);
    for (const name of ["a.txt", "b.txt", "gone.txt", "crlf.txt", "run.sh", "dir/x.txt"]) {
      utimesSync(join(root, name), past, past);
    }
    gitIn(root, "init", "-q");
    commitAll(root);
  }
  return root;
}

function gitIn(root: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

function commitAll(root: string): string {
  gitIn(root, "add", "-A");
  return gitIn(root, "commit", "-qm", "start");
}

function serve(root: string, env: Record<string, string> = {}): RawClient {
  return e2e.server({
    args: ["--root", root],
    cwd: root,
    env: { TOOLHOST_STATE_DIR: e2e.scratch("cmd-state"), ...env },
  });
}

async function ok(c: RawClient, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await callTool(c, name, args);
  assert.equal(reply.isError, false, reply.text);
  return reply.text;
}

async function refused(c: RawClient, name: string, args: Record<string, unknown>, why: RegExp) {
  const reply = await callTool(c, name, args);
  assert.equal(reply.isError, true, reply.text);
  assert.match(reply.text, why);
  return reply.text;
}

/** What git's own state looks like: index bytes, refs, and the objects it holds. */
function repositoryState(root: string): string {
  const objects: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else objects.push(path.slice(root.length));
    }
  };
  walk(join(root, ".git", "objects"));
  return JSON.stringify({
    index: readFileSync(join(root, ".git", "index")).toString("base64"),
    head: readFileSync(join(root, ".git", "HEAD"), "utf8"),
    refs: gitIn(root, "for-each-ref"),
    objects: objects.sort(),
  });
}

const mode = (path: string) => statSync(path).mode & 0o777;

for (const kind of KINDS) {
  test(
    `${kind}: a bash change is listed by history and undone whole, once`,
    withGit(kind),
    async () => {
      const root = project(kind);
      const gitBefore = kind === "git" ? repositoryState(root) : "";
      const c = serve(root);
      const said = await ok(c, "bash", {
        command: "echo more >> a.txt; rm gone.txt; mv b.txt moved.txt; " +
          "mkdir -p made/deep && echo n > made/deep/n.txt; mv dir renamed; chmod +x run.sh; " +
          "printf 'three\\r\\n' >> crlf.txt; ln -s a.txt link",
      });
      assert.match(said, /Files the command changed \(journaled: `undo` reverts it/);
      assert.match(said, /renamed b\.txt → moved\.txt/);
      assert.match(said, /removed [^\n]*gone\.txt/);
      if (kind === "git") assert.equal(repositoryState(root), gitBefore);

      const history = await ok(c, "history", { tool: "bash" });
      const line = history.split("\n")[0];
      for (const name of ["a.txt", "gone.txt", "b.txt", "moved.txt", "made", "run.sh"]) {
        assert.ok(line.includes(name), `${name} in ${line}`);
      }
      assert.match(line, /\(undoable\)/);
      const id = line.split(" ")[0];

      const undone = await ok(c, "undo", {});
      assert.match(undone, new RegExp(`Undid 1 call \\(bash ${id}\\)`));
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
      assert.equal(readFileSync(join(root, "gone.txt"), "utf8"), "gone\n");
      assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "B\n");
      assert.equal(readFileSync(join(root, "crlf.txt"), "utf8"), "one\r\ntwo\r\n");
      assert.equal(readFileSync(join(root, "dir", "x.txt"), "utf8"), "X\n");
      assert.equal(mode(join(root, "run.sh")), 0o644);
      for (const name of ["moved.txt", "made", "renamed", "link"]) {
        assert.equal(existsSync(join(root, name)), false, `${name} is gone`);
      }
      assert.equal(lstatSync(join(root, "dir")).isDirectory(), true);
      if (kind === "git") {
        // Without optional locks: git status would otherwise refresh the index it reads.
        assert.equal(gitIn(root, "--no-optional-locks", "status", "--porcelain"), "");
        assert.equal(repositoryState(root), gitBefore);
      }

      await refused(c, "undo", { id }, new RegExp(`call ${id} was already undone by undo call`));
      // A plain undo has nothing left of this session's: refused, and the files stay as they are.
      await refused(c, "undo", {}, /no file change of this session/);
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
    },
  );

  test(
    `${kind}: a file that became a directory, and a directory that became a file, turn back`,
    withGit(kind),
    async () => {
      const root = project(kind);
      const c = serve(root);
      await ok(c, "bash", {
        command:
          "rm a.txt && mkdir -p a.txt/in && echo in > a.txt/in/f; rm -r dir && echo was-dir > dir",
      });
      assert.equal(readFileSync(join(root, "a.txt", "in", "f"), "utf8"), "in\n");
      await ok(c, "undo", {});
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
      assert.equal(readFileSync(join(root, "dir", "x.txt"), "utf8"), "X\n");
    },
  );

  test(
    `${kind}: a file changed after the command blocks undo unless force`,
    withGit(kind),
    async () => {
      const root = project(kind);
      const c = serve(root);
      await ok(c, "bash", { command: "echo second > a.txt && echo new > new.txt" });
      writeFileSync(join(root, "a.txt"), "third, by someone else\n");
      await refused(c, "undo", {}, /a\.txt was changed since bash \(call \S+\) wrote it/);
      // Nothing was undone: the new file is still there.
      assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "new\n");
      await ok(c, "undo", { force: true });
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
      assert.equal(existsSync(join(root, "new.txt")), false);
    },
  );

  test(
    `${kind}: ignored files are said not kept, and undo leaves them`,
    withGit(kind),
    async () => {
      const root = project(kind);
      const c = serve(root);
      const said = await ok(c, "bash", {
        command: "mkdir -p node_modules/pkg && echo 1 > node_modules/pkg/i.js; " +
          "echo log > build.log; mkdir out && echo o > out/o.txt && echo l > out/l.log",
      });
      assert.match(
        said,
        /Ignored \(\.gitignore\) or not files, not kept for undo: [^\n]*build\.log/,
      );
      assert.match(said, /not kept for undo: [^\n]*node_modules\//);
      assert.match(said, /created out\/, out\/o\.txt\./);
      const undone = await ok(c, "undo", {});
      assert.match(undone, /out: left in place: it holds entries no journaled change made/);
      assert.equal(existsSync(join(root, "out", "o.txt")), false);
      assert.equal(readFileSync(join(root, "out", "l.log"), "utf8"), "l\n");
      assert.equal(readFileSync(join(root, "build.log"), "utf8"), "log\n");
      assert.equal(existsSync(join(root, "node_modules", "pkg", "i.js")), true);
    },
  );

  test(
    `${kind}: a tree over the snapshot budget says its change is not kept for undo`,
    withGit(kind),
    async () => {
      const root = project(kind);
      for (let i = 0; i < 30; i++) writeFileSync(join(root, `many${i}.txt`), `${i}\n`);
      if (kind === "git") commitAll(root);
      const c = serve(root, { TOOLHOST_SNAPSHOT_MAX_FILES: "20" });
      await ok(c, "write_file", { path: "tool.txt", content: "by a tool\n" });
      const said = await ok(c, "bash", { command: "echo x > a.txt" });
      assert.match(said, /Not kept for undo: .* more .*\(journal\.snapshot_max_files, 20\)/);
      assert.doesNotMatch(said, /Files the command changed/);
      const history = await ok(c, "history", { tool: "bash" });
      assert.match(history.split("\n")[0], /\(not undoable: .*snapshot_max_files/);
      // Nothing is pretended: a plain undo steps past the command to the tool's change.
      assert.match(await ok(c, "undo", {}), /tool\.txt: removed/);
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "x\n");
    },
  );
}

for (const kind of KINDS) {
  test(
    `${kind}: a change it could not keep whole is said not undoable, and a plain undo refuses it`,
    withGit(kind),
    async () => {
      const root = project(kind);
      // A 4 KiB undo budget: a file over 1 KiB is larger than a snapshot keeps.
      const c = serve(root, { TOOLHOST_UNDO_BUDGET_BYTES: "4096" });
      await ok(c, "write_file", { path: "tool.txt", content: "by a tool\n" });
      const said = await ok(c, "bash", {
        command: "head -c 2000 /dev/zero > big.bin && echo more >> a.txt",
      });
      assert.match(said, /\(journaled, not undoable\): created big\.bin; changed a\.txt\./);
      assert.match(said, /Not kept for undo: big\.bin changed and is larger than a snapshot keeps/);
      const line = (await ok(c, "history", { tool: "bash" })).split("\n")[0];
      assert.match(line, /files: .*big\.bin.*\(not undoable: big\.bin changed/);
      await refused(c, "undo", {}, /bash call \S+ cannot be undone: big\.bin changed/);
      // Refused, not stepped past: the tool's earlier change is still there.
      assert.equal(readFileSync(join(root, "tool.txt"), "utf8"), "by a tool\n");
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\nmore\n");
    },
  );
}

test(
  "git: no program of the repository's or the user's configuration runs for a snapshot",
  withGit("git"),
  async () => {
    const root = project("git");
    const marks = e2e.scratch("cmd-marks");
    const mark = (name: string) => `touch '${join(marks, name)}'`;
    const script = (name: string) => {
      const path = join(marks, `${name}.sh`);
      writeFileSync(path, `#!/bin/sh\n${mark(name)}\ncat\n`);
      chmodSync(path, 0o755);
      return path;
    };
    // The repository's config, hooks and attributes, and the user's global config, each naming a
    // program git would run for an add, a status or a diff.
    const repoConfig = join(root, ".git", "config");
    writeFileSync(
      repoConfig,
      readFileSync(repoConfig, "utf8") +
        `[core]\n\tfsmonitor = ${script("fsmonitor")}\n` +
        `[filter "evil"]\n\tclean = ${script("clean")}\n\tsmudge = ${script("smudge")}\n` +
        `\trequired = true\n[diff "evil"]\n\ttextconv = ${script("textconv")}\n`,
    );
    for (const hook of ["post-index-change", "pre-commit", "post-checkout"]) {
      writeFileSync(join(root, ".git", "hooks", hook), `#!/bin/sh\n${mark(hook)}\n`);
      chmodSync(join(root, ".git", "hooks", hook), 0o755);
    }
    writeFileSync(join(root, ".gitattributes"), "* filter=evil diff=evil\n");
    const home = e2e.scratch("cmd-home");
    writeFileSync(
      join(home, ".gitconfig"),
      `[core]\n\tfsmonitor = ${script("global")}\n[filter "evil"]\n\tclean = ${script("gclean")}\n`,
    );
    const c = serve(root, { HOME: home });
    await ok(c, "bash", { command: "echo more >> a.txt && echo new > new.txt && rm gone.txt" });
    assert.match(await ok(c, "undo", {}), /new\.txt: removed/);
    assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
    assert.deepEqual(readdirSync(marks).filter((name) => !name.endsWith(".sh")), []);
  },
);

test("git: the review app's data shows a command's change as diffs", withGit("git"), async () => {
  const root = project("git");
  const c = serve(root);
  await ok(c, "bash", { command: "echo more >> a.txt && echo new > new.txt && rm gone.txt" });
  // As a client that renders apps asks for it (history_changes is the app's own tool).
  const apps = {
    extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
  };
  const reply = await c.request(
    "tools/call",
    modern({ name: "history_changes", arguments: { tool: "bash" } }, {
      "io.modelcontextprotocol/clientCapabilities": apps,
    }),
  );
  const page = (reply.result as { structuredContent: Record<string, unknown> })
    .structuredContent as {
      calls: {
        undoable: boolean;
        changes: { path: string; kind: string; hunks?: { lines: string[] }[] }[];
      }[];
    };
  const [call] = page.calls;
  assert.equal(call.undoable, true);
  const byPath = new Map(call.changes.map((change) => [change.path, change]));
  assert.equal(byPath.get("a.txt")?.kind, "modified");
  assert.deepEqual(byPath.get("a.txt")?.hunks?.[0].lines, [" A", "+more"]);
  assert.equal(byPath.get("new.txt")?.kind, "added");
  assert.deepEqual(byPath.get("new.txt")?.hunks?.[0].lines, ["+new"]);
  assert.equal(byPath.get("gone.txt")?.kind, "deleted");
  assert.deepEqual(byPath.get("gone.txt")?.hunks?.[0].lines, ["-gone"]);
});

test(
  "git: a command's move with an edit is said as a move with the edit's diff; unlike files are not paired",
  withGit("git"),
  async () => {
    const root = project("git");
    const c = serve(root);
    await ok(c, "bash", {
      command: "mv a.txt c.txt && echo more >> c.txt && echo new > new.txt && rm gone.txt",
    });
    const apps = {
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
    };
    const reply = await c.request(
      "tools/call",
      modern({ name: "history_changes", arguments: { tool: "bash" } }, {
        "io.modelcontextprotocol/clientCapabilities": apps,
      }),
    );
    const [call] = ((reply.result as { structuredContent: Record<string, unknown> })
      .structuredContent as {
        calls: {
          changes: { path: string; from?: string; kind: string; hunks?: { lines: string[] }[] }[];
        }[];
      }).calls;
    const byPath = new Map(call.changes.map((change) => [change.path, change]));
    assert.equal(byPath.get("c.txt")?.kind, "moved", JSON.stringify(call.changes));
    assert.equal(byPath.get("c.txt")?.from, "a.txt");
    assert.deepEqual(byPath.get("c.txt")?.hunks?.[0].lines, [" A", "+more"]);
    assert.equal(byPath.has("a.txt"), false, "the move's source is said apart too");
    // One-line files with nothing in common are an addition and a deletion, not a move.
    assert.equal(byPath.get("new.txt")?.kind, "added");
    assert.equal(byPath.get("gone.txt")?.kind, "deleted");
  },
);

test(
  "git: toolhost's private git directory starts afresh once it stored past its bound",
  withGit("git"),
  async () => {
    const root = project("git");
    const state = e2e.scratch("cmd-state");
    // A 4 KiB undo budget: files of up to 1 KiB are snapshotted, and the private objects are
    // renewed past 8 KiB (four times the 2 KiB a snapshot may read).
    const c = e2e.server({
      args: ["--root", root],
      cwd: root,
      env: { TOOLHOST_STATE_DIR: state, TOOLHOST_UNDO_BUDGET_BYTES: "4096" },
    });
    // The loose objects of the private git directories (snapshots/ only: the undo store beside
    // it is pruned in the background while this looks).
    const blobs = () => {
      let count = 0;
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (/\/objects\/[0-9a-f]{2}\/[0-9a-f]+$/.test(path)) count++;
        }
      };
      const projects = join(state, "projects");
      for (const name of readdirSync(projects)) walk(join(projects, name, "snapshots"));
      return count;
    };
    // The same three files rewritten each time: their earlier versions pile up in the private
    // objects (five objects a call with the tree and commit) unless they are dropped.
    const held: number[] = [];
    for (let round = 0; round < 12; round++) {
      await ok(c, "bash", {
        command: "for n in 1 2 3; do head -c 900 /dev/urandom > r$n.bin; done",
      });
      held.push(blobs());
    }
    assert.ok(Math.max(...held) < 40, `objects held: ${held.join(", ")}`);
    assert.ok(held.some((n, i) => i > 0 && n < held[i - 1]), `dropped once: ${held.join(", ")}`);
    // And commands are still journaled and undone.
    await ok(c, "bash", { command: "echo more >> a.txt" });
    assert.match(await ok(c, "undo", {}), /a\.txt: content restored/);
    assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "A\n");
  },
);
