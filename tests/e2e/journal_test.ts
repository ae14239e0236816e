/**
 * The journal through the compiled binary: write, edit, undo (a large file too, and edits sent
 * without waiting); delete and undo
 * with the mode;
 * an outside change refused; history after a restart, and after a SIGKILL right after a write's
 * reply; the budget dropping the oldest; two servers sharing a state directory.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { callTool, okText } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

function start(root: string, state: string, env: Record<string, string> = {}) {
  const c = e2e.server({
    args: ["--root", root],
    cwd: root,
    env: {
      TOOLHOST_STATE_DIR: state,
      ...env,
    },
  });
  return c;
}

test("write, edit, undo restores the first content; undoing the undo redoes it", async () => {
  const root = scratch("jr-root");
  const c = start(root, scratch("jr-state"));
  await okText(c, "write_file", { path: "a.txt", content: "first\n" });
  await okText(c, "edit_file", {
    path: "a.txt",
    edits: [{ old_string: "first", new_string: "second" }],
  });
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "second\n");
  const undone = await okText(c, "undo", {});
  assert.match(undone, /a\.txt: content restored/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "first\n");
  // The undo is journaled: undoing it by id brings the edit back.
  const id = /^(\S+) /.exec(await okText(c, "history", { tool: "undo" }))![1];
  await okText(c, "undo", { id });
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "second\n");
});

test("history's since and until take what people write (yesterday, 2h, an ISO time), refuse what they cannot read with a sentence, and answer structured calls", async () => {
  const root = scratch("jr-when");
  const c = start(root, scratch("jr-state"));
  await okText(c, "write_file", { path: "a.txt", content: "one\n" });
  const since = await callTool(c, "history", { since: "yesterday", tool: "write_file" });
  assert.equal(since.isError, false, since.text);
  assert.match(since.text, / write_file ok /);
  const calls = since.data.calls as { tool: string; files: string[]; undoable: boolean }[];
  assert.equal(since.data.matched, 1);
  assert.deepEqual(
    calls.map((call) => [call.tool, call.files, call.undoable]),
    [["write_file", ["a.txt"], true]],
  );
  // Nothing of the last minute came before two hours ago.
  const until = await callTool(c, "history", { until: "2h", tool: "write_file" });
  assert.equal(until.isError, false, until.text);
  assert.match(until.text, /^No recorded calls in that time\./);
  assert.equal(until.data.matched, 0);
  const unread = await callTool(c, "history", { since: "last tuesday-ish" });
  assert.equal(unread.isError, true);
  assert.match(
    unread.text,
    /^since: "last tuesday-ish" is not a time history understands; give an ISO time .*"yesterday".*\.$/s,
  );
});

test("a large file's edits are undone byte for byte; a same-size outside change right after is refused", async () => {
  const root = scratch("jr-big");
  const c = start(root, scratch("jr-state"));
  // About 3 MB of multi-byte text with CRLF line breaks: several 1 MiB chunks of the undo store.
  const lines = Array.from({ length: 60_000 }, (_, i) => `${i}: naïve café 😀 ${i % 97}`);
  const first = lines.join("\r\n") + "\r\n";
  await okText(c, "write_file", { path: "big.txt", content: first });
  await okText(c, "edit_file", {
    path: "big.txt",
    edits: [{ old_string: "30000: naïve café 😀", new_string: "30000: changed 🙂" }],
  });
  const edited = readFileSync(join(root, "big.txt"));
  assert.deepEqual(edited, Buffer.from(first.replace("30000: naïve café 😀", "30000: changed 🙂")));
  await okText(c, "undo", {});
  assert.deepEqual(readFileSync(join(root, "big.txt")), Buffer.from(first));
  // Undoing the undo (by its id) brings the edit back.
  await okText(c, "undo", { id: /^(\S+) /.exec(await okText(c, "history", { tool: "undo" }))![1] });
  assert.deepEqual(readFileSync(join(root, "big.txt")), edited);

  // Changed in place by someone else at once, to the same size: undo still notices.
  await okText(c, "edit_file", {
    path: "big.txt",
    edits: [{ old_string: "59999: naïve", new_string: "59999: NAÏVE" }],
  });
  const mine = readFileSync(join(root, "big.txt"));
  const theirs = Buffer.from(mine);
  theirs[0] = "X".charCodeAt(0);
  writeFileSync(join(root, "big.txt"), theirs, { flag: "r+" });
  const refused = await callTool(c, "undo", {});
  assert.equal(refused.isError, true, refused.text);
  assert.match(refused.text, /changed since/);
  assert.deepEqual(readFileSync(join(root, "big.txt")), theirs);
});

test("edits sent without waiting go one after another: undo steps back one at a time", async () => {
  const root = scratch("jr-pipelined");
  const c = start(root, scratch("jr-state"));
  await okText(c, "write_file", { path: "e.txt", content: "one two three\n" });
  // All three requests leave before any reply comes back.
  const edits = await Promise.all(
    ["one", "two", "three"].map((word) =>
      callTool(c, "edit_file", {
        path: "e.txt",
        edits: [{ old_string: word, new_string: word.toUpperCase() }],
      })
    ),
  );
  for (const edit of edits) assert.equal(edit.isError, false, edit.text);
  const read = () => readFileSync(join(root, "e.txt"), "utf8");
  const upper = () => read().split(/\s+/).filter((w) => w && w === w.toUpperCase()).length;
  assert.equal(read(), "ONE TWO THREE\n");
  for (const left of [2, 1, 0]) {
    await okText(c, "undo", {});
    assert.equal(upper(), left, read());
  }
  assert.equal(read(), "one two three\n");
});

test("edits back and forth are undone step by step (a content kept already is not kept again)", async () => {
  const root = scratch("jr-pingpong");
  const c = start(root, scratch("jr-state"));
  const edit = (from: string, to: string) =>
    okText(c, "edit_file", { path: "p.txt", edits: [{ old_string: from, new_string: to }] });
  await okText(c, "write_file", { path: "p.txt", content: "one\n" });
  await edit("one", "two");
  await edit("two", "one");
  await edit("one", "two"); // "one\n" was kept by the first edit already
  const read = () => readFileSync(join(root, "p.txt"), "utf8");
  for (const expected of ["one\n", "two\n", "one\n"]) {
    await okText(c, "undo", {});
    assert.equal(read(), expected);
  }
});

test("an append to a large file is undone to the content before it", async () => {
  const root = scratch("jr-append");
  const c = start(root, scratch("jr-state"));
  // Over two 1 MiB chunks of the undo store (an append, which changes the file in place, starts
  // only once all of it is kept).
  const first = "0123456789abcdef\n".repeat(150_000);
  await okText(c, "write_file", { path: "log.txt", content: first });
  await okText(c, "write_file", { path: "log.txt", content: "appended\n", mode: "append" });
  assert.equal(readFileSync(join(root, "log.txt"), "utf8"), first + "appended\n");
  await okText(c, "undo", {});
  assert.equal(readFileSync(join(root, "log.txt"), "utf8"), first);
});

test(
  "delete then undo restores the file with its mode; an outside change is refused",
  posixOnly("POSIX file modes (0751) are restored"),
  async () => {
    const root = scratch("jr-del");
    const c = start(root, scratch("jr-state"));
    writeFileSync(join(root, "run.sh"), "#!/bin/sh\necho hi\n");
    chmodSync(join(root, "run.sh"), 0o751);
    await okText(c, "delete_file", { path: "run.sh" });
    assert.match(await okText(c, "undo", {}), /mode 751/);
    assert.equal(readFileSync(join(root, "run.sh"), "utf8"), "#!/bin/sh\necho hi\n");
    assert.equal(statSync(join(root, "run.sh")).mode & 0o777, 0o751);

    await okText(c, "write_file", { path: "run.sh", content: "mine\n" });
    writeFileSync(join(root, "run.sh"), "someone else\n");
    const refused = await callTool(c, "undo", {});
    assert.equal(refused.isError, true);
    assert.match(refused.text, /changed since .* force: true/s);
    assert.equal(readFileSync(join(root, "run.sh"), "utf8"), "someone else\n");
    await okText(c, "undo", { force: true });
    assert.equal(readFileSync(join(root, "run.sh"), "utf8"), "#!/bin/sh\necho hi\n");
  },
);

test("history survives a restart; secrets are masked; the budget drops the oldest", async () => {
  const root = scratch("jr-hist");
  const state = scratch("jr-state");
  const env = { TOOLHOST_UNDO_BUDGET_BYTES: "3000", TOOLHOST_BRAVE_API_KEY: "sekret-key-123" };
  let c = start(root, state, env);
  await okText(c, "write_file", { path: "big.txt", content: "a".repeat(2000) });
  await okText(c, "write_file", { path: "big.txt", content: "b".repeat(2000) });
  await okText(c, "write_file", { path: "big.txt", content: "c".repeat(2000) });
  await okText(c, "write_file", { path: "k.txt", content: "key sekret-key-123" });
  await c.close();
  c = start(root, state, env);
  const history = await okText(c, "history", { tool: "write_file" });
  assert.equal(history.split("\n").length, 4, history);
  assert.match(history.split("\n")[0], /k\.txt/);
  assert.doesNotMatch(history, /sekret-key-123/);
  assert.match(await okText(c, "history", { path: "big", limit: 1 }), /2 more: offset 1/s);
  // The calls are the earlier server's (another session): a plain undo leaves them alone, and
  // each is undone by its id.
  const plain = await callTool(c, "undo", {});
  assert.equal(plain.isError, true, plain.text);
  assert.match(plain.text, /no file change of this session/);
  const [k, c3, b2] = history.split("\n").map((line) => line.split(" ")[0]);
  // The a…a content was dropped (only ~3000 bytes of old content are kept): undoing back to it fails.
  await okText(c, "undo", { id: k }); // k.txt removed
  await okText(c, "undo", { id: c3 }); // back to b…b
  const dropped = await callTool(c, "undo", { id: b2 });
  assert.equal(dropped.isError, true, dropped.text);
  assert.match(dropped.text, /no longer kept/);
  assert.equal(readFileSync(join(root, "big.txt"), "utf8"), "b".repeat(2000));
});

test("undo's own keeping never prunes the content it is about to restore", async () => {
  // Two files' earlier contents kept (2000 bytes, within 2500); undoing both keeps what they
  // hold now first (2000 more), and the prune that starts then must not drop what undo restores.
  const root = scratch("jr-pin");
  const state = scratch("jr-state");
  const c = start(root, state, { TOOLHOST_UNDO_BUDGET_BYTES: "2500" });
  await okText(c, "write_file", { path: "x.txt", content: "x".repeat(1000) });
  await okText(c, "write_file", { path: "y.txt", content: "y".repeat(1000) });
  await okText(c, "write_file", { path: "x.txt", content: "X".repeat(1000) });
  await okText(c, "write_file", { path: "y.txt", content: "Y".repeat(1000) });
  const undone = await callTool(c, "undo", { count: 2 });
  assert.equal(undone.isError, false, undone.text);
  assert.equal(readFileSync(join(root, "x.txt"), "utf8"), "x".repeat(1000));
  assert.equal(readFileSync(join(root, "y.txt"), "utf8"), "y".repeat(1000));
});

test(
  "an orderly stop right after calls that changed nothing still records them (the journal's shutdown hook)",
  posixOnly("sends SIGTERM for an orderly stop (Windows can only terminate)"),
  async () => {
    const root = scratch("jr-stop");
    const state = scratch("jr-state");
    let c = start(root, state);
    // Lines of calls that change nothing wait in the queue for more; the stop must write them.
    await okText(c, "list_roots", {});
    await okText(c, "list_dir", { path: "." });
    process.kill(c.child.pid!, "SIGTERM");
    assert.deepEqual(await c.exited, { code: 0, signal: null });
    c = start(root, state);
    const history = await okText(c, "history", {});
    assert.match(history, /list_dir/, history);
    assert.match(history, /list_roots/, history);
  },
);

test("a server killed right after a write's reply keeps the write's journal line: undo works", async () => {
  const root = scratch("jr-kill");
  const state = scratch("jr-state");
  let c = start(root, state);
  await okText(c, "write_file", { path: "a.txt", content: "before\n" });
  // A call that changes nothing first: its line may wait in the queue, and goes with the next.
  await okText(c, "list_roots", {});
  await okText(c, "write_file", { path: "a.txt", content: "after\n" });
  // Killed before any batching wait could have ended: the reply alone must mean "recorded".
  c.child.kill("SIGKILL");
  assert.equal((await c.exited).signal, "SIGKILL");
  c = start(root, state);
  const history = await okText(c, "history", {});
  assert.match(history.split("\n")[0], /write_file.*a\.txt/, history);
  assert.match(history, /list_roots/);
  // The killed server's change is another session's now: undone by its id.
  const id = history.split(" ")[0];
  assert.match(await okText(c, "undo", { id }), /a\.txt: content restored/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "before\n");
});

test("two servers sharing a state directory never corrupt the journal", async () => {
  const root = scratch("jr-two");
  const state = scratch("jr-state");
  const env = { TOOLHOST_JOURNAL_MAX_BYTES: "8192" };
  const a = start(root, state, env);
  const b = start(root, state, env);
  await Promise.all([a, b].map(async (c, n) => {
    await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => okText(c, "write_file", { path: `f${n}-${i}.txt`, content: `${n} ${i}\n` }),
      ),
    );
  }));
  // history flushes its server's queued entries first: read the files once both have.
  const [history] = await Promise.all([a, b].map((c) => okText(c, "history", { limit: 200 })));
  const dir = join(state, "projects");
  const project = join(dir, readdirSync(dir)[0]);
  let lines = 0;
  for (
    const name of readdirSync(project).filter((f) =>
      f.startsWith("journal") && f.endsWith(".jsonl")
    )
  ) {
    for (const line of readFileSync(join(project, name), "utf8").split("\n").filter(Boolean)) {
      JSON.parse(line); // every line whole
      lines++;
    }
  }
  assert.ok(lines > 10, `${lines} lines`);
  assert.ok(history.split("\n").length >= 10);
});

test(
  "a snapshot that cannot be kept (the file-size limit) leaves no unhandled rejection",
  posixOnly("runs the server under sh with a file-size limit"),
  async () => {
    const root = scratch("jr-fsize");
    const state = scratch("jr-state");
    // Larger than the limit: the copy kept for undo fails (EFBIG) after its first chunks while
    // the next is being read; the edited file is small enough to be written.
    writeFileSync(join(root, "big.txt"), "K".repeat(3_000_000));
    // SIGXFSZ ignored, as a process that exceeds the limit then gets EFBIG instead of dying.
    const script = 'trap "" XFSZ; ulimit -f 2000; exec "$0" --root "$1"';
    const c = e2e.server({
      binary: "/bin/sh",
      args: ["-c", script, PRODUCT_BINARY, root],
      cwd: root,
      env: {
        TOOLHOST_STATE_DIR: state,
      },
    });
    const edit = { old_string: "KKKKKKKKKK", new_string: "Z", replace_all: true };
    assert.match(
      await okText(c, "edit_file", { path: "big.txt", edits: [edit] }),
      /Edited big\.txt/,
    );
    await okText(c, "list_roots", {});
    assert.match(c.stderr, /nothing kept for undo of edit_file: EFBIG/);
    assert.doesNotMatch(c.stderr, /unhandled rejection/);
    for (const dir of [root, state]) rmSync(dir, { recursive: true, force: true });
  },
);
