/**
 * The order in which the compiled binary finds rg, with stand-ins: a copy of the binary in a
 * directory of its own (a release's layout), an `rg` script beside it (or `toolhost-rg`, as
 * install.sh names it) and another on PATH, each saying it ran and then handing over to the real
 * rg (or answering "no match" when there is none). PATH wins over the one beside the binary; with
 * neither, the built-in search answers (it alone refuses a pattern that could backtrack for ever).
 *
 * rg runs in the command sandbox, which lets a search write nothing: a stand-in says it ran by
 * connecting to a unix socket the test listens on (connecting is not writing, see security.md),
 * with python3, found here since the stand-ins run with an empty PATH.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after } from "node:test";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const test = posixOnlyTest("the stand-ins are shell scripts");
const realRg = findRipgrep();
const top = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-rg-order-")));
after(() => rmSync(top, { recursive: true, force: true }));

/** The searched root: one file with a match. */
const root = join(top, "root");
mkdirSync(root);
writeFileSync(join(root, "a.txt"), "one needle here\n");

/** A copy of the product binary alone in `dir`, as a release unpacks it. */
function copyOfBinary(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, "toolhost");
  if (process.platform !== "win32") copyFileSync(binary(PRODUCT_BINARY), copy);
  return copy;
}

/** python3's own path, or undefined: the stand-ins' way to say they ran. */
const python = (() => {
  try {
    return execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
      encoding: "utf8",
    })
      .trim();
  } catch {
    return undefined;
  }
})();
const skip = !python && "python3 is missing: the rg stand-ins report through it";

/** What each directory's stand-ins said: their paths, as they ran. */
const said = new Map<string, string[]>();

/** Listens on `dir`/ran.sock for the stand-ins of `dir`. */
async function listen(dir: string): Promise<void> {
  const heard: string[] = [];
  said.set(dir, heard);
  const server = createServer((socket) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("end", () => heard.push(...text.trim().split("\n")));
  });
  await new Promise<void>((resolve) => server.listen(join(dir, "ran.sock"), resolve));
  e2e.cleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** An `rg` stand-in in `dir` that says its own path to `dir`/ran.sock, then runs the real rg. */
async function standIn(dir: string, name = "rg"): Promise<string> {
  mkdirSync(dir, { recursive: true });
  if (!said.has(dir)) await listen(dir);
  const script = join(dir, name);
  const then = realRg
    ? `exec '${realRg}' "$@"`
    // --json with no match: nothing but the exit code rg gives for "no match".
    : "exit 1";
  const tell = "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); " +
    "s.sendall(sys.argv[2].encode() + b'\\n'); s.close()";
  writeFileSync(
    script,
    `#!/bin/sh\n'${python}' -c "${tell}" '${join(dir, "ran.sock")}' "$0"\n${then}\n`,
  );
  chmodSync(script, 0o755);
  return script;
}

/** The stand-ins of `dir` that ran (each has told before it handed over: before grep answered). */
const ran = (dir: string) => said.get(dir) ?? [];

const e2e = e2eFixture();

function start(executable: string, path: string): RawClient {
  const c = e2e.server({
    binary: executable,
    args: ["--root", root],
    cwd: root,
    env: {
      PATH: path,
      TOOLHOST_GREP: "",
    },
  });
  return c;
}

/** A directory on PATH with nothing in it. */
const emptyDir = join(top, "empty");
mkdirSync(emptyDir);

test("without rg on PATH, the binary runs the rg beside it", { skip }, async () => {
  const release = join(top, "beside-only");
  const executable = copyOfBinary(release);
  const rg = await standIn(release);
  const found = await callTool(start(executable, emptyDir), "grep", { pattern: "needle" });
  assert.equal(found.isError, false, found.text);
  assert.deepEqual(ran(release), [rg]);
  // The answer is rg's when a real one stood behind the stand-in.
  if (realRg) assert.match(found.text, /a\.txt/);
});

test("installed by install.sh, as toolhost-rg beside the binary, it is run", { skip }, async () => {
  const bin = join(top, "installed-bin");
  const executable = copyOfBinary(bin);
  const rg = await standIn(bin, "toolhost-rg");
  const found = await callTool(start(executable, emptyDir), "grep", { pattern: "needle" });
  assert.equal(found.isError, false, found.text);
  assert.deepEqual(ran(bin), [rg]);
  if (realRg) assert.match(found.text, /a\.txt/);
});

test("an rg on PATH wins over the one beside the binary", { skip }, async () => {
  const release = join(top, "both");
  const executable = copyOfBinary(release);
  await standIn(release);
  const pathDir = join(top, "both-path");
  const rg = await standIn(pathDir);
  const found = await callTool(start(executable, `${emptyDir}:${pathDir}`), "grep", {
    pattern: "needle",
  });
  assert.equal(found.isError, false, found.text);
  assert.deepEqual(ran(pathDir), [rg]);
  assert.deepEqual(ran(release), []);
});

test("with no rg anywhere, the built-in search answers", async () => {
  const executable = copyOfBinary(join(top, "alone"));
  const c = start(executable, emptyDir);
  const found = await callTool(c, "grep", { pattern: "needle" });
  assert.equal(found.isError, false, found.text);
  assert.match(found.text, /a\.txt/);
  // Only the built-in search refuses a pattern that could backtrack for ever.
  const refused = await callTool(c, "grep", { pattern: "(n+)+eedle" });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /grep's built-in search \(used when there is no rg\)/);
});
