/**
 * tasks and plan_mode through the binary: what they keep survives a restart, two servers on one
 * project share it without losing or corrupting anything, and plan mode holds back every
 * destructive tool the server offers until it ends.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient } from "../helpers/raw_client.ts";
import { callOk, callTool, toolReply } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

/** A server on `roots` that keeps its state in `state`, started in `cwd`. */
function serve(roots: string | string[], state: string, cwd?: string): RawClient {
  const args = [roots].flat().flatMap((root) => ["--root", root]);
  const client = e2e.server({ args, cwd, env: { TOOLHOST_STATE_DIR: state } });
  return client;
}

async function stop(client: RawClient): Promise<void> {
  assert.deepEqual(await client.close(), { code: 0, signal: null });
}

test("the task list survives a restart", async () => {
  const root = scratch("wf-root");
  const state = scratch("wf-state");
  const first = serve(root, state);
  await callOk(first, "tasks", { action: "create", text: "Set up CI" });
  await callOk(first, "tasks", { action: "create", text: "Write docs" });
  await callOk(first, "tasks", { action: "add", task_id: "t2", text: "Outline" });
  await callOk(first, "tasks", { action: "complete", task_id: "t1" });
  await callOk(first, "tasks", { action: "start", step_id: "t2.1" });
  await stop(first);

  const second = serve(root, state);
  const { text } = await callOk(second, "tasks", { action: "list" });
  assert.equal(
    text,
    "2 tasks: 1 done, 1 in progress, 0 pending; current: t2 Write docs.\n\n" +
      "[x] t1 Set up CI\n" +
      "[~] t2 Write docs (current, 0/1 steps done)\n" +
      "  [~] t2.1 Outline",
  );
  assert.match(
    (await callOk(second, "tasks", { action: "create", text: "Next" })).text,
    /^Created t3/,
  );
});

test("two servers on one project adding tasks at the same time lose nothing", async () => {
  const root = scratch("wf-root");
  const state = scratch("wf-state");
  const servers = [serve(root, state), serve(root, state)];
  const ids: { client: RawClient; id: string | number }[] = [];
  for (let i = 0; i < 20; i++) {
    for (const [n, client] of servers.entries()) {
      const id = client.start(
        "tools/call",
        modern({ name: "tasks", arguments: { action: "create", text: `server ${n} task ${i}` } }),
      );
      ids.push({ client, id });
    }
  }
  const created = await Promise.all(
    ids.map(async ({ client, id }) => toolReply(await client.responseTo(id, 30_000))),
  );
  assert.deepEqual(created.filter((c) => c.isError).map((c) => c.text), []);
  const given = created.map((c) => c.data.id as string).sort();
  assert.deepEqual(given, Array.from({ length: 40 }, (_, i) => `t${i + 1}`).sort());

  const { data } = await callOk(servers[1], "tasks", { action: "list" });
  const titles = (data.tasks as { title: string }[]).map((t) => t.title).sort();
  const expected = [0, 1].flatMap((n) =>
    Array.from({ length: 20 }, (_, i) => `server ${n} task ${i}`)
  ).sort();
  assert.deepEqual(titles, expected);
  // Once both servers are done (the journal writes in the background until then), the file is
  // whole JSON and no lock file is left behind.
  await Promise.all(servers.map(stop));
  const [project] = readdirSync(join(state, "projects"));
  const dir = join(state, "projects", project);
  assert.equal(JSON.parse(readFileSync(join(dir, "tasks.json"), "utf8")).tasks.length, 40);
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith(".lock")), []);
});

/** Arguments that pass `schema`, so a refusal can only come from the gate. */
function sampleOf(schema: Record<string, unknown>): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (variants) return sampleOf(variants[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return "plan-mode-probe".padEnd((schema.minLength as number) ?? 0, "x");
    case "integer":
    case "number":
      return (schema.minimum as number) ?? 1;
    case "boolean":
      return false;
    case "array":
      return Array.from(
        { length: (schema.minItems as number) ?? 0 },
        () => sampleOf((schema.items ?? {}) as Record<string, unknown>),
      );
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((key) => [key, sampleOf(properties[key])]));
    }
    default:
      return null;
  }
}

/** Every tool the server offers, over every page of tools/list. */
async function allTools(client: RawClient) {
  const tools: { name: string; inputSchema: Record<string, unknown>; annotations?: unknown }[] = [];
  let cursor: string | undefined;
  do {
    const reply = await client.request("tools/list", modern(cursor ? { cursor } : {}));
    tools.push(...(reply.result!.tools as typeof tools));
    cursor = reply.result!.nextCursor as string | undefined;
  } while (cursor);
  return tools;
}

test("plan mode refuses every destructive tool until exit, which returns the plan", async () => {
  const root = scratch("wf-root");
  const client = serve(root, scratch("wf-state"));
  const destructive = (await allTools(client)).filter((t) =>
    (t.annotations as { destructiveHint?: boolean } | undefined)?.destructiveHint === true
  );
  const names = destructive.map((t) => t.name);
  for (
    const name of [
      "bash",
      "bash_background",
      "write_file",
      "edit_file",
      "notebook_edit",
      "move_file",
      "copy_file",
      "delete_file",
    ]
  ) {
    assert.ok(names.includes(name), `${name} is annotated destructive: ${names.join(", ")}`);
  }

  await callOk(client, "plan_mode", { action: "enter", goal: "Rename the config module" });
  for (const tool of destructive) {
    const args = sampleOf(tool.inputSchema) as Record<string, unknown>;
    const refused = await callTool(client, tool.name, args);
    assert.equal(refused.isError, true, `${tool.name} ran: ${refused.text}`);
    assert.match(
      refused.text,
      new RegExp(`^${tool.name} was refused: plan mode is on \\(goal: Rename the config module\\)`),
      `${tool.name} with ${JSON.stringify(args)}`,
    );
    assert.match(refused.text, /call plan_mode with action "exit" to present it/);
  }
  assert.equal(existsSync(join(root, "plan-mode-probe")), false);
  // Looking around still works, and so does the task list.
  await callOk(client, "list_dir", {});
  await callOk(client, "tasks", { action: "create", text: "Rename config.ts" });

  await callOk(client, "plan_mode", { action: "write", text: "# Plan\n\n1. Rename config.ts\n" });
  const exit = await callOk(client, "plan_mode", { action: "exit" });
  assert.match(exit.text, /^Plan mode is off: destructive tools work again\./);
  assert.ok(exit.text.endsWith("\n\n# Plan\n\n1. Rename config.ts\n"), exit.text);
  assert.equal(exit.data.plan, "# Plan\n\n1. Rename config.ts\n");

  assert.match((await callOk(client, "bash", { command: "echo released" })).text, /^released\n/);
  await callOk(client, "write_file", { path: "after.txt", content: "x" });
});

test("plan mode survives a restart and binds every server on the project", async () => {
  const root = scratch("wf-root");
  const state = scratch("wf-state");
  const other = serve(root, state);
  await callOk(other, "bash", { command: "true" });

  const first = serve(root, state);
  await callOk(first, "plan_mode", { action: "enter", goal: "Plan the migration" });
  await callOk(first, "plan_mode", { action: "write", text: "step one\n" });
  assert.match((await callTool(other, "bash", { command: "true" })).text, /^bash was refused/);
  await stop(first);

  const restarted = serve(root, state);
  const status = await callOk(restarted, "plan_mode", { action: "status" });
  assert.match(status.text, /^Plan mode is on for \d+ s .*Goal: Plan the migration\n/);
  assert.match((await callTool(restarted, "bash", { command: "true" })).text, /^bash was refused/);
  assert.equal((await callOk(restarted, "plan_mode", { action: "exit" })).data.plan, "step one\n");

  await callOk(other, "bash", { command: "true" });
  await callOk(restarted, "bash", { command: "true" });
});

test("state kept through a symlinked state directory works", async () => {
  const root = scratch("wf-root");
  const real = scratch("wf-state");
  const link = join(scratch("wf-link"), "state");
  symlinkSync(real, link);
  const linked = serve(root, link);
  await callOk(linked, "tasks", { action: "create", text: "Through a link" });
  await callOk(linked, "plan_mode", { action: "enter", goal: "Linked" });
  await callOk(linked, "plan_mode", { action: "write", text: "# Plan\n\nlinked\n" });
  assert.equal(
    (await callOk(linked, "plan_mode", { action: "exit" })).data.plan,
    "# Plan\n\nlinked\n",
  );
  const [project] = readdirSync(join(real, "projects"));
  const saved = JSON.parse(readFileSync(join(real, "projects", project, "tasks.json"), "utf8"));
  assert.equal(saved.tasks[0].title, "Through a link");
});

test("a relative state directory is taken from where the server was started", async () => {
  const root = scratch("wf-root");
  const cwd = scratch("wf-cwd");
  const relative = serve(root, "state/here", cwd);
  await callOk(relative, "tasks", { action: "create", text: "Relative" });
  await callOk(relative, "plan_mode", { action: "enter", goal: "Relative" });
  await callOk(relative, "plan_mode", { action: "exit" });
  assert.ok(existsSync(join(cwd, "state/here/projects")));
});

test("a project whose root has a very long name keeps its state", async () => {
  const root = join(scratch("wf-root"), "r".repeat(250));
  mkdirSync(root);
  const client = serve(root, scratch("wf-state"));
  await callOk(client, "tasks", { action: "create", text: "Long name" });
  await callOk(client, "plan_mode", { action: "enter", goal: "Long name" });
  await callOk(client, "plan_mode", { action: "exit" });
});

test("plan mode never overwrites a file that is not a plan", async () => {
  const root = scratch("wf-root");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src/main.ts"), "code\n");
  writeFileSync(join(root, "README.md"), "# Readme\n");
  const client = serve(root, scratch("wf-state"));
  for (const planFile of ["src/main.ts", "README.md"]) {
    const refused = await callTool(client, "plan_mode", {
      action: "enter",
      goal: "Wipe it",
      plan_file: planFile,
    });
    assert.equal(refused.isError, true, refused.text);
    assert.match(refused.text, /^plan_file .* (is not a markdown file|is not a plan)/);
  }
  await callOk(client, "plan_mode", { action: "enter", goal: "Plan it", plan_file: "PLAN.md" });
  assert.match(
    (await callTool(client, "write_file", { path: "src/main.ts", content: "" })).text,
    /^write_file was refused: plan mode is on .*write_file\/edit_file on PLAN\.md\)/,
  );
  await callOk(client, "write_file", { path: "PLAN.md", content: "# Plan\n\n1. Keep main.ts\n" });
  assert.equal(
    (await callOk(client, "plan_mode", { action: "exit" })).data.plan,
    "# Plan\n\n1. Keep main.ts\n",
  );
  assert.equal(readFileSync(join(root, "src/main.ts"), "utf8"), "code\n");
  assert.equal(readFileSync(join(root, "README.md"), "utf8"), "# Readme\n");
});

test("a server without the plan's root can neither write nor read the plan", async () => {
  const a = scratch("wf-root-a");
  const b = scratch("wf-root-b");
  const state = scratch("wf-state");
  const wide = serve([a, b], state);
  const narrow = serve(a, state);
  const plan = join(b, "PLAN.md");
  await callOk(wide, "plan_mode", { action: "enter", goal: "Across roots", plan_file: plan });
  await callOk(wide, "plan_mode", { action: "write", text: "# Plan\n\nonly in b\n" });
  for (const args of [{ action: "write", text: "from a" }, { action: "exit" }]) {
    const refused = await callTool(narrow, "plan_mode", args);
    assert.equal(refused.isError, true, refused.text);
    assert.match(refused.text, /outside this server's allowed roots/);
  }
  assert.equal(readFileSync(plan, "utf8"), "# Plan\n\nonly in b\n");
  assert.equal(
    (await callOk(wide, "plan_mode", { action: "exit" })).data.plan,
    "# Plan\n\nonly in b\n",
  );
});

test("a tasks.json edited by hand lists with its own fields left out, or says what to fix", async () => {
  const root = scratch("wf-root");
  const state = scratch("wf-state");
  const client = serve(root, state);
  await callOk(client, "tasks", { action: "list" });
  const [project] = readdirSync(join(state, "projects"));
  const file = join(state, "projects", project, "tasks.json");
  const step = { id: "t1.1", text: "Draft", status: "pending", estimate: "2h" };
  const task = { id: "t1", title: "Docs", status: "pending", steps: [step], nextStep: 2 };
  writeFileSync(file, JSON.stringify({ nextTask: 2, current: "t1", tasks: [task] }));
  const listed = await callOk(client, "tasks", { action: "list" });
  assert.deepEqual((listed.data.tasks as { steps: unknown[] }[])[0].steps, [
    { id: "t1.1", text: "Draft", status: "pending" },
  ]);
  assert.match(
    (await callOk(client, "tasks", { action: "start", step_id: "t1.1" })).text,
    /^Started t1\.1/,
  );

  writeFileSync(file, JSON.stringify({ nextTask: 2, current: "t1", tasks: [task, task] }));
  const refused = await callTool(client, "tasks", { action: "create", text: "More" });
  assert.equal(refused.isError, true);
  assert.match(
    refused.text,
    /does not hold a valid task list \(task id t1 appears twice\); fix or remove it/,
  );
});
