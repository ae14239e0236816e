/**
 * What a newcomer meets without naming roots: started in / or in the home directory (Claude
 * Desktop starts servers in /) with no --root and no roots from the client, the file tools refuse
 * and say how to name roots, instead of working on the whole disk; naming / explicitly still
 * works; the roots in force are logged once at start; started by hand in a terminal, toolhost
 * says on stderr what it is waiting for.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import { binary, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const home = mkdtempSync(join(tmpdir(), "toolhost-home-"));
after(() => rmSync(home, { recursive: true, force: true }));
writeFileSync(join(home, "notes.txt"), "in the home directory\n");

async function readNotes(cwd: string, args: string[] = []) {
  const client = new RawClient(PRODUCT_BINARY, args, cwd, { HOME: home });
  try {
    await client.initialize("2025-11-25");
    const reply = await callTool(client, "read_file", { path: join(home, "notes.txt") }, {
      legacy: true,
    });
    return { result: reply.result as { isError?: boolean; content: { text: string }[] }, client };
  } finally {
    await client.close();
  }
}

for (const [where, cwd] of [["/", "/"], ["the home directory", home]]) {
  test(`started in ${where} without roots: file tools refuse and say how to name roots`, async () => {
    const { result, client } = await readNotes(cwd);
    assert.equal(result.isError, true);
    const text = result.content[0].text;
    assert.match(text, /no directory is allowed/);
    assert.match(text, /--root DIR/);
    assert.match(text, /"roots" in the config file/);
    assert.match(client.stderr, /roots: the client's when it offers them, else none/);
  });
}

test("naming the home directory with --root allows it, and the roots are logged once", async () => {
  const { result, client } = await readNotes("/", ["--root", home]);
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(result.content[0].text, /in the home directory/);
  assert.equal(client.stderr.match(/roots: /g)?.length, 1, client.stderr);
  assert.match(client.stderr, new RegExp(`roots: ${home.replaceAll("/", "\\/")}\\n`));
  // Ending the input is routine: no info line about it.
  assert.doesNotMatch(client.stderr, /stopping \(end of input\)/);
});

test("a project directory as the working directory stays the root nobody had to name", async () => {
  const project = mkdtempSync(join(home, "project-"));
  writeFileSync(join(project, "notes.txt"), "x\n");
  const { result } = await readNotes(project);
  // The home directory is outside the project: refused as outside, not as "no roots".
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /outside the allowed roots/);
});

posixOnlyTest("script(1) gives the terminal")(
  "in a terminal, stderr says what toolhost waits for",
  () => {
    // script(1) runs the binary on a pseudo-terminal; its input ends at once (Ctrl-D).
    const out = spawnSync(
      "script",
      ["-qec", `${binary(PRODUCT_BINARY)} --root ${home}`, "/dev/null"],
      { encoding: "utf8", input: "\u0004", env: { ...process.env, HOME: home }, timeout: 20_000 },
    );
    assert.match(out.stdout, /toolhost is an MCP server: it is waiting for JSON-RPC messages/);
    assert.match(out.stdout, /--mcp-json/);
  },
);
