/** The command line of dist/toolhost. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { test } from "node:test";
import { binary, PRODUCT_BINARY, ROOT } from "../helpers/raw_client.ts";

const run = (...args: string[]) =>
  spawnSync(binary(PRODUCT_BINARY), args, { encoding: "utf8", input: "" });

test("--version prints the package version and the commit", () => {
  const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
  const out = run("--version");
  assert.equal(out.status, 0);
  // The build records the commit ("+changes" when the work tree differs; "unknown" without git).
  const commit = "([0-9a-f]{12}(\\+changes)?|unknown)";
  const expected = `^toolhost ${version.replaceAll(".", "\\.")} \\(commit ${commit}\\)\n$`;
  assert.match(out.stdout, new RegExp(expected));
});

test("--help describes the options and exits 0", () => {
  const out = run("--help");
  assert.equal(out.status, 0);
  assert.match(out.stdout, /--max-line-mb/);
  assert.match(out.stdout, /2026-07-28/);
});

test("--list-tools lists bash", () => {
  const out = run("--list-tools");
  assert.equal(out.status, 0);
  assert.match(out.stdout, /^bash\s+Run a shell command$/m);
});

test("an unknown flag or a bad value is an error on stderr with exit 2 and nothing on stdout", () => {
  // A bad value is served over stdio instead (config_test.ts): --list-tools is read by a person.
  for (
    const args of [
      ["--bogus"],
      ["--max-line-mb", "zero", "--list-tools"],
      ["--max-line-mb", "Infinity", "--list-tools"],
      ["--log-level", "loud", "--list-tools"],
      ["--root", "/no/such/dir", "--list-tools"],
      ["extra"],
      ["--port", "8080"],
      ["review", "--http", "0"],
      ["review", "--port", "http"],
    ]
  ) {
    const out = run(...args);
    assert.equal(out.status, 2, args.join(" "));
    assert.equal(out.stdout, "");
    // Flag values are checked by the configuration loader, which reports them in its own words.
    assert.match(
      out.stderr,
      /^toolhost: (.+\nRun toolhost --help for the options|the configuration has problems:\n.+)\.?\n$/,
    );
  }
});

test("an unknown flag names the known flag it most likely meant", () => {
  for (
    const [typed, meant] of [
      ["--rot", "--root"],
      ["--readonly", "--read-only"],
      ["--profle", "--profile"],
      ["--list-tool", "--list-tools"],
    ]
  ) {
    const out = run(typed, "x");
    assert.equal(out.status, 2, typed);
    assert.equal(out.stdout, "");
    assert.match(
      out.stderr,
      new RegExp(`^toolhost: unknown flag "${typed}"; did you mean ${meant}\\?\n`),
    );
  }
  const far = run("--zzzzzzzzzz");
  assert.match(far.stderr, /^toolhost: unknown flag "--zzzzzzzzzz"\n/);
  // What was typed is repeated bounded, however long.
  const long = run(`--${"q".repeat(100_000)}`);
  assert.equal(long.status, 2);
  assert.ok(long.stderr.length < 1000, `${long.stderr.length} characters on stderr`);
});

test("--profile: companion and the client profiles leave out what clients have built in, read-only what changes things", () => {
  const names = (...args: string[]) =>
    run("--list-tools", ...args).stdout.trim().split("\n").map((line) => line.split(/\s+/)[0]);
  const full = names();
  const companion = names("--profile", "companion");
  const readOnly = names("--profile", "read-only");
  for (const builtIn of ["bash", "write_file", "edit_file", "grep", "glob"]) {
    assert.ok(full.includes(builtIn), builtIn);
    assert.ok(!companion.includes(builtIn), `companion offers ${builtIn}`);
  }
  for (const kept of ["read_file", "fetch_url", "history", "undo", "tasks", "skill"]) {
    assert.ok(companion.includes(kept), `companion lacks ${kept}`);
  }
  assert.ok(readOnly.includes("read_file") && !readOnly.includes("write_file"));
  // Claude Code and Gemini CLI have a task list, plan mode, questions, web search and fetch and
  // skills of their own; the documents, undo and code tools stay.
  for (const client of ["claude-code", "gemini-cli"]) {
    const lean = names("--profile", client);
    for (const theirs of ["tasks", "plan_mode", "ask_user", "web_search", "fetch_url", "skill"]) {
      assert.ok(companion.includes(theirs) && !lean.includes(theirs), `${client}: ${theirs}`);
    }
    for (const kept of ["read_file", "move_file", "history", "undo", "symbols", "code_nav"]) {
      assert.ok(lean.includes(kept), `${client} lacks ${kept}`);
    }
  }
  // The review app's own tool is no model's: not listed, in any profile.
  assert.ok(!full.includes("history_changes"), full.join(" "));
  assert.deepEqual(names("--read-only"), readOnly);
  // Composed with tools.deny, and the same through the environment.
  const env = { ...process.env, TOOLHOST_TOOLS_PROFILE: "companion", TOOLHOST_TOOLS_DENY: "undo" };
  const out = spawnSync(binary(PRODUCT_BINARY), ["--list-tools"], { encoding: "utf8", env });
  const viaEnv = out.stdout.trim().split("\n").map((line) => line.split(/\s+/)[0]);
  assert.deepEqual(viaEnv, companion.filter((name) => name !== "undo"));
  const bad = run("--profile", "tiny", "--list-tools");
  assert.equal(bad.status, 2);
  assert.match(
    bad.stderr,
    /tools\.profile is the string "tiny"; allowed: one of "full", "companion", "claude-code", "gemini-cli", "read-only"/,
  );
});

test("--mcp-json suggests a profile on stderr unless one is named, and forwards --profile", () => {
  const plain = run("--mcp-json");
  assert.equal(plain.status, 0);
  JSON.parse(plain.stdout);
  assert.match(plain.stderr, /--profile companion/);
  const named = run("--mcp-json", "--profile", "companion");
  const entry = JSON.parse(named.stdout).mcpServers.toolhost;
  assert.deepEqual(entry.args.slice(-2), ["--profile", "companion"]);
  assert.equal(named.stderr, "");
});
