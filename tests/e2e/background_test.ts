/**
 * Background processes through the compiled binary: start, read incrementally, type into a REPL,
 * kill whole groups, list, limits, and a clean process table when the client goes away.
 */
import assert from "node:assert/strict";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const test = posixOnlyTest("sh commands, signals, process groups and /proc");

const e2e = e2eFixture();

function open() {
  return e2e.server();
}

/** The output part of a text result: everything before the bracketed status notes. */
const outputOf = (text: string) => text.replace(/\n\n(\[[^\n]*\]\n?)+$/, "");

const marker = () => String(70000 + Math.floor(Math.random() * 9999));

test("a process printing over time is read incrementally, every character exactly once", async () => {
  const c = open();
  const started = await callTool(c, "bash_background", {
    command: "for i in $(seq 1 8); do echo line$i; sleep 0.15; done",
    name: "counter",
  });
  assert.equal(started.data.id, "p1");
  assert.equal(typeof started.data.pid, "number");
  assert.equal(started.data.status, "running");
  assert.match(started.text, /^Started p1 "counter" \(pid \d+\) · running/);
  let seen = outputOf(started.text.split("\n\n").slice(1).join("\n\n"));
  let offset = seen.length;
  for (let i = 0; i < 20; i++) {
    const read = await callTool(c, "bash_output", { id: "p1", wait_ms: 2000 });
    if (read.data.nextOffset !== offset) seen += outputOf(read.text);
    assert.equal(read.data.offset, offset);
    offset = read.data.nextOffset as number;
    if (read.data.status !== "running") break;
  }
  const expected = Array.from({ length: 8 }, (_, i) => `line${i + 1}\n`).join("");
  assert.equal(seen, expected);
  const done = await callTool(c, "bash_output", { id: "p1" });
  assert.equal(done.data.status, "exited");
  assert.equal(done.data.exitCode, 0);
  const again = await callTool(c, "bash_output", { id: "p1", offset: 6, max_chars: 6 });
  assert.equal(outputOf(again.text), "line2\n");
  assert.equal(again.data.more, true);
});

test("what bash_background read in its first moments is in structuredContent too, and counted as read", async () => {
  const c = open();
  const started = await callTool(c, "bash_background", {
    command: "echo first words; sleep 5; echo later",
    grace_ms: 1000,
  });
  assert.equal(started.data.output, "first words\n");
  assert.equal(started.data.nextOffset, "first words\n".length);
  assert.equal(started.data.more, false);
  assert.match(started.text, /first words/);
  const next = await callTool(c, "bash_output", { id: started.data.id });
  assert.equal(next.data.offset, started.data.nextOffset, "the first words are not read twice");
  await callTool(c, "bash_kill", { id: started.data.id });
});

test("wait_ms returns as soon as output arrives, not at the deadline", async () => {
  const c = open();
  await callTool(c, "bash_background", { command: "sleep 0.3; echo late", grace_ms: 0 });
  const before = Date.now();
  const read = await callTool(c, "bash_output", { id: "p1", wait_ms: 60_000 }, {
    timeoutMs: 70_000,
  });
  // Measured against the deadline asked for, not a guess at the machine's speed.
  assert.ok(Date.now() - before < 60_000, "it waited out the deadline");
  assert.match(read.text, /^late\n/);
});

test("filter returns only matching whole lines", async () => {
  const c = open();
  await callTool(c, "bash_background", {
    command: "printf 'GET /a 200\\nGET /b 500\\nGET /c 200\\nGET /d 503\\n'",
  });
  const read = await callTool(c, "bash_output", {
    id: "p1",
    offset: 0,
    filter: " 5\\d\\d$",
    wait_ms: 2000,
  });
  assert.match(read.text, /^GET \/b 500\nGET \/d 503\n\[2 of 4 lines matched/);
});

test("bash_input drives an interactive program and close_stdin ends it", async () => {
  const c = open();
  await callTool(c, "bash_background", { command: "bc -q", name: "calculator", grace_ms: 200 });
  const answer = await callTool(c, "bash_input", {
    id: "p1",
    text: "6*7",
    newline: true,
    wait_ms: 3000,
  });
  assert.match(answer.text, /^42\n/);
  const more = await callTool(c, "bash_input", { id: "p1", text: "2^10\n", wait_ms: 3000 });
  assert.match(more.text, /^1024\n/);
  await callTool(c, "bash_input", { id: "p1", close_stdin: true, wait_ms: 3000 });
  const status = await callTool(c, "bash_output", { id: "p1", wait_ms: 3000 });
  assert.equal(status.data.status, "exited");
  assert.equal(status.data.exitCode, 0);
  const late = await callTool(c, "bash_input", { id: "p1", text: "1+1\n" });
  assert.equal(late.result.isError, true);
  assert.match(late.text, /p1 has exited with code 0; it takes no more input/);
});

test("bash_kill stops the whole group, grandchildren included", async () => {
  const c = open();
  const m = marker();
  await callTool(c, "bash_background", {
    command: `sleep ${m}1 & sleep ${m}2 & wait`,
    grace_ms: 200,
  });
  assert.ok(await waitUntil(() => processesWith(`sleep ${m}`).length >= 2, 5000));
  const killed = await callTool(c, "bash_kill", { id: "p1" });
  assert.equal(killed.data.status, "killed");
  assert.equal(killed.data.signal, "SIGTERM");
  assert.ok(
    await waitUntil(() => processesWith(`sleep ${m}`).length === 0, 2000),
    processesWith(`sleep ${m}`).join("; "),
  );
  const twice = await callTool(c, "bash_kill", { id: "p1" });
  assert.equal(twice.result.isError, true);
  assert.match(twice.text, /p1 has already killed by SIGTERM/);
});

test("a process that ignores SIGTERM gets SIGKILL after 2 s", async () => {
  const c = open();
  await callTool(c, "bash_background", {
    command: "trap '' TERM; while :; do sleep 0.1; done",
    grace_ms: 100,
  });
  const before = Date.now();
  const killed = await callTool(c, "bash_kill", { id: "p1" });
  assert.ok(Date.now() - before >= 1900);
  assert.equal(killed.data.signal, "SIGKILL");
});

test("bash_list shows running and finished processes with their exit codes", async () => {
  const c = open();
  await callTool(c, "bash_background", { command: "exit 3", name: "fails" });
  await callTool(c, "bash_background", { command: "sleep 30", name: "sleeper", grace_ms: 0 });
  const list = await callTool(c, "bash_list", {});
  const processes = list.data.processes as Record<string, unknown>[];
  assert.deepEqual(processes.map((p) => [p.id, p.name, p.status, p.exitCode]), [
    ["p1", "fails", "exited", 3],
    ["p2", "sleeper", "running", null],
  ]);
  assert.match(
    list.text,
    /p1 "fails" \(pid \d+\) · exited with code 3 after [\d.]+ s · 0 bytes of output · exit 3/,
  );
});

test("a start that fails at once is an error result with the exit code", async () => {
  const c = open();
  const started = await callTool(c, "bash_background", { command: "echo nope >&2; exit 2" });
  assert.equal(started.result.isError, true);
  assert.equal(started.data.exitCode, 2);
  assert.match(started.text, /nope/);
});

test("the output window keeps the last 10 MB and reports what was dropped", async () => {
  const c = open();
  await callTool(c, "bash_background", {
    command: "head -c 12000000 /dev/zero | tr '\\0' x; echo; echo tail-marker",
    grace_ms: 0,
  });
  await callTool(c, "bash_output", { id: "p1", offset: 999_999_999, wait_ms: 30_000 }, {
    timeoutMs: 70_000,
  });
  const read = await callTool(c, "bash_output", { id: "p1", offset: 0, max_chars: 10 });
  const total = 12_000_000 + "\ntail-marker\n".length;
  assert.equal(read.data.dropped, total - 10 * 1024 * 1024);
  // offset is where the returned text starts: past what was dropped, not the offset asked for.
  assert.equal(read.data.offset, total - 10 * 1024 * 1024);
  assert.equal(read.data.nextOffset, (read.data.offset as number) + 10);
  assert.match(read.text, /characters before offset \d+ were dropped from the 10 MB window/);
  const beyond = await callTool(c, "bash_output", { id: "p1", offset: total + 500 });
  assert.equal(beyond.data.offset, total);
  assert.equal(beyond.data.nextOffset, total);
  assert.match(beyond.text, new RegExp(`nothing new at ${total} of ${total}`));
  const end = await callTool(c, "bash_output", { id: "p1", offset: total - 12 });
  assert.match(end.text, /^tail-marker\n/);
});

test("unknown ids, bad regexes and bad signals are clear errors", async () => {
  const c = open();
  const unknown = await callTool(c, "bash_output", { id: "p9" });
  assert.equal(unknown.result.isError, true);
  assert.match(unknown.text, /no background process "p9"; none has been started/);
  await callTool(c, "bash_background", { command: "sleep 30", grace_ms: 0 });
  const regex = await callTool(c, "bash_output", { id: "p1", filter: "([a-" });
  assert.equal(regex.result.isError, true);
  assert.match(regex.text, /filter is not a valid regular expression/);
  const signal = await callTool(c, "bash_kill", { id: "p1", signal: "SIGSTOP" });
  assert.equal(signal.result.isError, true);
  assert.match(signal.text, /signal must be one of "SIGTERM"/);
  const stillUnknown = await callTool(c, "bash_kill", { id: "p2" });
  assert.match(stillUnknown.text, /known ids: p1/);
});

test("at most 32 run at once: the 33rd start is refused clearly", async () => {
  const c = open();
  for (let i = 0; i < 32; i++) {
    const started = await callTool(c, "bash_background", { command: "sleep 30", grace_ms: 0 });
    assert.equal(started.result.isError, undefined);
  }
  const refused = await callTool(c, "bash_background", { command: "sleep 30", grace_ms: 0 });
  assert.equal(refused.result.isError, true);
  assert.match(
    refused.text,
    /32 background processes of this session are running, the most allowed/,
  );
});

test("bash_output and bash_list are annotated read-only; the others are not", async () => {
  const c = open();
  const list = await c.request("tools/list", modern());
  const tools = list.result?.tools as { name: string; annotations: { readOnlyHint: boolean } }[];
  const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations.readOnlyHint]));
  assert.deepEqual(
    ["bash_background", "bash_output", "bash_input", "bash_list", "bash_kill"].map((n) =>
      readOnly[n]
    ),
    [false, true, false, true, false],
  );
});

test("closing stdin with several running leaves no process of ours within 2 s", async () => {
  const c = open();
  const m = marker();
  for (let i = 1; i <= 4; i++) {
    await callTool(c, "bash_background", {
      command: `sleep ${m}${i} & sleep ${m}${i}${i}`,
      grace_ms: 0,
    });
  }
  assert.ok(await waitUntil(() => processesWith(`sleep ${m}`).length >= 8, 5000));
  const before = Date.now();
  c.closeStdin();
  assert.equal((await c.exited).code, 0);
  // Budget 1.8 s; waiting for the sleeps would take a day: the bound tells them apart under load.
  assert.ok(Date.now() - before < 30_000, `exit took ${Date.now() - before} ms`);
  assert.ok(
    await waitUntil(() => processesWith(`sleep ${m}`).length === 0, 500),
    processesWith(`sleep ${m}`).join("; "),
  );
});
