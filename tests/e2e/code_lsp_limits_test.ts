/**
 * What bounds a language server, through the compiled binary with real servers in the command
 * sandbox: under read-only no program of the project runs (a hostile node_modules/.bin server, a
 * build.rs, a rust-toolchain.toml's toolchain, a .cargo/config.toml's rustc, a python found on a
 * relative PATH entry), while under workspace-write both do (the same projects, so each test can fail); the
 * memory ceiling stops a server, and an idle one stops and starts again quietly. Waits are on
 * what toolhost logs, bounded generously, never on how fast it is.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { ROOT } from "../helpers/raw_client.ts";
import {
  call,
  missing,
  ok,
  PATIENT,
  project,
  SERVER_PATH,
  startOn,
} from "../helpers/code_servers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const POSIX = posixOnly("the servers are found through a POSIX PATH");
const e2e = e2eFixture();

function start(root: string, args: string[], env: Record<string, string> = {}) {
  const c = startOn(e2e, root, args, { ...PATIENT, ...env });
  return c;
}

const A_TS = "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n";
const B_TS =
  'import { greet } from "./a";\nconst x: string = greet("b");\nconsole.log(greet(x));\n';

/**
 * A cache directory the language-server sandbox may write under either mode (its
 * XDG_CACHE_HOME/<server>), where a program of the project leaves a mark if it runs.
 */
function markPlace(server: string): { xdg: string; mark: string } {
  const xdg = mkdtempSync(join(tmpdir(), "toolhost-xdg-"));
  mkdirSync(join(xdg, server));
  return { xdg, mark: join(xdg, server, "project-program-ran") };
}

for (const mode of ["read-only", "workspace-write"] as const) {
  test(
    `${mode}: the project's typescript-language-server and tsserver ${
      mode === "read-only" ? "never run" : "are the ones run"
    }`,
    POSIX,
    async () => {
      const { xdg, mark } = markPlace("typescript");
      const root = project(`ts-hostile-${mode}`, {
        "tsconfig.json": "{}",
        "a.ts": A_TS,
        "b.ts": B_TS,
      });
      const bin = join(root, "node_modules", ".bin");
      mkdirSync(bin, { recursive: true });
      const hostile = join(bin, "typescript-language-server");
      // It leaves its mark, then is the real server (so the answers are the same either way).
      writeFileSync(
        hostile,
        `#!/bin/sh\necho ran > '${mark}'\nexec typescript-language-server "$@"\n`,
      );
      chmodSync(hostile, 0o755);
      // The project's own typescript: its tsserver leaves a mark of its own, then is the real one.
      const typescript = join(root, "node_modules", "typescript");
      mkdirSync(join(typescript, "lib"), { recursive: true });
      const realTypescript = join(ROOT, "node_modules", "typescript");
      writeFileSync(
        join(typescript, "package.json"),
        readFileSync(join(realTypescript, "package.json"), "utf8"),
      );
      writeFileSync(
        join(typescript, "lib", "tsserver.js"),
        `require("fs").writeFileSync(${JSON.stringify(`${mark}.tsserver`)}, "ran");\n` +
          `require(${JSON.stringify(join(realTypescript, "lib", "tsserver.js"))});\n`,
      );
      const c = start(root, mode === "read-only" ? ["--read-only"] : [], { XDG_CACHE_HOME: xdg });
      const refs = await ok(c, "code_nav", {
        operation: "references",
        path: "a.ts",
        symbol: "greet",
      });
      assert.equal(refs.structured?.count, 4, refs.text);
      assert.equal(existsSync(mark), mode === "workspace-write");
      assert.equal(existsSync(`${mark}.tsserver`), mode === "workspace-write");
    },
  );
}

for (const mode of ["read-only", "workspace-write"] as const) {
  test(
    `${mode}: rust-analyzer ${mode === "read-only" ? "runs no build script" : "runs build.rs"}`,
    { skip: POSIX.skip ?? missing("rust-analyzer") },
    async () => {
      const { xdg, mark } = markPlace("rust-analyzer");
      const root = project(`rs-build-${mode}`, {
        "Cargo.toml": '[package]\nname = "b"\nversion = "0.1.0"\nedition = "2021"\n',
        "build.rs": `fn main() {\n    std::fs::write(${
          JSON.stringify(mark)
        }, "ran").unwrap();\n}\n`,
        "src/lib.rs":
          "pub fn one() -> u32 {\n    1\n}\n\npub fn two() -> u32 {\n    one() + one()\n}\n",
      });
      const c = start(root, mode === "read-only" ? ["--read-only"] : [], { XDG_CACHE_HOME: xdg });
      const refs = await ok(c, "code_nav", {
        operation: "references",
        path: "src/lib.rs",
        symbol: "one",
      });
      assert.equal(refs.structured?.count, 3, refs.text);
      // Done loading (quiescent): build scripts, when they run, ran before. (Without the
      // standard library, which the tests' empty cargo home cannot give it offline, the answer
      // is marked as maybe missing what depends on it: that is not a load still under way.)
      assert.doesNotMatch(String(refs.structured?.incomplete ?? ""), /still loading/, refs.text);
      assert.equal(existsSync(mark), mode === "workspace-write");
    },
  );
}

/** The real program behind rustup's proxy, or undefined without rustup. */
function rustupWhich(program: string): string | undefined {
  try {
    return execFileSync("rustup", ["which", program], { cwd: tmpdir(), encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

for (const mode of ["read-only", "workspace-write"] as const) {
  test(
    `${mode}: the project's Rust toolchain and rustc ${
      mode === "read-only" ? "never run" : "are the ones run"
    }`,
    { skip: POSIX.skip ?? missing("rust-analyzer") ?? (!rustupWhich("rustc") && "no rustup") },
    async () => {
      const { xdg, mark } = markPlace("rust-analyzer");
      // Each leaves a mark, then is the real one: the project works either way.
      const shim = (program: string, real: string) =>
        `#!/bin/sh\necho ran >> ${JSON.stringify(`${mark}.${program}`)}\nexec ${
          JSON.stringify(real)
        } "$@"\n`;
      const files: Record<string, string> = {
        "Cargo.toml": '[package]\nname = "b"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs":
          "pub fn one() -> u32 {\n    1\n}\n\npub fn two() -> u32 {\n    one() + one()\n}\n",
        "own-rustc": shim("config-rustc", rustupWhich("rustc")!),
      };
      for (const program of ["rust-analyzer", "cargo", "rustc"]) {
        files[`toolchain/bin/${program}`] = shim(program, rustupWhich(program)!);
      }
      const root = project(`rs-toolchain-${mode}`, files);
      // rustup's proxies follow it: its path (absolute) is a toolchain of the project's.
      writeFileSync(join(root, "rust-toolchain.toml"), `[toolchain]\npath = "${root}/toolchain"\n`);
      // cargo metadata runs `rustc -vV` with the rustc this names.
      mkdirSync(join(root, ".cargo"));
      writeFileSync(join(root, ".cargo", "config.toml"), `[build]\nrustc = "${root}/own-rustc"\n`);
      for (const name of Object.keys(files)) {
        if (name.startsWith("toolchain/") || name === "own-rustc") {
          chmodSync(join(root, name), 0o755);
        }
      }
      // Through rustup's proxies, as a user's PATH has them (the other tests name the toolchain's
      // own directory), with the user's rustup settings.
      const c = start(root, mode === "read-only" ? ["--read-only"] : [], {
        XDG_CACHE_HOME: xdg,
        PATH: `${
          dirname(execFileSync("sh", ["-c", "command -v rustup"], { encoding: "utf8" }))
        }:${SERVER_PATH}`,
        RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), ".rustup"),
      });
      const refs = await ok(c, "code_nav", {
        operation: "references",
        path: "src/lib.rs",
        symbol: "one",
      });
      assert.equal(refs.structured?.count, 3, refs.text);
      const marks = readdirSync(join(xdg, "rust-analyzer")).join(", ");
      for (const program of ["rust-analyzer", "config-rustc"]) {
        assert.equal(existsSync(`${mark}.${program}`), mode === "workspace-write", marks);
      }
    },
  );
}

for (const mode of ["read-only", "workspace-write"] as const) {
  test(
    `${mode}: a project's python on a relative PATH entry ${
      mode === "read-only" ? "never runs" : "is the one pyright runs"
    }`,
    POSIX,
    async () => {
      const { xdg, mark } = markPlace("pyright");
      const shim = `#!/bin/sh\necho ran >> ${JSON.stringify(mark)}\nexec /usr/bin/python3 "$@"\n`;
      const root = project(`py-path-${mode}`, {
        "pyproject.toml": '[project]\nname = "p"\n',
        "main.py": "def helper():\n    return 1\n\n\nprint(helper())\n",
        "bin/python3": shim,
        "bin/python": shim,
      });
      chmodSync(join(root, "bin", "python3"), 0o755);
      chmodSync(join(root, "bin", "python"), 0o755);
      // `bin` as many PATHs hold `node_modules/.bin`: taken from the server's working directory,
      // the project. Only the server's own lookups meet it: toolhost finds pyright on the rest.
      const c = start(root, mode === "read-only" ? ["--read-only"] : [], {
        XDG_CACHE_HOME: xdg,
        PATH: `bin:${SERVER_PATH}`,
      });
      const refs = await ok(c, "code_nav", {
        operation: "references",
        path: "main.py",
        symbol: "helper",
      });
      assert.equal(refs.structured?.count, 2, refs.text);
      assert.equal(existsSync(mark), mode === "workspace-write");
    },
  );
}

test(
  "a server over code.server_memory_mb is stopped, and the next answer says so",
  POSIX,
  async () => {
    const root = project("ts-memory", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
    // typescript-language-server and its tsserver hold well over 64 MB together.
    const c = start(root, [], { TOOLHOST_CODE_SERVER_MEMORY_MB: "64" });
    // Killed while it answers, or after: either way, toolhost logs why.
    await call(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
    await c.waitForStderr(
      /over the code\.server_memory_mb ceiling of 64 MB, and was killed/,
      120_000,
    );
    const again = await call(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    // Said by the next answer (or, should the new server be over the ceiling before it answers
    // too, by the error): why the previous one ended.
    assert.match(again.text, /it held \d+ MB, over the code\.server_memory_mb ceiling of 64 MB/);
  },
);

test("an idle server stops, and starts again quietly when asked", POSIX, async () => {
  const root = project("ts-idle", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
  const c = start(root, [], { TOOLHOST_CODE_SERVER_IDLE_SECONDS: "10" });
  await ok(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
  await c.waitForStderr(/ended: it was stopped after 10 s idle/, 120_000);
  const again = await ok(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
  assert.equal(again.structured?.count, 4, again.text);
  assert.doesNotMatch(again.text, /started again/);
});

test(
  "reading a source file starts its project's server before code_nav is asked (code.start_on_read)",
  POSIX,
  async () => {
    const root = project("ts-warm", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
    const c = start(root, [], { TOOLHOST_LSP_TRACE: "1" });
    const read = await ok(c, "read_file", { path: "b.ts" });
    assert.match(read.text, /greet\("b"\)/);
    // Started after the read, with the file it read open: no code tool was called.
    await c.waitForStderr(/lsp > [\d.]+ \{"jsonrpc":"2\.0","id":1,"method":"initialize"/, 120_000);
    await c.waitForStderr(
      /"method":"textDocument\/didOpen","params":\{"textDocument":\{"uri":"file:\/\/[^"]*\/b\.ts"/,
      120_000,
    );
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.equal(refs.structured?.count, 4, refs.text);
    // The same server answered: one initialize only.
    assert.equal(c.stderr.match(/"method":"initialize"/g)?.length, 1);
  },
);
