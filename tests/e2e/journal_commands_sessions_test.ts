/**
 * Commands' changes among other calls, through the compiled binary: what another server (another
 * session) or another call of the same server changed while a command ran is not counted as the
 * command's, so undoing the command never reverts it; a background command's change is journaled
 * when it is killed, and when the server stops with it still running; a custom command tool's
 * change is journaled and undone like bash's.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
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

const test = posixOnlyTest("the commands are sh scripts");
const e2e = e2eFixture();

function project(kind: "git" | "plain"): string {
  const root = e2e.scratch(`cmds-${kind}`);
  writeFileSync(join(root, "shared.txt"), "S\n");
  writeFileSync(join(root, "gone.txt"), "gone\n");
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  if (kind === "git") {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "start");
  }
  return root;
}

function serve(root: string, state: string, args: string[] = []): RawClient {
  return e2e.server({
    args: ["--root", root, ...args],
    cwd: root,
    env: { TOOLHOST_STATE_DIR: state },
  });
}

async function ok(c: RawClient, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await callTool(c, name, args);
  assert.equal(reply.isError, false, reply.text);
  return reply.text;
}

/** Waits until `path` exists: the command got that far (a bounded wait, not a timing). */
async function until(path: string): Promise<void> {
  for (let i = 0; i < 600 && !existsSync(path); i++) await sleep(50);
  assert.ok(existsSync(path), `${path} appeared`);
}

/** The newest history line of `tool`, and its id. */
async function newest(c: RawClient, tool: string): Promise<{ line: string; id: string }> {
  const line = (await ok(c, "history", { tool })).split("\n")[0];
  return { line, id: line.split(" ")[0] };
}

for (const kind of ["git", "plain"] as const) {
  test(
    `${kind}: what another server changed while a command ran is not undone with it`,
    withGit(kind),
    async () => {
      const root = project(kind);
      const state = e2e.scratch("cmds-state");
      const a = serve(root, state);
      const b = serve(root, state);
      // A's command waits (an ignored marker says it started) until B has written b.txt.
      const running = callTool(a, "bash", {
        command: "touch started.log; while [ ! -e b.txt ]; do sleep 0.02; done; " +
          "echo mine >> shared.txt; echo a > a.txt",
      });
      await until(join(root, "started.log"));
      await ok(b, "write_file", { path: "shared.txt", content: "B's\n" });
      await ok(b, "write_file", { path: "b.txt", content: "b\n" });
      const said = await running;
      assert.equal(said.isError, false, said.text);
      assert.match(said.text, /created a\.txt\./);
      assert.match(
        said.text,
        /Changed meanwhile by another call, so not counted as this command's: [^\n]*shared\.txt \(write_file call \S+, session /,
      );
      assert.match(said.text, /b\.txt \(write_file call/);
      assert.equal(readFileSync(join(root, "shared.txt"), "utf8"), "B's\nmine\n");

      assert.match(await ok(a, "undo", {}), /a\.txt: removed/);
      assert.equal(existsSync(join(root, "a.txt")), false);
      assert.equal(readFileSync(join(root, "shared.txt"), "utf8"), "B's\nmine\n");
      assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "b\n");
    },
  );
}

test(
  "what another call of the same server changed meanwhile is not the command's",
  withGit("git"),
  async () => {
    const root = project("git");
    const c = serve(root, e2e.scratch("cmds-state"));
    const running = callTool(c, "bash", {
      command: "touch started.log; while [ ! -e c.txt ]; do sleep 0.02; done; echo a > a.txt",
    });
    await until(join(root, "started.log"));
    await ok(c, "write_file", { path: "c.txt", content: "c\n" });
    const said = await running;
    assert.match(
      said.text,
      /not counted as this command's: c\.txt \(write_file call \S+, this session\)/,
    );
    // The newest change of this session is the command's: only a.txt goes.
    assert.match(await ok(c, "undo", {}), /^Undid 1 call \(bash [^\n]*\n- a\.txt: removed$/);
    assert.equal(readFileSync(join(root, "c.txt"), "utf8"), "c\n");
    // Then the write's.
    assert.match(await ok(c, "undo", {}), /c\.txt: removed/);
  },
);

test(
  "a background command's change is journaled when it is killed, and undone",
  withGit("git"),
  async () => {
    const root = project("git");
    const c = serve(root, e2e.scratch("cmds-state"));
    const started = await ok(c, "bash_background", {
      command: "echo bg > bg.txt; rm gone.txt; exec sleep 60",
    });
    assert.match(started, /\[what p1 changes in files is journaled when it ends: history, undo\]/);
    await until(join(root, "bg.txt"));
    await ok(c, "bash_kill", { id: "p1" });
    const { line, id } = await newest(c, "bash_background");
    assert.match(line, / bash_background cancelled .*files: .*bg\.txt/);
    assert.match(line, /gone\.txt.*\(undoable\)/);
    assert.match(await ok(c, "undo", { id }), /bg\.txt: removed/);
    assert.equal(existsSync(join(root, "bg.txt")), false);
    assert.equal(readFileSync(join(root, "gone.txt"), "utf8"), "gone\n");
  },
);

test("a server that stops with a background command running journals its change", async () => {
  const root = project("plain");
  const state = e2e.scratch("cmds-state");
  const first = serve(root, state);
  await ok(first, "bash_background", { command: "echo late > late.txt; exec sleep 60" });
  await until(join(root, "late.txt"));
  await first.close();
  const next = serve(root, state);
  const { line, id } = await newest(next, "bash_background");
  assert.match(line, /\[session \S+\] bash_background cancelled .*files: late\.txt \(undoable\)/);
  assert.match(line, /"ended":"the server stopped"/);
  assert.match(await ok(next, "undo", { id }), /late\.txt: removed/);
  assert.equal(existsSync(join(root, "late.txt")), false);
});

test("a custom command tool's change is journaled and undone", async () => {
  const root = project("plain");
  const config = join(e2e.scratch("cmds-config"), "config.jsonc");
  writeFileSync(
    config,
    JSON.stringify({
      custom_tools: {
        stamp: {
          description: "Writes a stamp into a file.",
          input: {
            type: "object",
            properties: { name: { type: "string" } },
            required: ["name"],
          },
          command: ["sh", "-c", 'echo stamped > "$1"; rm gone.txt', "sh", "{name}"],
        },
      },
    }),
  );
  const c = serve(root, e2e.scratch("cmds-state"), ["--config", config]);
  const reply = await c.request(
    "tools/call",
    modern({ name: "stamp", arguments: { name: "s.txt" } }),
  );
  const text = JSON.stringify(reply.result);
  assert.match(text, /created s\.txt; removed gone\.txt/);
  const { line } = await newest(c, "stamp");
  assert.match(line, /files: gone\.txt, s\.txt \(undoable\)/);
  assert.match(await ok(c, "undo", {}), /s\.txt: removed/);
  assert.equal(existsSync(join(root, "s.txt")), false);
  assert.equal(readFileSync(join(root, "gone.txt"), "utf8"), "gone\n");
});
