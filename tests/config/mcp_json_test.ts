/** `--mcp-json`'s entry on each platform, with the platform injected. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { launchCommand, mcpJson } from "../../config/mcp_json.ts";

test("Windows: the binary's path keeps its backslashes and .exe, JSON-escaped, and parses back", () => {
  const exe = "C:\\Users\\Ann Lee\\bin\\toolhost.exe";
  const text = mcpJson({ execPath: exe, platform: "win32" }, ["--root", "D:\\work\\app"]);
  assert.ok(text.includes('"C:\\\\Users\\\\Ann Lee\\\\bin\\\\toolhost.exe"'), text);
  const entry = JSON.parse(text).mcpServers.toolhost;
  assert.deepEqual(entry, { command: exe, args: ["--root", "D:\\work\\app"], env: {} });
  assert.equal(
    launchCommand({ execPath: "c:/tools/toolhost.exe", platform: "win32" }).command,
    "c:\\tools\\toolhost.exe",
  );
});

test("through npm: cmd /c npx on Windows (npx is a .cmd no client can spawn directly), npx elsewhere", () => {
  assert.deepEqual(launchCommand({ execPath: "x", viaNpm: true, platform: "win32" }), {
    command: "cmd",
    args: ["/c", "npx", "-y", "toolhost"],
  });
  assert.deepEqual(launchCommand({ execPath: "x", viaNpm: true, platform: "linux" }), {
    command: "npx",
    args: ["-y", "toolhost"],
  });
});

test("from source on Windows: the runtime, then run and main.ts by absolute path", () => {
  assert.deepEqual(
    launchCommand({
      execPath: "C:\\deno\\deno.exe",
      sourceMain: "C:\\src\\toolhost\\main.ts",
      runtime: "deno",
      platform: "win32",
    }),
    { command: "C:\\deno\\deno.exe", args: ["run", "--allow-all", "C:\\src\\toolhost\\main.ts"] },
  );
});
