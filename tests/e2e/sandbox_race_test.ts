/**
 * The sandbox against a process inside a root that keeps exchanging a directory with a symlink to
 * a folder outside (renameat2 with RENAME_EXCHANGE, in a loop): thousands of calls per tool
 * through the binary, writes on one server and reads on a --read-only one, and not one byte from
 * outside may come back, nor any entry be created, moved or left outside.
 *
 * The swapper is a small C program compiled here with `cc`, or Python's ctypes when there is no
 * compiler; without either (or off Linux, where renameat2 does not exist) the test is skipped and
 * says why. TOOLHOST_RACE_CALLS sets the calls per tool (a long soak: 50000), TOOLHOST_RACE_SECONDS
 * the time the whole run may take.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, modern, PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const test = posixOnlyTest("races through descriptors held on Linux");

const CALLS = Number(process.env.TOOLHOST_RACE_CALLS ?? 2000);
const SECONDS = Number(process.env.TOOLHOST_RACE_SECONDS ?? 50);
/** Requests in flight per server. */
const WINDOW = 32;
/**
 * Calls each tool makes whatever the clock says: a busy machine makes the run longer, never one
 * where a tool's turn came after the time was spent and it made none (append did, at load 20).
 */
const MIN_CALLS = 2 * WINDOW;
/** In the secret's content and in a name only the outside folder holds. */
const MARKER = `SECRET${Math.random().toString(36).slice(2, 10)}`;

const C_SWAPPER = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile sig_atomic_t stop = 0;
static void on_term(int s) { (void)s; stop = 1; }
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  signal(SIGTERM, on_term);
  int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
  if (dir < 0) { perror("open"); return 1; }
  unsigned long n = 0;
  while (!stop) {
    if (syscall(SYS_renameat2, dir, argv[2], dir, argv[3], 2 /* RENAME_EXCHANGE */) != 0) {
      perror("renameat2");
      return 1;
    }
    n++;
  }
  fprintf(stderr, "%lu\\n", n);
  return 0;
}
`;

const PY_SWAPPER = `
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
a, b = sys.argv[2].encode(), sys.argv[3].encode()
n = 0
while not stop:
    if libc.renameat2(d, a, d, b, 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    n += 1
sys.stderr.write(f"{n}\\n")
`;

/** The command that swaps two names in a directory, or why there is none. */
function swapper(scratch: string): string[] | string {
  if (process.platform !== "linux") return "renameat2(RENAME_EXCHANGE) is Linux only";
  try {
    writeFileSync(join(scratch, "swap.c"), C_SWAPPER);
    execFileSync("cc", ["-O2", "-o", join(scratch, "swap"), join(scratch, "swap.c")], {
      stdio: "ignore",
    });
    return [join(scratch, "swap")];
  } catch {
    // no compiler: try Python
  }
  try {
    execFileSync("python3", ["-c", "import ctypes; ctypes.CDLL(None).renameat2"], {
      stdio: "ignore",
    });
    writeFileSync(join(scratch, "swap.py"), PY_SWAPPER);
    return ["python3", join(scratch, "swap.py")];
  } catch {
    return "neither cc nor python3 with renameat2 is available to run the swapper";
  }
}

interface Reply {
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** A server driven with raw JSON lines, many requests in flight, replies kept by id. */
class Server {
  readonly child: ChildProcess;
  #waiting = new Map<number, (reply: Reply) => void>();
  #nextId = 1;
  #rest = "";
  stderr = "";

  constructor(args: string[]) {
    this.child = spawn(binary(PRODUCT_BINARY), args, {
      env: { ...process.env, ...isolatedEnv(), TOOLHOST_GREP: process.env.TOOLHOST_GREP ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (text: string) => {
      const lines = (this.#rest + text).split("\n");
      this.#rest = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line);
        this.#waiting.get(message.id)?.(message);
        this.#waiting.delete(message.id);
      }
    });
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on(
      "data",
      (text: string) => (this.stderr = (this.stderr + text).slice(-4000)),
    );
    this.child.stdin!.on("error", () => {});
  }

  request(method: string, params: Record<string, unknown>): Promise<Reply> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.child.stdin!.write(
        JSON.stringify({ jsonrpc: "2.0", id, method, params: modern(params) }) + "\n",
      );
    });
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await new Promise((done) => this.child.once("exit", done));
    clearTimeout(timer);
  }
}

type Call = (i: number) => [method: string, params: Record<string, unknown>];

interface Tally {
  calls: number;
  ok: number;
  escapes: number;
  example?: string;
}

/**
 * `count` calls made by `make`, WINDOW at a time, until done or `deadline`, and at least
 * MIN_CALLS of them whatever the time.
 */
async function drive(server: Server, make: Call, count: number, deadline: number): Promise<Tally> {
  const tally: Tally = { calls: 0, ok: 0, escapes: 0 };
  let next = 0;
  const worker = async () => {
    while (next < count && (next < MIN_CALLS || Date.now() < deadline)) {
      const [method, params] = make(next++);
      const reply = await server.request(method, params);
      tally.calls++;
      const text = JSON.stringify(reply);
      if (reply.result && !reply.result.isError) tally.ok++;
      if (text.includes(MARKER)) {
        tally.escapes++;
        tally.example ??= text.slice(0, 300);
      }
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, worker));
  return tally;
}

/** Every entry under `dir` with its content (files) or kind, for comparing before and after. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (at: string, rel: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const info = lstatSync(path);
      const key = rel ? `${rel}/${name}` : name;
      if (info.isDirectory()) {
        out.set(key, "dir");
        visit(path, key);
      } else {
        out.set(key, info.isFile() ? readFileSync(path, "utf8") : "other");
      }
    }
  };
  visit(dir, "");
  return out;
}

const scratchDir = (name: string) => e2e.scratch(`race-${name}`);

test("a directory swapped for a symlink out of the root never lets a tool reach outside", async (t) => {
  const scratch = scratchDir("bin");
  const command = swapper(scratch);
  if (typeof command === "string") {
    t.skip(command);
    return;
  }
  const root = scratchDir("root");
  const outside = scratchDir("outside");
  // Inside: d/ is a real directory; l is a symlink to the outside folder. The swapper exchanges
  // the two names, so "d" is, at any moment, either one.
  mkdirSync(join(root, "d"));
  symlinkSync(outside, join(root, "l"));
  writeFileSync(join(root, "d", "file.txt"), "inside\n");
  writeFileSync(join(outside, "file.txt"), `${MARKER}\n`);
  writeFileSync(join(outside, `${MARKER}.txt`), `${MARKER}\n`);
  for (let i = 0; i < CALLS; i++) {
    writeFileSync(join(root, "d", `m${i}`), "inside\n");
    writeFileSync(join(outside, `m${i}`), `${MARKER}\n`);
    writeFileSync(join(root, "d", `e${i}`), "inside old\n");
    writeFileSync(join(outside, `e${i}`), `${MARKER} old\n`);
    for (const dir of [join(root, "d"), outside]) {
      const content = dir === outside ? `${MARKER}\n` : "inside\n";
      writeFileSync(join(dir, `a${i}`), content);
      writeFileSync(join(dir, `x${i}`), content);
      mkdirSync(join(dir, `r${i}`, "sub"), { recursive: true });
      writeFileSync(join(dir, `r${i}`, "sub", "f"), content);
    }
  }
  for (const dir of [join(root, "d"), outside]) {
    mkdirSync(join(dir, "tree", "sub"), { recursive: true });
    writeFileSync(join(dir, "tree", "sub", "f"), dir === outside ? `${MARKER}\n` : "inside\n");
  }
  const before = snapshot(outside);

  const swap = spawn(command[0], [...command.slice(1), root, "d", "l"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let swapOutput = "";
  swap.stderr!.setEncoding("utf8");
  swap.stderr!.on("data", (text: string) => (swapOutput += text));
  const swapped = new Promise((done) => swap.once("exit", done));

  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  const writer = new Server(["--root", root]);
  const reader = new Server(["--root", root, "--read-only"]);
  const tallies: Record<string, Tally> = {};
  try {
    const writes: Record<string, Call> = {
      write_file: (i) => ["tools/call", {
        name: "write_file",
        arguments: { path: `d/w${i}/new.txt`, content: "written\n" },
      }],
      create_directory: (i) => ["tools/call", {
        name: "create_directory",
        arguments: { path: `d/c${i}/sub` },
      }],
      move_file: (i) => ["tools/call", {
        name: "move_file",
        arguments: { source: `d/m${i}`, destination: `d/moved/m${i}` },
      }],
      edit_file: (i) => ["tools/call", {
        name: "edit_file",
        arguments: { path: `d/e${i}`, edits: [{ old_string: "old", new_string: "new" }] },
      }],
      append: (i) => ["tools/call", {
        name: "write_file",
        arguments: { path: `d/a${i}`, content: "appended\n", mode: "append" },
      }],
      delete_file: (i) => ["tools/call", {
        name: "delete_file",
        arguments: i % 2 ? { path: `d/x${i}` } : { path: `d/r${i}`, recursive: true },
      }],
      copy_file: (i) => ["tools/call", {
        name: "copy_file",
        arguments: i % 2
          ? { source: "d/file.txt", destination: `d/copies/c${i}.txt` }
          : { source: "d/tree", destination: `d/copies/t${i}`, recursive: true },
      }],
    };
    const reads: Record<string, Call> = {
      read_file: () => ["tools/call", { name: "read_file", arguments: { path: "d/file.txt" } }],
      "resources/read": () => ["resources/read", { uri: `file://${root}/d/file.txt` }],
      grep: (i) => ["tools/call", {
        name: "grep",
        arguments: i % 2
          ? { pattern: "SECRET|inside", path: "d", output_mode: "content", glob: "file.txt" }
          : { pattern: "SECRET|inside", path: "d/file.txt", output_mode: "content" },
      }],
      list_dir: () => ["tools/call", { name: "list_dir", arguments: { path: "d", depth: 1 } }],
      glob: () => ["tools/call", {
        name: "glob",
        arguments: { pattern: "*.txt", path: "d" },
      }],
      file_info: () => ["tools/call", { name: "file_info", arguments: { path: "d/file.txt" } }],
      "completion/complete": () => ["completion/complete", {
        ref: { type: "ref/resource", uri: "file:///{+path}" },
        argument: { name: "path", value: `${root.slice(1)}/d/S` },
      }],
    };
    // Writes and reads at once, each tool after the other on its server, each with its share of
    // the time left.
    const each = async (calls: Record<string, Call>, server: Server) => {
      const tools = Object.entries(calls);
      for (const [i, [name, make]] of tools.entries()) {
        const share = Math.max(0, deadline - Date.now()) / (tools.length - i);
        tallies[name] = await drive(server, make, CALLS, Date.now() + share);
      }
    };
    await Promise.all([each(writes, writer), each(reads, reader)]);
  } finally {
    swap.kill("SIGTERM");
    await swapped;
    await Promise.all([writer.close(), reader.close()]);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const after = snapshot(outside);
  const created = [...after.keys()].filter((k) => !before.has(k));
  const gone = [...before.keys()].filter((k) => !after.has(k));
  const changed = [...before.keys()].filter((k) => after.has(k) && after.get(k) !== before.get(k));
  const report = Object.entries(tallies).map(([name, t]) =>
    `${name}: ${t.calls} calls, ${t.ok} ok, ${t.escapes} escapes`
  ).join("; ");
  console.error(
    `race: ${
      swapOutput.trim() || "?"
    } swaps in ${seconds} s; ${report}; outside: ${created.length} created (${
      created.filter((k) => /\.toolhost-.*\.tmp$/.test(k)).length
    } .toolhost-*.tmp), ${gone.length} gone, ${changed.length} changed`,
  );
  const escaped = Object.entries(tallies).filter(([, t]) => t.escapes > 0);
  assert.deepEqual(
    escaped.map(([name, t]) => `${name}: ${t.example}`),
    [],
    "answers held bytes or names from outside the root",
  );
  assert.deepEqual(created, [], "entries were created outside the root");
  assert.deepEqual(gone, [], "entries were moved or removed from outside the root");
  assert.deepEqual(changed, [], "files outside the root were changed");
  // Nothing from outside was copied (or appended) into the root: d and l have been swapped any
  // number of times, so the inside directory is whichever of them is a directory now.
  const inside = lstatSync(join(root, "d")).isDirectory() ? join(root, "d") : join(root, "l");
  const leaked = [...snapshot(inside)].filter(([, content]) => content.includes(MARKER));
  assert.deepEqual(leaked.map(([k]) => k), [], "bytes from outside were copied into the root");
  // The run really ran: both servers answered, some calls succeeded, the swapper swapped.
  for (
    const name of ["write_file", "read_file", "list_dir", "append", "delete_file", "copy_file"]
  ) {
    assert.ok(tallies[name]?.ok > 0, name);
  }
  assert.ok(Number(swapOutput) > 1000, `the swapper swapped: ${swapOutput}`);
});

test("grep never answers with a file swapped for a symlink out of the root (rg opens by name)", async (t) => {
  const scratch = scratchDir("grepbin");
  const command = swapper(scratch);
  if (typeof command === "string") {
    t.skip(command);
    return;
  }
  const root = scratchDir("greproot");
  const outside = scratchDir("grepoutside");
  // f.txt is a file inside; lnk a symlink to a file outside: the swapper exchanges the names.
  mkdirSync(join(root, "sub"));
  writeFileSync(join(root, "sub", "f.txt"), "inside one\ninside two\n");
  writeFileSync(join(outside, "secret"), `${MARKER} one\n${MARKER} two\n`);
  symlinkSync(join(outside, "secret"), join(root, "sub", "lnk"));
  for (let i = 0; i < 50; i++) writeFileSync(join(root, "sub", `o${i}.txt`), "other\n");
  const swap = spawn(command[0], [...command.slice(1), join(root, "sub"), "f.txt", "lnk"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let swapOutput = "";
  swap.stderr!.setEncoding("utf8");
  swap.stderr!.on("data", (text: string) => (swapOutput += text));
  const swapped = new Promise((done) => swap.once("exit", done));
  const deadline = Date.now() + Math.min(SECONDS, 20) * 1000;
  const server = new Server(["--root", root, "--read-only"]);
  const tallies: Record<string, Tally> = {};
  try {
    tallies.named = await drive(
      server,
      () => ["tools/call", {
        name: "grep",
        arguments: { pattern: "one|two", path: "sub/f.txt", output_mode: "content" },
      }],
      CALLS,
      deadline,
    );
    tallies.directory = await drive(
      server,
      (i) => ["tools/call", {
        name: "grep",
        arguments: {
          pattern: "one|two",
          path: "sub",
          output_mode: ["content", "count", "files_with_matches"][i % 3],
        },
      }],
      Math.ceil(CALLS / 2),
      deadline,
    );
  } finally {
    swap.kill("SIGTERM");
    await swapped;
    await server.close();
  }
  console.error(
    `grep race: ${swapOutput.trim() || "?"} swaps; ${
      Object.entries(tallies).map(([name, t]) =>
        `${name}: ${t.calls} calls, ${t.ok} ok, ${t.escapes} escapes`
      ).join("; ")
    }`,
  );
  for (const [name, tally] of Object.entries(tallies)) {
    assert.equal(tally.escapes, 0, `${name}: ${tally.example}`);
    assert.ok(tally.calls > 0, name);
  }
});

test("an ignore file linked to a file in the root is read beneath the root, never outside", async (t) => {
  const scratch = scratchDir("ignbin");
  const command = swapper(scratch);
  if (typeof command === "string") {
    t.skip(command);
    return;
  }
  const root = scratchDir("ignroot");
  const outside = scratchDir("ignoutside");
  // .gitignore -> sub/rules; the swapper exchanges sub with a link to a folder whose "rules"
  // would hide visible.txt.
  mkdirSync(join(root, "sub"));
  writeFileSync(join(root, "sub", "rules"), "# harmless\n");
  writeFileSync(join(outside, "rules"), "visible.txt\n");
  writeFileSync(join(root, "visible.txt"), "v\n");
  symlinkSync("sub/rules", join(root, ".gitignore"));
  symlinkSync(outside, join(root, "evil"));
  const swap = spawn(command[0], [...command.slice(1), root, "sub", "evil"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const swapped = new Promise((done) => swap.once("exit", done));
  const deadline = Date.now() + Math.min(SECONDS, 15) * 1000;
  const server = new Server(["--root", root, "--read-only"]);
  let calls = 0;
  let hidden = 0;
  try {
    while (calls < Math.min(CALLS, 1500) && (calls < MIN_CALLS || Date.now() < deadline)) {
      const reply = await server.request("tools/call", {
        name: "glob",
        arguments: { pattern: "*.txt" },
      });
      calls++;
      if (!JSON.stringify(reply).includes("visible.txt")) hidden++;
    }
  } finally {
    swap.kill("SIGTERM");
    await swapped;
    await server.close();
  }
  console.error(`ignore race: ${calls} glob calls, ${hidden} hidden by rules from outside`);
  assert.ok(calls > 0);
  assert.equal(hidden, 0, "rules read from a file outside the root were applied");
});
