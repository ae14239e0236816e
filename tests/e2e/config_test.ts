/**
 * Configuration through the binary: sources and their precedence, errors with positions, the
 * read-only profile and deny list, a custom command tool, --print-config and --mcp-json.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import {
  isolatedEnv,
  type Message,
  modern,
  PRODUCT_BINARY,
  RawClient,
} from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const scratch = (name: string) => e2e.scratch(name);

/** A project directory with a .toolhost.jsonc, and a user config home with config.jsonc. */
function setup(project: string, user = "{}") {
  const dir = scratch("config-project");
  const configHome = scratch("config-home");
  mkdirSync(join(configHome, "toolhost"));
  writeFileSync(join(dir, ".toolhost.jsonc"), project);
  writeFileSync(join(configHome, "toolhost", "config.jsonc"), user);
  // The user file: $XDG_CONFIG_HOME/toolhost/ on Linux, %APPDATA%\toolhost\ on Windows.
  return { dir, env: { XDG_CONFIG_HOME: configHome, APPDATA: configHome } };
}

const run = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(PRODUCT_BINARY, args, {
    cwd,
    encoding: "utf8",
    input: "",
    env: { ...process.env, ...isolatedEnv(), ...env },
  });

const e2e = e2eFixture();

async function toolNames(c: RawClient): Promise<string[]> {
  const reply = await c.request("tools/list", modern());
  return (reply.result?.tools as { name: string }[]).map((t) => t.name);
}

const text = (reply: Message) =>
  ((reply.result?.content ?? []) as { text?: string }[]).map((b) => b.text ?? "").join("\n");

test("each source overrides the one below: flag, environment, project file, user file, default", () => {
  const { dir, env } = setup(
    `{
      // the project's own
      "limits": { "output_chars": 5000, "bash_timeout_ms": 7000, },
      "log_level": "notice",
    }`,
    `{ "limits": { "output_chars": 4000, "fetch_timeout_ms": 9000 }, "log_level": "debug",
       "read_only": false }`,
  );
  const out = run(dir, ["--print-config", "--log-level", "error"], {
    ...env,
    TOOLHOST_BASH_TIMEOUT_MS: "8000",
  });
  assert.equal(out.status, 0, out.stderr);
  const line = (key: string) => out.stdout.split("\n").find((l) => l.includes(`"${key}"`)) ?? "";
  assert.match(line("log_level"), /"error",?\s+\/\/ flag --log-level/);
  assert.match(line("bash_timeout_ms"), /8000,?\s+\/\/ env TOOLHOST_BASH_TIMEOUT_MS/);
  assert.match(line("output_chars"), /5000,?\s+\/\/ project file .*\.toolhost\.jsonc:3/);
  assert.match(line("fetch_timeout_ms"), /9000,?\s+\/\/ user file .*config\.jsonc:1/);
  assert.match(line("fetch_max_bytes"), /10485760,?\s+\/\/ default/);
});

test("a bad file: each problem at its line and column, on stderr and exit 2 where a person reads it (--print-config, --list-tools)", () => {
  const { dir, env } = setup(`{
  "tols": { "deny": ["bash"] },
  "limits": { "output_chars": 5 }
}`);
  for (const flag of ["--print-config", "--list-tools"]) {
    const out = run(dir, [flag], env);
    assert.equal(out.status, 2, flag);
    assert.equal(out.stdout, "");
    assert.match(out.stderr, /\.toolhost\.jsonc:2:3: unknown key "tols"; did you mean "tools"\?/);
    assert.match(
      out.stderr,
      /\.toolhost\.jsonc:3:31: limits\.output_chars is 5, below the minimum 1000/,
    );
  }
});

test("a bad file served over stdio: the client connects, the instructions lead with the problems and every tool call answers with them, running nothing", async () => {
  const { dir, env } = setup(`{
  "tols": { "deny": ["bash"] },
  "limits": { "output_chars": 5 }
}`);
  const client = e2e.server({ cwd: dir, env, args: ["--profile", "claude-code"] });
  const init = await client.initialize("2025-11-25");
  const instructions = (init.result as { instructions: string }).instructions;
  assert.match(instructions, /^toolhost cannot work: its configuration has problems:\n/);
  assert.match(instructions, /\.toolhost\.jsonc:2:3: unknown key "tols"/);
  assert.match(instructions, /\.toolhost\.jsonc:3:31: limits\.output_chars is 5/);
  // The profile the client asked for on the command line is what it is shown.
  const listed = await client.request("tools/list", {});
  const names = (listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  assert.ok(names.includes("read_file") && !names.includes("bash"), names.join(" "));
  writeFileSync(join(dir, "kept.txt"), "as it was\n");
  for (
    const [name, args] of [
      ["read_file", { path: "kept.txt" }],
      ["delete_file", { path: "kept.txt" }],
      ["history", {}],
    ] as const
  ) {
    const reply = await callTool(client, name, args, { legacy: true });
    assert.equal(reply.isError, true, reply.text);
    assert.match(reply.text, /^toolhost did not run this: its configuration has problems/);
    assert.match(reply.text, /\.toolhost\.jsonc:2:3: unknown key "tols"/);
  }
  assert.equal(readFileSync(join(dir, "kept.txt"), "utf8"), "as it was\n");
  // Nothing of the modules runs: no resources, no prompts.
  const resources = await client.request("resources/list", {});
  assert.ok(
    resources.error || (resources.result as { resources: unknown[] }).resources.length === 0,
  );
});

test("an empty or comment-only config file is a warning on stderr naming it; the server runs", () => {
  const { dir, env } = setup("// to do\n");
  const out = run(dir, ["--print-config"], env);
  assert.equal(out.status, 0, out.stderr);
  assert.match(
    out.stderr,
    /^toolhost warning: \S+\.toolhost\.jsonc: the project file holds no settings \(it is empty, or only whitespace and comments\), so it changes nothing; write \{\} in it if that is on purpose$/m,
  );
  assert.match(run(setup("{}").dir, ["--print-config"], env).stderr, /^$/);
});

test("a custom tool's bad {placeholder}: the --config file's line and column, named as the file", () => {
  const { dir, env } = setup("{}");
  const file = join(dir, "mine.jsonc");
  writeFileSync(
    file,
    `{
  "custom_tools": {
    "greet": { "description": "Greets", "command": ["echo", "{missing}"] }
  }
}`,
  );
  const out = run(dir, ["--list-tools", "--config", file], env);
  assert.equal(out.status, 2);
  assert.match(
    out.stderr,
    new RegExp(
      `${
        file.replaceAll(".", "\\.")
      }:3:5: custom tool "greet": command\\[1\\] "\\{missing\\}" uses \\{missing\\}`,
    ),
  );
  assert.doesNotMatch(out.stderr, /project file/);
  const shown = run(dir, ["--print-config", "--config", file.replace("mine", "other")], env);
  assert.match(shown.stderr, /other\.jsonc: no such file \(named by --config\)/);
});

test("the read-only profile offers only read-only tools; a deny list hides what it names", async () => {
  const { dir, env } = setup(`{ "tools": { "deny": ["bash*", "fetch_url"] } }`);
  let client = e2e.server({ cwd: dir, env });
  const denied = await toolNames(client);
  assert.ok(denied.includes("read_file") && denied.includes("write_file"));
  for (const name of ["bash", "bash_background", "bash_output", "fetch_url"]) {
    assert.ok(!denied.includes(name), `${name} is denied`);
  }
  await client.close();
  client = e2e.server({ args: ["--read-only"], cwd: dir, env });
  const readOnly = await toolNames(client);
  for (const name of ["write_file", "edit_file", "move_file", "create_directory", "tasks"]) {
    assert.ok(!readOnly.includes(name), `${name} writes`);
  }
  assert.ok(readOnly.includes("read_file") && readOnly.includes("grep"));
  const refused = await client.request("tools/call", modern({ name: "write_file", arguments: {} }));
  assert.equal(refused.error?.code, -32602, "a hidden tool cannot be called either");
});

test(
  "a custom command tool passes hostile-looking arguments literally, one argv slot each",
  posixOnly("the custom tool is printf and the check is test -e"),
  async () => {
    const { dir, env } = setup(`{
    "custom_tools": {
      "show_args": {
        "description": "Prints each argument on its own line.",
        "input": {
          "type": "object",
          "properties": { "target": { "type": "string" }, "mode": { "type": "string" } },
          "required": ["target"]
        },
        "command": ["printf", "[%s]\\\\n", "--mode={mode}", "{target}"],
        "destructive": false
      }
    }
  }`);
    const client = e2e.server({ cwd: dir, env });
    const tools = (await client.request("tools/list", modern())).result?.tools as {
      name: string;
      annotations: Record<string, boolean>;
    }[];
    const listed = tools.find((t) => t.name === "show_args");
    assert.equal(listed?.annotations.destructiveHint, false);
    const marker = join(dir, "pwned");
    const hostile = `; rm -rf / $(touch ${marker}) \`touch ${marker}\` "quoted" *`;
    const reply = await client.request(
      "tools/call",
      modern({ name: "show_args", arguments: { target: hostile, mode: "a b" } }),
    );
    assert.equal(reply.result?.isError, undefined, text(reply));
    assert.ok(text(reply).startsWith(`[--mode=a b]\n[${hostile}]\n`), text(reply));
    assert.equal(spawnSync("test", ["-e", marker]).status, 1, "nothing was executed");
  },
);

test(
  'shell_env "login": commands see what the login shell sets up, nothing leaks to the client',
  posixOnly("a fake login shell (#!/bin/sh, chmod 755); Windows has no login shell"),
  async () => {
    const { dir, env } = setup("{}");
    const shell = join(dir, "fake-login-shell");
    // Called as: shell -l -i -c SCRIPT; sets what a ~/.profile would, and chats on stdout as rc
    // files do, which must not reach the client.
    writeFileSync(shell, '#!/bin/sh\necho welcome\nFROM_PROFILE=yes exec /bin/sh -c "$4"\n');
    chmodSync(shell, 0o755);
    const client = e2e.server({
      cwd: dir,
      env: {
        ...env,
        SHELL: shell,
        TOOLHOST_SHELL_ENV: "login",
      },
    });
    const reply = await client.request(
      "tools/call",
      modern({ name: "bash", arguments: { command: 'echo "profile=$FROM_PROFILE"' } }),
    );
    assert.match(text(reply), /^profile=yes$/m);
    assert.deepEqual(client.strayLines, []);
  },
);

test("the configured output limit cuts bash's output", async () => {
  const { dir, env } = setup(`{ "limits": { "output_chars": 1000 } }`);
  const client = e2e.server({ cwd: dir, env });
  const reply = await client.request(
    "tools/call",
    modern({ name: "bash", arguments: { command: "seq 1 5000" } }),
  );
  assert.ok(text(reply).length < 1500, `${text(reply).length} characters`);
  assert.match(text(reply), /characters? cut|cut/);
});

test("--mcp-json prints an entry that starts a working server", async () => {
  const dir = scratch("mcp-json");
  const out = run(dir, ["--mcp-json", "--root", ".", "--read-only"]);
  assert.equal(out.status, 0, out.stderr);
  const entry = JSON.parse(out.stdout).mcpServers.toolhost;
  assert.equal(entry.command, realpathSync(PRODUCT_BINARY));
  assert.deepEqual(entry.args, ["--root", dir, "--read-only"]);
  // Only the flags that shape a session are repeated, paths as the server reads them.
  const home = scratch("mcp-json-home");
  const odd = run(dir, ["--mcp-json", "--list-tools", "--root=~/proj", "--log-level=debug"], {
    HOME: home,
  });
  assert.deepEqual(JSON.parse(odd.stdout).mcpServers.toolhost.args, [
    "--root",
    join(home, "proj"),
    "--log-level",
    "debug",
  ]);
  // Started from elsewhere, as a client would.
  const child = spawn(entry.command, entry.args, {
    cwd: tmpdir(),
    env: { ...process.env, ...isolatedEnv(), ...entry.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => lines.push(chunk));
  child.stdin.end(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: modern({ name: "list_roots", arguments: {} }),
    }) + "\n",
  );
  await new Promise((resolve) => child.once("exit", resolve));
  const reply = JSON.parse(lines.join("").split("\n")[0]);
  assert.match(JSON.stringify(reply.result.content), new RegExp(dir.replaceAll("/", "\\/")));
});
