/**
 * Two OAuth users of one `--http` server, through the binary and the official SDK client: bob (a
 * token of another `sub`) never sees alice's calls (history, toolhost://history), processes (by
 * tool or resource, read scope or write) or task list, and can undo her edits by no means, by id
 * included, which is refused exactly as an id that never existed. Alice's own sessions see each
 * other's calls, labelled with the session. Each has a plan mode of its own. 2026-07-28 requests
 * are one session per subject.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpServer, postModern, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import {
  newKey,
  type SigningKey,
  signToken,
  startIssuer,
  type TestIssuer,
} from "../helpers/oauth_issuer.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";

const test = posixOnlyTest("runs sh for the background processes");
const e2e = e2eFixture();

const READ = "toolhost:read";
const WRITE = "toolhost:write";

let issuer: TestIssuer;
let key: SigningKey;
let server: HttpServer;
let root: string;

before(async () => {
  key = await newKey("k1");
  issuer = await startIssuer([key]);
  root = e2e.file.scratch("subjects-root");
  const home = e2e.file.scratch("subjects-config");
  mkdirSync(join(home, "toolhost"));
  writeFileSync(
    join(home, "toolhost", "config.jsonc"),
    JSON.stringify({ http: { auth: { issuer: issuer.issuer } } }),
  );
  server = await startHttpServer(PRODUCT_BINARY, ["--root", root], { XDG_CONFIG_HOME: home }, root);
});

e2e.file.cleanup(async () => {
  await server?.terminate();
  await issuer?.close();
});

function token(sub: string, scope: string): Promise<string> {
  return signToken(key, issuer.issuer, { aud: server.url, sub, scope, expiresIn: 600 });
}

interface Reply {
  text: string;
  isError: boolean;
  data: Record<string, unknown>;
}

interface User {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<Reply>;
  read(uri: string): Promise<string>;
}

/** A legacy session of `sub` holding `scope`. */
async function user(sub: string, scope: string): Promise<User> {
  const bearer = await token(sub, scope);
  const client = new Client({ name: sub, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { text?: string }[];
      return {
        text: content.map((c) => c.text ?? "").join("\n"),
        isError: result.isError === true,
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
    async read(uri) {
      const read = await client.readResource({ uri });
      return read.contents.map((c) => "text" in c ? c.text : "").join("");
    },
  };
}

/** A 2026-07-28 tools/call of `sub`, which names no session. */
async function stateless(sub: string, name: string, args: Record<string, unknown>): Promise<Reply> {
  const bearer = await token(sub, `${READ} ${WRITE}`);
  const response = await postModern(server.url, 1, "tools/call", { name, arguments: args }, {
    authorization: `Bearer ${bearer}`,
  });
  const body = await response.json();
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  const content = body.result.content as { text?: string }[];
  return {
    text: content.map((c) => c.text ?? "").join("\n"),
    isError: body.result.isError === true,
    data: (body.result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

/** The journal id of the newest history line naming `path`, as `who` sees it. */
async function idOf(who: User, path: string): Promise<string> {
  const history = await who.call("history", { path, tool: "write_file" });
  assert.match(history.text, /^\S+ /, history.text);
  return history.text.split(" ")[0];
}

test("bob never sees alice's calls and can undo her edit by no means, by id included", async () => {
  const alice = await user("alice", `${READ} ${WRITE}`);
  const bob = await user("bob", `${READ} ${WRITE}`);
  try {
    const rounds = 10;
    let undone = 0;
    let seen = 0;
    const told: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const file = `alice${i}.txt`;
      const wrote = await alice.call("write_file", { path: file, content: `alice ${i}\n` });
      assert.equal(wrote.isError, false, wrote.text);
      const id = await idOf(alice, file);
      const history = await bob.call("history", {});
      const resource = await bob.read("toolhost://history");
      if (history.text.includes(id) || resource.includes(id) || history.text.includes(file)) seen++;
      for (const args of [{}, { count: 50 }, { id }, { id, force: true }]) {
        await bob.call("undo", args);
      }
      if (!existsSync(join(root, file))) undone++;
      // By id: refused as an id that never was, saying nothing of alice's call.
      const other = id.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
      const byId = await bob.call("undo", { id });
      const never = await bob.call("undo", { id: other });
      if (!byId.isError || byId.text.replaceAll(id, "ID") !== never.text.replaceAll(other, "ID")) {
        told.push(byId.text);
      }
    }
    assert.equal(undone, 0, `bob undid ${undone} of alice's ${rounds} edits`);
    assert.equal(seen, 0, `bob saw ${seen} of alice's ${rounds} calls`);
    assert.deepEqual(told, [], "bob's undo by id was not refused as an unknown id");
    assert.equal(readFileSync(join(root, "alice0.txt"), "utf8"), "alice 0\n");

    // Alice's other session sees her calls, labelled with the session that made them.
    const again = await user("alice", `${READ} ${WRITE}`);
    try {
      const history = await again.call("history", { path: "alice0.txt" });
      assert.match(history.text, /\[session [^\]]+\] write_file/, history.text);
      const id = await idOf(again, "alice0.txt");
      const undo = await again.call("undo", { id });
      assert.equal(undo.isError, false, undo.text);
      assert.equal(existsSync(join(root, "alice0.txt")), false);
    } finally {
      await again.client.close();
    }
  } finally {
    await alice.client.close();
    await bob.client.close();
  }
});

test("bob, with the read scope only, sees none of alice's processes or their output", async () => {
  const alice = await user("alice", `${READ} ${WRITE}`);
  const bob = await user("bob", READ);
  try {
    const started = await alice.call("bash_background", {
      command: "echo alice-output; sleep 30",
      grace_ms: 300,
    });
    const id = started.data.id as string;
    assert.deepEqual((await bob.call("bash_list", {})).data.processes, []);
    const output = await bob.call("bash_output", { id, offset: 0 });
    assert.equal(output.isError, true, output.text);
    assert.doesNotMatch(output.text, /alice-output/);
    assert.deepEqual(JSON.parse(await bob.read("toolhost://processes")).processes, []);
    await assert.rejects(bob.read(`toolhost://processes/${id}/output`), /no background process/);
    // Alice's output was neither read nor consumed by bob's attempts.
    const mine = await alice.call("bash_output", { id, offset: 0 });
    assert.match(mine.text, /alice-output/);
    await alice.call("bash_kill", { id, signal: "SIGKILL" });
  } finally {
    await alice.client.close();
    await bob.client.close();
  }
});

test("each subject has its own task list", async () => {
  const alice = await user("alice", `${READ} ${WRITE}`);
  const bob = await user("bob", `${READ} ${WRITE}`);
  try {
    const made = await alice.call("tasks", { action: "create", text: "alice's secret plan" });
    assert.equal(made.isError, false, made.text);
    const listed = await bob.call("tasks", { action: "list" });
    assert.doesNotMatch(listed.text, /secret plan/);
    assert.doesNotMatch(await bob.read("toolhost://tasks"), /secret plan/);
    const removed = await bob.call("tasks", { action: "remove", task_id: made.data.id as string });
    assert.equal(removed.isError, true, removed.text);
    assert.match((await alice.call("tasks", { action: "list" })).text, /secret plan/);
  } finally {
    await alice.client.close();
    await bob.client.close();
  }
});

test("each subject has its own plan mode: alice's blocks her writes, not bob's, and bob can neither see nor end it", async () => {
  const alice = await user("alice", `${READ} ${WRITE}`);
  const bob = await user("bob", `${READ} ${WRITE}`);
  try {
    const entered = await alice.call("plan_mode", { action: "enter", goal: "alice's secret goal" });
    assert.equal(entered.isError, false, entered.text);
    const hers = await alice.call("write_file", { path: "plan-alice.txt", content: "x\n" });
    assert.equal(hers.isError, true, `plan mode let alice write: ${hers.text}`);
    assert.match(hers.text, /plan mode is on/);
    const his = await bob.call("write_file", { path: "plan-bob.txt", content: "y\n" });
    assert.equal(his.isError, false, `alice's plan mode blocked bob: ${his.text}`);
    const status = await bob.call("plan_mode", { action: "status" });
    assert.equal(status.data.active, false, status.text);
    assert.doesNotMatch(await bob.read("toolhost://plan"), /secret goal/);
    const exited = await bob.call("plan_mode", { action: "exit" });
    assert.doesNotMatch(exited.text, /secret goal/);
    assert.equal((await alice.call("plan_mode", { action: "status" })).data.active, true);
  } finally {
    await alice.call("plan_mode", { action: "reset" });
    await alice.client.close();
    await bob.client.close();
  }
});

test("2026-07-28 requests are one session per subject", async () => {
  const started = await stateless("alice", "bash_background", { command: "sleep 30", grace_ms: 0 });
  const id = started.data.id as string;
  const hers = await stateless("alice", "bash_list", {});
  assert.deepEqual((hers.data.processes as { id: string }[]).map((p) => p.id), [id]);
  assert.deepEqual((await stateless("bob", "bash_list", {})).data.processes, []);
  const kill = await stateless("bob", "bash_kill", { id });
  assert.equal(kill.isError, true, kill.text);
  await stateless("alice", "bash_kill", { id, signal: "SIGKILL" });
});
