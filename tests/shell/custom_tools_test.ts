/**
 * Custom tools from the config, through the server: arguments reach the program literally, one
 * argv entry each, never through a shell; templates, schema checks, timeouts, cancel, caps.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Tool } from "../../mcp/tool/mod.ts";
import { checkInputSchemas, customTools } from "../../tools/shell/_lib/custom_tools.ts";
import type { CustomToolSpec } from "../../config/settings.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { isRunning, processesWith, waitUntil } from "../helpers/processes.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";

const test = posixOnlyTest(
  "the custom tools are sh scripts (#!/bin/sh, chmod 755) and are stopped by process group",
);

type Result = {
  content: { text: string }[];
  structuredContent?: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    truncated: boolean;
    durationMs: number;
  };
  isError?: boolean;
};

const scratch = () => realpathSync(mkdtempSync(join(tmpdir(), "toolhost-custom-")));
/** The roots of a call whose commands write into `root` (the sandbox keeps writes in the roots). */
const rootsOf = (root?: string) =>
  root ? { fixed: [root], fallback: [] } : { fixed: [], fallback: [process.cwd()] };

/** A directory holding `args.sh`, which prints each argument it gets followed by a NUL. */
function scriptDir(): string {
  const dir = scratch();
  writeFileSync(join(dir, "args.sh"), "#!/bin/sh\nprintf '%s\\0' \"$@\"\n");
  chmodSync(join(dir, "args.sh"), 0o755);
  return dir;
}

const OPTIONS = { outputChars: 30_000, maxTimeoutMs: 600_000 };

function build(
  specs: Record<string, CustomToolSpec>,
  options: { configDir?: string; outputChars?: number; maxTimeoutMs?: number } = {},
): Tool[] {
  return customTools(specs, { ...OPTIONS, ...options });
}

/** Calls `name` in a legacy session of its own; `root`, when given, is its root (where its commands
 * may write). The result, and the connection. */
async function call(
  tools: Tool[],
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
  root?: string,
) {
  const h = harness(tools, undefined, rootsOf(root));
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const reply = await callTool(h, name, args, { legacy: true, meta });
  return { result: reply.result as unknown as Result, h };
}

/** The arguments args.sh received, from its NUL-separated output. */
function argvOf(result: Result): string[] {
  assert.equal(result.isError, undefined, result.content[0].text);
  const text = result.content[0].text.replace(/\n\n\[exit code 0 · \d+ ms\]$/, "");
  if (text === "(no output)") return [];
  assert.ok(text.endsWith("\0"), JSON.stringify(text));
  return text.slice(0, -1).split("\0");
}

test("hostile-looking arguments reach the program literally, one argv entry each, and run nothing", async () => {
  const dir = scriptDir();
  const marker = join(dir, "marker");
  const victim = join(dir, "victim");
  mkdirSync(victim);
  const tools = build({
    echo_args: {
      description: "Prints its arguments.",
      input: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "string" } },
        required: ["a"],
        additionalProperties: false,
      },
      command: ["./args.sh", "{a}", "--b={b}"],
    },
  }, { configDir: dir });
  const hostile = [
    `; rm -rf ${victim}`,
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `x\ntouch ${marker}`,
    `&& touch ${marker} || touch ${marker}`,
    `| tee ${marker}`,
    `'"'"'; touch ${marker}; echo "`,
    "*",
    "~ $HOME ${PATH} %s \\n",
    "",
    "-n",
    "  spaced  out  ",
  ];
  for (const value of hostile) {
    const { result } = await call(tools, "echo_args", { a: value, b: value });
    assert.deepEqual(argvOf(result), [value, `--b=${value}`]);
  }
  assert.equal(existsSync(marker), false, "no command in an argument was executed");
  assert.equal(existsSync(victim), true, "the rm in an argument did not run");
});

test("the same with printf found on PATH: the value is data, never the format", async () => {
  const tools = build({
    say: {
      description: "Prints a line",
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      command: ["printf", "%s\\n", "{text}"],
    },
  });
  const { result } = await call(tools, "say", { text: "%d $(id) `id`" });
  assert.match(result.content[0].text, /^%d \$\(id\) `id`\n\n\[exit code 0/);
});

test("a placeholder within a slot, {{ }} escapes, absent optional arguments and defaults", async () => {
  const dir = scriptDir();
  const tools = build({
    deploy: {
      description: "",
      input: {
        type: "object",
        properties: {
          env: { type: "string", enum: ["staging", "prod"] },
          region: { type: "string" },
          flag: { type: "string", enum: ["--dry-run"] },
          level: { type: "integer", default: 3 },
          force: { type: "boolean" },
          meta: { type: "object" },
        },
        required: ["env"],
        additionalProperties: false,
      },
      command: [
        "./args.sh",
        "--env={env}",
        "{{literal}}",
        "{{{env}}}",
        "{flag}",
        "--region={region}",
        "{env}:{region}",
        "-l{level}",
        "--force={force}",
        "{meta}",
        "end",
      ],
    },
  }, { configDir: dir });

  const bare = await call(tools, "deploy", { env: "prod" });
  assert.deepEqual(argvOf(bare.result), [
    "--env=prod",
    "{literal}",
    "{prod}",
    "-l3",
    "end",
  ]);

  const full = await call(tools, "deploy", {
    env: "staging",
    region: "eu west",
    flag: "--dry-run",
    level: 7,
    force: false,
    meta: { a: [1, "x y"] },
  });
  assert.deepEqual(argvOf(full.result), [
    "--env=staging",
    "{literal}",
    "{staging}",
    "--dry-run",
    "--region=eu west",
    "staging:eu west",
    "-l7",
    "--force=false",
    '{"a":[1,"x y"]}',
    "end",
  ]);
});

test("a list fills its own slot with one entry per element, or none", async () => {
  const dir = scriptDir();
  const tools = build({
    add: {
      description: "git add, pretend",
      input: {
        type: "object",
        properties: { paths: { type: "array", items: { type: "string" } } },
        additionalProperties: false,
      },
      command: ["./args.sh", "add", "--", "{paths}"],
    },
  }, { configDir: dir });
  const some = await call(tools, "add", { paths: ["a b.txt", "$(x)", "-rf"] });
  assert.deepEqual(argvOf(some.result), ["add", "--", "a b.txt", "$(x)", "-rf"]);
  const none = await call(tools, "add", { paths: [] });
  assert.deepEqual(argvOf(none.result), ["add", "--"]);
  const absent = await call(tools, "add", {});
  assert.deepEqual(argvOf(absent.result), ["add", "--"]);
});

test("a list in a shared slot is refused at build time, or at call time when the schema allows one", async () => {
  assert.throws(
    () =>
      build({
        bad: {
          description: "",
          input: { type: "object", properties: { p: { type: "array" } } },
          command: ["echo", "--p={p}"],
        },
      }),
    /custom tool "bad": command\[1\] "--p=\{p\}": \{p\} is a list, which can only fill a slot of its own/,
  );
  const tools = build({
    loose: {
      description: "",
      input: { type: "object", properties: { p: { type: ["string", "array"] } } },
      command: ["echo", "--p={p}"],
    },
  });
  const { result } = await call(tools, "loose", { p: ["a", "b"] });
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /p must not be a list here/);
});

test("templates that cannot work are refused when the tools are built, naming tool and problem", () => {
  const cases: [CustomToolSpec, RegExp, string?][] = [
    [
      {
        description: "",
        input: { type: "object", properties: { env: { type: "string" } } },
        command: ["deploy", "--target={target}"],
      },
      /custom tool "t": command\[1\] "--target=\{target\}" uses \{target\}, which is not a property of its input schema \(properties: env\)/,
    ],
    [
      { description: "", command: ["deploy", "{env}"] },
      /uses \{env\}, which is not a property of its input schema \(it has no properties\)/,
    ],
    [{ description: "", command: ["echo", "a}b"] }, /a lone \} \(write \}\} for a literal brace\)/],
    [{ description: "", command: ["echo", "{oops"] }, /a \{ that does not start a \{placeholder\}/],
    [{ description: "", command: ["echo", "{}"] }, /a \{ that does not start a \{placeholder\}/],
    [
      {
        description: "",
        input: { type: "object", properties: { p: { type: "string" } } },
        command: ["{p}"],
      },
      /command\[0\] "\{p\}" must name a fixed program/,
    ],
    [{ description: "", command: [] }, /command must be a list of strings/],
    [{ description: "", command: "ls -la" as unknown as string[] }, /command must be a list/],
    [{ description: "", command: ["ls"], timeout: 5 } as CustomToolSpec, /unknown field timeout/],
    [{ description: "", command: ["ls"], timeout_ms: -1 }, /timeout_ms must be a positive/],
    [{ description: "", command: ["ls"], env: { A: 1 } } as never, /env must be an object whose/],
    [
      { description: "", command: ["ls"], input: { type: "array" } },
      /input must describe an object/,
    ],
    [{ description: "", command: ["ls"] }, /the name must match/, "bad name"],
  ];
  for (const [spec, message, name] of cases) {
    assert.throws(() => build({ [name ?? "t"]: spec }), message, JSON.stringify(spec));
  }
});

test("checkInputSchemas names a tool whose input is not valid JSON Schema", async () => {
  const tools = build({
    good: {
      description: "",
      input: { type: "object", properties: { a: { type: "string" } } },
      command: ["echo", "{a}"],
    },
    broken: {
      description: "",
      input: { type: "object", properties: { a: { type: "strng" } } },
      command: ["echo", "{a}"],
    },
  });
  await checkInputSchemas([tools[0]]);
  await assert.rejects(
    checkInputSchemas(tools),
    /^Error: custom tool "broken": input is not a valid JSON Schema: .*type/,
  );
});

test("arguments that fail the schema give an error result the model can act on", async () => {
  const tools = build({
    deploy: {
      description: "",
      input: {
        type: "object",
        properties: { env: { type: "string", enum: ["staging", "prod"] } },
        required: ["env"],
        additionalProperties: false,
      },
      command: ["echo", "{env}"],
    },
    plain: { description: "", command: ["echo", "hi"] },
  });
  const wrong = await call(tools, "deploy", { env: "moon", extra: 1 });
  assert.equal(wrong.result.isError, true);
  assert.match(wrong.result.content[0].text, /^Invalid arguments for deploy:/);
  assert.match(wrong.result.content[0].text, /env/);
  const missing = await call(tools, "deploy", {});
  assert.equal(missing.result.isError, true);
  const extra = await call(tools, "plain", { anything: "x" });
  assert.equal(extra.result.isError, true, "no input means no arguments at all");
  const ok = await call(tools, "plain", {});
  assert.equal(ok.result.content[0].text.split("\n")[0], "hi");
});

test("a non-zero exit is an error result with the output and the code", async () => {
  const tools = build({
    fails: { description: "", command: ["sh", "-c", "echo out; echo err >&2; exit 3"] },
  });
  const { result } = await call(tools, "fails", {});
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent?.exitCode, 3);
  assert.match(result.content[0].text, /^out\nerr\n\n\[exit code 3 · \d+ ms\]$/);
});

test("stdout and stderr interleave exactly as written", async () => {
  const tools = build({
    both: {
      description: "",
      command: ["sh", "-c", "echo 1; echo 2 >&2; echo 3; echo 4 >&2; echo 5"],
    },
  });
  for (let i = 0; i < 10; i++) {
    const { result } = await call(tools, "both", {});
    assert.match(result.content[0].text, /^1\n2\n3\n4\n5\n\n\[exit code 0/);
  }
});

test("the output socket's private directory is gone after each call", async () => {
  const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith("toolhost-out-"));
  const before = leftovers().length;
  const tools = build({ hi: { description: "", command: ["echo", "hi"] } });
  for (let i = 0; i < 5; i++) await call(tools, "hi", {});
  assert.equal(leftovers().length, before);
});

test("without a usable temporary directory, output still comes back (through two pipes)", async () => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = "/nonexistent/toolhost";
  try {
    const tools = build({
      both: { description: "", command: ["sh", "-c", "echo out; sleep 0.1; echo err >&2; exit 4"] },
    });
    const { result } = await call(tools, "both", {});
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^out\nerr\n\n\[exit code 4 · \d+ ms\]$/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});

test("a background process holding the output open does not hold up the result", async () => {
  const dir = scratch();
  const tools = build({
    spawner: {
      description: "",
      input: { type: "object", properties: { pidfile: { type: "string" } } },
      command: ["sh", "-c", 'sleep 20 & echo $! > "$1"; echo started', "sh", "{pidfile}"],
    },
  });
  const { result } = await call(tools, "spawner", { pidfile: join(dir, "pid") }, undefined, dir);
  assert.match(result.content[0].text, /^started\n/);
  assert.match(result.content[0].text, /still hold the output open/);
  process.kill(Number(readFileSync(join(dir, "pid"), "utf8")));
});

test("a timeout stops the whole process group and keeps the output so far", async () => {
  const dir = scratch();
  const tag = `toolhost-custom-timeout-${process.pid}`;
  const tools = build({
    slow: {
      description: "",
      input: { type: "object", properties: { pidfile: { type: "string" } } },
      // The user's own script; the argument reaches it as $1, never as script text.
      command: [
        "sh",
        "-c",
        `echo before; sleep 30 & echo $! > "$1"; sleep 31; : ${tag}`,
        "sh",
        "{pidfile}",
      ],
      timeout_ms: 400,
    },
  });
  const { result } = await call(tools, "slow", { pidfile: join(dir, "pid") }, undefined, dir);
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent?.timedOut, true);
  assert.equal(result.structuredContent?.exitCode, null);
  assert.equal(result.structuredContent?.signal, "SIGTERM");
  assert.match(result.content[0].text, /^before\n/);
  assert.match(result.content[0].text, /Timed out after 400 ms/);
  const grandchild = Number(readFileSync(join(dir, "pid"), "utf8"));
  assert.ok(await waitUntil(() => !isRunning(grandchild), 1000), "the grandchild was killed");
  assert.deepEqual(processesWith(tag), []);
});

test("timeout_ms above the server's maximum is refused; without one, the maximum applies", async () => {
  assert.throws(
    () =>
      build({
        slow: { description: "", command: ["sleep", "30"], timeout_ms: 60_000 },
      }, { maxTimeoutMs: 300 }),
    /custom tool "slow": timeout_ms 60000 is above limits\.bash_max_timeout_ms \(300\)/,
  );
  const tools = build({
    slow: { description: "", command: ["sleep", "30"] },
  }, { maxTimeoutMs: 300 });
  assert.match(tools[0].description, /stopped after 0\.3 s\.$/);
  const { result } = await call(tools, "slow", {});
  assert.equal(result.structuredContent?.timedOut, true);
  assert.match(result.content[0].text, /Timed out after 300 ms/);
});

test("notifications/cancelled kills the process group and no response is sent", async () => {
  const dir = scratch();
  const tools = build({
    wait: {
      description: "",
      input: { type: "object", properties: { pidfile: { type: "string" } } },
      command: ["sh", "-c", 'sleep 30 & echo $! > "$1"; wait', "sh", "{pidfile}"],
    },
  });
  const h = harness(tools, undefined, rootsOf(dir));
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line({
    jsonrpc: "2.0",
    id: "job",
    method: "tools/call",
    params: { name: "wait", arguments: { pidfile: join(dir, "pid") } },
  });
  let pid = 0;
  await waitUntil(() => {
    try {
      pid = Number(readFileSync(join(dir, "pid"), "utf8"));
    } catch { /* not yet */ }
    return pid > 0;
  }, 2000);
  assert.ok(pid > 0 && isRunning(pid));
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "job" } });
  assert.ok(await waitUntil(() => !isRunning(pid), 3000), "the sleep was killed");
  await tick(100);
  assert.ok(!h.sent.some((m) => !Array.isArray(m) && m.id === "job"));
});

test("with a progress token, a running tool reports progress every second", async () => {
  const tools = build({ nap: { description: "", command: ["sleep", "1.5"] } });
  const { h } = await call(tools, "nap", {}, { progressToken: "p" });
  const progress = h.notifications("notifications/progress");
  assert.ok(progress.length >= 1, `got ${progress.length}`);
  assert.match(String(progress[0].params!.message), /running for 1s/);
});

test("output over the cap keeps its beginning and end and says how much was cut", async () => {
  const tools = build({ count: { description: "", command: ["seq", "1", "100000"] } }, {
    outputChars: 2_000,
  });
  const { result } = await call(tools, "count", {});
  const text = result.content[0].text;
  assert.equal(result.structuredContent?.truncated, true);
  assert.ok(text.startsWith("1\n2\n3\n"));
  assert.match(text, /99999\n100000\n\n\[exit code 0/);
  assert.match(text, /characters cut from the middle; narrow the arguments/);
  assert.ok(text.length < 2_300, `${text.length} characters`);
});

test("a program that cannot be run is an error naming it and the directory", async () => {
  const dir = scratch();
  writeFileSync(join(dir, "not_executable.sh"), "#!/bin/sh\necho hi\n");
  writeFileSync(join(dir, "bad_interpreter.sh"), "#!/no/such/interpreter\necho hi\n");
  chmodSync(join(dir, "bad_interpreter.sh"), 0o755);
  const tools = build({
    missing: { description: "", command: ["toolhost-no-such-program", "x"] },
    missing_path: { description: "", command: ["./nowhere/run.sh"] },
    not_executable: { description: "", command: ["./not_executable.sh"] },
    bad_interpreter: { description: "", command: ["./bad_interpreter.sh"] },
    no_dir: { description: "", command: ["true"], cwd: "no/such/dir" },
  }, { configDir: dir });
  const expect: Record<string, RegExp> = {
    missing: new RegExp(
      `^cannot run "toolhost-no-such-program": no executable of that name on PATH \\(.*; cwd ${process.cwd()}\\)`,
    ),
    missing_path: new RegExp(
      `^cannot run "./nowhere/run.sh": ${dir}/nowhere/run.sh does not exist`,
    ),
    not_executable: new RegExp(
      `^cannot run "./not_executable.sh" \\(${dir}/not_executable.sh, cwd ${process.cwd()}\\): permission denied`,
    ),
    bad_interpreter:
      /^cannot run "\.\/bad_interpreter\.sh" .*: not found; if it is a script, check .*#! line/,
    no_dir: new RegExp(`^cwd "${dir}/no/such/dir" is not an existing directory`),
  };
  for (const [name, message] of Object.entries(expect)) {
    const { result } = await call(tools, name, {});
    assert.equal(result.isError, true, name);
    assert.match(result.content[0].text, message);
  }
});

test("a NUL in an argument is refused with a sentence, not a crash", async () => {
  const tools = build({
    say: {
      description: "",
      input: { type: "object", properties: { s: { type: "string" } } },
      command: ["echo", "{s}"],
    },
  });
  const { result } = await call(tools, "say", { s: "a\0b" });
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /s contains a NUL character/);
});

test("tools/list shows them with their schema, destructive unless the config says otherwise", async () => {
  const tools = build({
    deploy: {
      description: "Deploys the app",
      input: {
        type: "object",
        properties: { env: { type: "string" } },
        required: ["env"],
        additionalProperties: false,
      },
      command: ["./scripts/deploy.sh", "--env", "{env}", "two words"],
    },
    status: { description: "Shows git status.", command: ["git", "status"], destructive: false },
  });
  const h = harness(tools);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const listed = (await h.request(1, "tools/list")).result!.tools as Record<string, unknown>[];
  assert.deepEqual(listed.map((tool) => tool.name), ["deploy", "status"]);
  const [deploy, status] = listed;
  assert.equal(deploy.title, "deploy");
  assert.equal(
    deploy.description,
    'Deploys the app. Runs `./scripts/deploy.sh --env {env} "two words"` (no shell), stopped after 120 s.',
  );
  assert.deepEqual(deploy.inputSchema, {
    type: "object",
    properties: { env: { type: "string" } },
    required: ["env"],
    additionalProperties: false,
  });
  assert.deepEqual(deploy.annotations, {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  });
  assert.ok(deploy.outputSchema);
  // Not destructive, but it runs a program: never read-only, so the read-only profile hides it.
  assert.deepEqual(status.annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  });
  assert.deepEqual(status.inputSchema, {
    type: "object",
    properties: {},
    additionalProperties: false,
  });
});

test("env is added to the server's environment; cwd is relative to the config, else the first root", async () => {
  const dir = scratch();
  mkdirSync(join(dir, "sub"));
  // Braces in the user's own script are doubled, as in every template slot.
  const script = 'printf "%s|%s|%s" "$GREETING" "$(pwd -P)" "${{HOME:+home}}"';
  const tools = build({
    in_sub: {
      description: "",
      command: ["sh", "-c", script],
      cwd: "sub",
      env: { GREETING: "hello there" },
    },
    in_root: { description: "", command: ["sh", "-c", script] },
  }, { configDir: dir });
  const sub = await call(tools, "in_sub", {});
  assert.match(sub.result.content[0].text, new RegExp(`^hello there\\|${dir}/sub\\|home\n`));
  const root = await call(tools, "in_root", {});
  assert.match(
    root.result.content[0].text,
    new RegExp(`^\\|${realpathSync(process.cwd())}\\|home`),
  );
});

test("a relative program starts at the tool's cwd when it has one", async () => {
  const dir = scriptDir();
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "here.sh"), "#!/bin/sh\necho from bin\n");
  chmodSync(join(dir, "bin", "here.sh"), 0o755);
  const tools = build({
    t: { description: "", command: ["./here.sh"], cwd: join(dir, "bin") },
  });
  const { result } = await call(tools, "t", {});
  assert.match(result.content[0].text, /^from bin\n/);
});
