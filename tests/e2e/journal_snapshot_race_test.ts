/**
 * The journal's snapshots of a git work tree are made by toolhost, outside the command sandbox, so
 * they must never read through a link a command planted: a background command swaps files with
 * links to the home's private key (renameat2 RENAME_EXCHANGE, in a loop) while `bash` calls make
 * snapshots before and after them. What the snapshots read lands in toolhost's git objects and
 * undo store in the state directory, which commands may read: the key must be in neither.
 * Before the fix git read each changed file by path after looking at it, and took bytes of the
 * key through the swapped link in most runs (10 and 20 bytes of it in 172 calls).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { inflateSync } from "node:zlib";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();
const PYTHON3 = "/usr/bin/python3";
/** renameat2: the number differs between x86_64 and aarch64. */
const RENAMEAT2 = process.arch === "arm64" ? 276 : 316;
/** Each decoy is shorter than the key, so git's read of the key through the link succeeds. */
const SIZES = [6, 12, 24];
const SWAP_SECONDS = 6;

function available(): string | false {
  try {
    execFileSync(PYTHON3, ["-c", "import ctypes"], { stdio: "ignore" });
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return false;
  } catch {
    return "python3 (with ctypes) and git are needed";
  }
}

/** Swaps f<N> and l<N> for SWAP_SECONDS, each pair in a process of its own. */
const SWAPPER = [
  "import ctypes, os, sys, time",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "a, b = sys.argv[1].encode(), sys.argv[2].encode()",
  `end = time.time() + ${SWAP_SECONDS}`,
  "while time.time() < end:",
  "    for _ in range(2000): libc.syscall(" + RENAMEAT2 + ", -100, a, -100, b, 2)",
].join("\n");

/** Every file under `dir`, and what each holds (a loose git object inflated). */
function contents(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    // The server still writes its state (the journal's lock comes and goes): a file gone
    // between the listing and the read held nothing that stays.
    const info = statSync(path, { throwIfNoEntry: false });
    if (!info) continue;
    if (info.isDirectory()) found.push(...contents(path));
    else {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      found.push(bytes.toString("latin1"));
      try {
        found.push(inflateSync(bytes).toString("latin1"));
      } catch {
        // not an object
      }
    }
  }
  return found;
}

for (const user of sandboxUsers()) {
  test(`${user.name}: a link swapped in during a snapshot never reads the key into the state`, {
    skip: user.skip || available(),
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => {
        execFileSync("git", ["init", "-q", root]);
        writeFileSync(join(root, "README"), "x\n");
        for (const n of SIZES) writeFileSync(join(root, `f${n}`), "A".repeat(n));
        execFileSync("git", ["-C", root, "add", "README"]);
        execFileSync("git", [
          "-C",
          root,
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@t",
          "commit",
          "-qm",
          "init",
        ]);
        writeFileSync(join(root, "swap.py"), SWAPPER);
      },
    });
    const key = join(w.home, ".ssh", "id_ed25519");
    const links = SIZES.map((n) => `ln -s ${key} l${n}`).join("; ");
    const planted = await callTool(w.client, "bash", { command: `${links}; ls` });
    assert.match(planted.text, /l24/, planted.text);
    const swaps = SIZES.map((n) => `${PYTHON3} swap.py f${n} l${n} &`).join(" ");
    const started = await callTool(w.client, "bash_background", { command: `${swaps} wait` });
    assert.match(started.text, /Started/, started.text);
    const until = Date.now() + SWAP_SECONDS * 1000;
    let calls = 0;
    while (Date.now() < until) {
      await callTool(w.client, "bash", { command: "true" });
      calls++;
    }
    assert.ok(calls >= 5, `only ${calls} snapshots were made while the links were swapped`);
    const prefix = w.secret.slice(0, SIZES[0]);
    const leaked = contents(w.state).filter((text) => text.includes(prefix));
    assert.deepEqual(
      leaked.map((text) => text.slice(0, 80)),
      [],
      `the key was read into the state directory in ${calls} calls`,
    );
  });
}
