/** plan_mode in-process: entering, writing, status, exit and reset, the plan file, and the gate. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CallWrites, SessionMemory, type Tool, type ToolContext } from "../../mcp/tool/mod.ts";
import { projectStateDir, projectStatePath, writeState } from "../../tools/_lib/state.ts";
import bash from "../../tools/shell/bash.ts";
import { planMode } from "../../tools/workflow/plan_mode.ts";
import { planGate } from "../../tools/workflow/_lib/plan_gate.ts";
import editFile from "../../tools/files/edit_file.ts";
import readFile from "../../tools/files/read_file.ts";
import writeFile from "../../tools/files/write_file.ts";
import fetchUrl from "../../tools/web/fetch_url.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { currentStateDir, scratchStateDir } from "../helpers/state_dir.ts";

const state = scratchStateDir();

/** A fresh project (its first root is `root`), and ways to call plan_mode and the gate in it. */
function project(root = scratchDir("toolhost-plan-"), more: string[] = []) {
  const roots = [root, ...more];
  const run = (args: Record<string, unknown>) => callInRoots(planMode, roots, args);
  const ok = async (args: Record<string, unknown>) => {
    const reply = await run(args);
    assert.equal(reply.result.isError, undefined, reply.text);
    return reply;
  };
  const fails = async (args: Record<string, unknown>) => {
    const { result, text } = await run(args);
    assert.equal(result.isError, true, text);
    return text;
  };
  /** What the gate says to `tool` in this project: undefined when it lets the call through. */
  const gate = async (tool: Tool, args: Record<string, unknown> = {}) => {
    const ctx = {
      roots: () => Promise.resolve(roots),
      state: { dir: currentStateDir() },
      // The call's writes, as the server makes them for each call: the gate acts on them.
      writes: new CallWrites(tool.writes, args),
      session: new SessionMemory(), // the machine's user's: no OAuth subject
    } as unknown as ToolContext;
    try {
      await planGate.before!(tool, ctx, args);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  return { root, run, ok, fails, gate };
}

test("enter starts a plan in the state directory; status tells the goal, the time and the size", async () => {
  const p = project();
  const { text, data } = await p.ok({ action: "enter", goal: "Move the API to v2" });
  const planFile = join(await projectStateDir(currentStateDir(), p.root), "plan.md");
  assert.match(text, /^Plan mode is on\. Goal: Move the API to v2\n\nDestructive tools/);
  assert.ok(text.endsWith(`The plan is kept in ${planFile}.`), text);
  assert.equal(readFileSync(planFile, "utf8"), "# Plan\n\nGoal: Move the API to v2\n\n");
  assert.equal(data.active, true);
  assert.equal(data.planFile, planFile);
  assert.equal(data.planBytes, 34);
  assert.ok(planFile.startsWith(state.path));

  const status = await p.ok({ action: "status" });
  assert.match(
    status.text,
    /^Plan mode is on for \d+ s \(since \d{4}-\d\d-\d\dT[\d:.]+Z\)\. Goal: Move the API to v2\nPlan: .*plan\.md, 34 bytes\.\n/,
  );
  assert.equal(status.data.goal, "Move the API to v2");
  assert.equal(typeof status.data.elapsedMs, "number");
});

test("write replaces the plan; exit turns plan mode off and returns the plan", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "g" });
  await p.ok({ action: "write", text: "# Plan\n\n1. first\n" });
  const written = await p.ok({ action: "write", text: "# Plan\n\n1. read\n2. change\n" });
  assert.match(written.text, /^Wrote the plan to .*plan\.md: 26 bytes, 4 lines\./);
  const { text, data } = await p.ok({ action: "exit" });
  assert.match(text, /^Plan mode is off: destructive tools work again\. Present this plan/);
  assert.ok(text.endsWith("\n\n# Plan\n\n1. read\n2. change\n"), text);
  assert.equal(data.plan, "# Plan\n\n1. read\n2. change\n");
  assert.equal(data.planTruncated, false);
  assert.equal(data.active, false);
  assert.equal(data.goal, "g");
  assert.match((await p.ok({ action: "status" })).text, /^Plan mode is off/);
});

test("exit says when nothing was written into the plan", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "g" });
  assert.match((await p.ok({ action: "exit" })).text, /\[the plan is empty: nothing was written/);
});

test("a new plan in the default file starts afresh", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "one" });
  await p.ok({ action: "write", text: "old plan" });
  await p.ok({ action: "exit" });
  await p.ok({ action: "enter", goal: "two" });
  assert.equal((await p.ok({ action: "exit" })).data.plan, "# Plan\n\nGoal: two\n\n");
});

test("a plan_file must be inside the roots; a new one gets a heading, an existing one is kept", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "g", plan_file: "docs/plans/next.md" });
  assert.equal(readFileSync(join(p.root, "docs/plans/next.md"), "utf8"), "# Plan\n\nGoal: g\n\n");
  const status = await p.ok({ action: "status" });
  assert.equal(status.data.planFile, "docs/plans/next.md");
  await p.ok({ action: "write", text: "the plan" });
  assert.equal(readFileSync(join(p.root, "docs/plans/next.md"), "utf8"), "the plan");
  await p.ok({ action: "exit" });

  writeFileSync(join(p.root, "PLAN.md"), "# Plan\n\nkept\n");
  const kept = await p.ok({ action: "enter", goal: "g2", plan_file: "PLAN.md" });
  assert.match(kept.text, /\(it already held 13 bytes, kept as it was\)\.$/);
  assert.equal((await p.ok({ action: "exit" })).data.plan, "# Plan\n\nkept\n");

  assert.match(
    await p.fails({ action: "enter", goal: "g", plan_file: "/etc/plan.md" }),
    /"\/etc\/plan\.md" is outside the allowed roots/,
  );
  mkdirSync(join(p.root, "dir.md"));
  assert.match(
    await p.fails({ action: "enter", goal: "g", plan_file: "dir.md" }),
    /plan_file dir\.md is not a regular file/,
  );
  assert.match((await p.ok({ action: "status" })).text, /^Plan mode is off/);
});

test("a plan longer than a result is cut at exit, with where to read the rest", async () => {
  const p = project();
  writeFileSync(join(p.root, "big.md"), `# Plan\n\n${"x".repeat(40_000)}`);
  await p.ok({ action: "enter", goal: "g", plan_file: "big.md" });
  const { text, data } = await p.ok({ action: "exit" });
  assert.equal((data.plan as string).length, 30_000);
  assert.equal(data.planTruncated, true);
  assert.match(
    text,
    /\[the plan was cut at 30,000 characters of 39 KB; the whole plan is in big\.md\]$/,
  );
});

test("actions out of order are refused with what to do instead", async () => {
  const p = project();
  assert.match(await p.fails({ action: "enter" }), /enter needs `goal`/);
  assert.match(await p.fails({ action: "exit" }), /plan mode is off: there is nothing to exit/);
  assert.match(
    await p.fails({ action: "write", text: "x" }),
    /plan mode is off, so there is no plan/,
  );
  await p.ok({ action: "enter", goal: "first" });
  assert.match(await p.fails({ action: "write" }), /write needs `text`/);
  assert.match(
    await p.fails({ action: "enter", goal: "second" }),
    /plan mode is already on \(goal: first; since .*\): write the plan with action "write"/,
  );
  const reset = await p.ok({ action: "reset" });
  assert.match(reset.text, /^Plan mode was reset \(goal: first\); the plan was not presented/);
  assert.equal(reset.data.plan, undefined);
  assert.match((await p.ok({ action: "reset" })).text, /^Plan mode was already off\./);
});

test("while plan mode is on, destructive tools are refused and the others pass", async () => {
  const p = project();
  assert.equal(await p.gate(bash), undefined);
  await p.ok({ action: "enter", goal: "Tidy the build" });
  const refusal = await p.gate(bash);
  assert.match(
    refusal ?? "",
    /^bash was refused: plan mode is on \(goal: Tidy the build\).*plan_mode with action "exit"/,
  );
  assert.equal(await p.gate(readFile), undefined);
  assert.equal(await p.gate(planMode), undefined);
  await p.ok({ action: "exit" });
  assert.equal(await p.gate(bash), undefined);
});

test("while planning, fetch_url may read but not save_to a file", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "Plan a download" });
  assert.equal(await p.gate(fetchUrl, { url: "https://example.com/" }), undefined);
  assert.match(
    (await p.gate(fetchUrl, { url: "https://example.com/a.zip", save_to: "a.zip" })) ?? "",
    /^fetch_url was refused: plan mode is on .*it blocks writing files \(save_to\)/,
  );
});

test("a plan file inside the roots may be written with write_file and edit_file; nothing else", async () => {
  const p = project();
  await p.ok({ action: "enter", goal: "Plan in the repo", plan_file: "PLAN.md" });
  assert.equal(await p.gate(writeFile, { path: "PLAN.md", content: "# Plan" }), undefined);
  assert.equal(await p.gate(editFile, { path: "./PLAN.md", edits: [] }), undefined);
  assert.match(
    (await p.gate(writeFile, { path: "other.md", content: "x" })) ?? "",
    /^write_file was refused/,
  );
  assert.match((await p.gate(bash, { command: "echo > PLAN.md" })) ?? "", /^bash was refused/);
});

test("the gate sees plan mode entered by another server, and an unreadable state refuses", async () => {
  const p = project();
  assert.equal(await p.gate(bash), undefined);
  const file = join(await projectStateDir(currentStateDir(), p.root), "plan.json");
  // What another toolhost process on this project leaves behind.
  await writeState(file, {
    active: true,
    goal: "elsewhere",
    since: new Date().toISOString(),
    planFile: join(p.root, "p.md"),
  });
  assert.match((await p.gate(bash)) ?? "", /goal: elsewhere/);
  writeFileSync(file, "{ not json");
  assert.match((await p.gate(bash)) ?? "", /plan mode's state cannot be read.*action "reset"/);
  assert.match((await p.ok({ action: "reset" })).text, /unreadable state was cleared/);
  assert.equal(await p.gate(bash), undefined);
});

test("checking a project that never planned leaves no state directory behind", async () => {
  const p = project();
  assert.equal(await p.gate(bash), undefined);
  assert.equal(existsSync(projectStatePath(currentStateDir(), p.root)), false);
});

test("plan_file must be a new markdown file or a plan; any other file is refused and kept", async () => {
  const p = project();
  mkdirSync(join(p.root, "src"));
  writeFileSync(join(p.root, "src/main.ts"), "code\n");
  writeFileSync(join(p.root, "NOTES.md"), "# Notes\n\nmine\n");
  writeFileSync(join(p.root, "src/plan.ts"), "# Plan\n\nlooks like one\n");
  symlinkSync("src/main.ts", join(p.root, "link.md"));
  const refusals: [string, RegExp][] = [
    ["src/main.ts", /^plan_file src\/main\.ts is not a markdown file \(\.md\)/],
    ["src/plan.ts", /^plan_file src\/plan\.ts is not a markdown file/],
    ["new-plan.txt", /^plan_file new-plan\.txt is not a markdown file/],
    ["link.md", /^plan_file src\/main\.ts is not a markdown file/],
    [
      "NOTES.md",
      /^plan_file NOTES\.md already exists and is not a plan \(a plan starts with the line "# Plan"\): name a new file, or leave plan_file out/,
    ],
  ];
  for (const [planFile, refusal] of refusals) {
    assert.match(await p.fails({ action: "enter", goal: "g", plan_file: planFile }), refusal);
  }
  assert.equal(readFileSync(join(p.root, "src/main.ts"), "utf8"), "code\n");
  assert.equal(readFileSync(join(p.root, "NOTES.md"), "utf8"), "# Notes\n\nmine\n");
  assert.match((await p.ok({ action: "status" })).text, /^Plan mode is off/);
  assert.equal(await p.gate(writeFile, { path: "src/main.ts", content: "" }), undefined);
});

test("a plan_file that is a symlink to a plan is kept at the plan's real path", async () => {
  const p = project();
  mkdirSync(join(p.root, "docs"));
  writeFileSync(join(p.root, "docs/plan.md"), "# Plan\n\nold\n");
  symlinkSync("docs/plan.md", join(p.root, "PLAN.md"));
  const { data } = await p.ok({ action: "enter", goal: "g", plan_file: "PLAN.md" });
  assert.equal(data.planFile, "docs/plan.md");
  await p.ok({ action: "write", text: "# Plan\n\nnew\n" });
  assert.equal(readFileSync(join(p.root, "docs/plan.md"), "utf8"), "# Plan\n\nnew\n");
  await p.ok({ action: "exit" });
});

test("a plan kept in a root another server lacks is neither written nor read by that server", async () => {
  const a = scratchDir("toolhost-plan-a-");
  const b = scratchDir("toolhost-plan-b-");
  const wide = project(a, [b]);
  const narrow = project(a);
  const plan = join(b, "PLAN.md");
  await wide.ok({ action: "enter", goal: "g", plan_file: plan });
  await wide.ok({ action: "write", text: "# Plan\n\nsecret\n" });
  const outside = new RegExp(
    `^the plan is kept in ${plan}, outside this server's allowed roots \\(${a}\\)`,
  );
  assert.match(await narrow.fails({ action: "write", text: "overwritten" }), outside);
  assert.match(await narrow.fails({ action: "exit" }), outside);
  assert.equal(readFileSync(plan, "utf8"), "# Plan\n\nsecret\n");
  assert.match((await narrow.ok({ action: "status" })).text, /^Plan mode is on/);
  assert.match(
    (await narrow.gate(writeFile, { path: plan, content: "x" })) ?? "",
    /^write_file was refused/,
  );
  assert.equal(await wide.gate(writeFile, { path: plan, content: "x" }), undefined);
  assert.equal((await wide.ok({ action: "exit" })).data.plan, "# Plan\n\nsecret\n");
});

test("a plan file swapped for a symlink is not followed", async () => {
  const p = project();
  writeFileSync(join(p.root, "secret.txt"), "not for the model\n");
  await p.ok({ action: "enter", goal: "g", plan_file: "PLAN.md" });
  rmSync(join(p.root, "PLAN.md"));
  symlinkSync("secret.txt", join(p.root, "PLAN.md"));
  const swapped =
    /^the plan file PLAN\.md is now a symlink, not a regular file; toolhost does not follow it/;
  assert.match(await p.fails({ action: "exit" }), swapped);
  assert.match(await p.fails({ action: "write", text: "x" }), swapped);
  assert.equal(readFileSync(join(p.root, "secret.txt"), "utf8"), "not for the model\n");
  assert.match(
    (await p.gate(writeFile, { path: "PLAN.md", content: "x" })) ?? "",
    /^write_file was refused/,
  );
  assert.match((await p.ok({ action: "reset" })).text, /^Plan mode was reset/);
});

test("a plan state naming a file that is not markdown opens no exception in the gate", async () => {
  const p = project();
  writeFileSync(join(p.root, "main.ts"), "code\n");
  await writeState(join(await projectStateDir(currentStateDir(), p.root), "plan.json"), {
    active: true,
    goal: "hand-made",
    since: new Date().toISOString(),
    planFile: join(p.root, "main.ts"),
  });
  assert.match(
    (await p.gate(writeFile, { path: "main.ts", content: "" })) ?? "",
    /^write_file was refused: plan mode's state cannot be read/,
  );
  assert.equal(readFileSync(join(p.root, "main.ts"), "utf8"), "code\n");
});

test("plan state that cannot even be looked at refuses destructive tools", async () => {
  const p = project();
  const file = join(await projectStateDir(currentStateDir(), p.root), "plan.json");
  // A symlink to itself: stat fails, and not because the file is missing.
  symlinkSync("plan.json", file);
  assert.match((await p.gate(bash)) ?? "", /^bash was refused: plan mode's state cannot be read/);
  assert.match((await p.ok({ action: "reset" })).text, /unreadable state was cleared/);
  assert.equal(await p.gate(bash), undefined);
});

test("the refusal offers write_file only for a plan file inside the roots", async () => {
  const inState = project();
  await inState.ok({ action: "enter", goal: "g" });
  const refusal = (await inState.gate(bash)) ?? "";
  assert.match(refusal, /finish the plan \(plan_mode with action "write"\), then call plan_mode/);
  assert.doesNotMatch(refusal, /write_file/);

  const inRoots = project();
  await inRoots.ok({ action: "enter", goal: "g", plan_file: "docs/PLAN.md" });
  assert.match(
    (await inRoots.gate(bash)) ?? "",
    /finish the plan \(plan_mode with action "write", or write_file\/edit_file on docs\/PLAN\.md\)/,
  );
});

test("fields an action does not take are refused, by name", async () => {
  const p = project();
  assert.match(
    await p.fails({ action: "enter", goal: "g", text: "the plan" }),
    /^action enter takes no text; it takes goal, plan_file$/,
  );
  assert.match(await p.fails({ action: "status", goal: "g" }), /^action status takes no goal$/);
  await p.ok({ action: "enter", goal: "g" });
  assert.match(
    await p.fails({ action: "write", text: "x", plan_file: "other.md" }),
    /^action write takes no plan_file; it takes text$/,
  );
  assert.match(await p.fails({ action: "exit", goal: "g" }), /^action exit takes no goal$/);
  assert.match((await p.ok({ action: "status" })).text, /^Plan mode is on/);
});
