/**
 * Where a language server runs, through the compiled binary with the real
 * typescript-language-server in the command sandbox: in toolhost's session, as an editor's server
 * is in the editor's (a session is a scheduling group of Linux's autogroups: one of its own made
 * every request wait for that group's turn under load), yet in a process group of its own and
 * without toolhost's terminal. toolhost is started as the leader of a session that has a terminal
 * (a pty, as when a client runs in one), so that "without the terminal" can fail.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call, PATIENT, project, SERVER_PATH } from "../helpers/code_servers.ts";
import { confineHelper, probe } from "../helpers/confine_helper.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();
const PYTHON3 = "/usr/bin/python3";

function skip(): string | false {
  const built = confineHelper();
  if ("skip" in built) return built.skip;
  if (!(probe(built.path).landlock >= 1)) return "no Landlock here: no sandbox helper runs";
  return readable(PYTHON3) ? false : `${PYTHON3} is needed to give toolhost a terminal`;
}

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Becomes a session's leader with a new pty as its terminal, then is `argv[1:]`. */
const WITH_TERMINAL = [
  `#!${PYTHON3}`,
  "import fcntl, os, pty, sys, termios",
  "master, slave = pty.openpty()",
  "os.setsid()",
  "fcntl.ioctl(slave, termios.TIOCSCTTY, 0)",
  // The master stays open in toolhost: closed, the terminal would hang up.
  "os.set_inheritable(master, True)",
  "os.execv(sys.argv[1], sys.argv[1:])",
].join("\n");

/** pid, process group, session and terminal (tty_nr) from /proc/<pid>/stat. */
function ids(stat: string) {
  const [pgrp, session, tty] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(2, 5);
  return { pid: Number(stat.split(" ")[0]), pgrp: Number(pgrp), session: Number(session), tty };
}

test(
  "a language server runs in toolhost's session, in a group of its own, without its terminal",
  { skip: skip() },
  async () => {
    const root = project("ts-session", {
      "tsconfig.json": "{}",
      "a.ts": "export function greet(name: string): string {\n  return name;\n}\n",
    });
    const mark = join(root, ".mark");
    const bin = join(root, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    // The project's server (run under workspace-write): says where it runs, then is the real one.
    writeFileSync(
      join(bin, "typescript-language-server"),
      "#!/bin/sh\n{ cat /proc/$$/stat /proc/$PPID/stat\n" +
        "  if (: </dev/tty) 2>/dev/null; then echo terminal; else echo none; fi; } > .mark\n" +
        'exec typescript-language-server "$@"\n',
    );
    chmodSync(join(bin, "typescript-language-server"), 0o755);
    const wrapper = join(e2e.scratch("session"), "with_terminal.py");
    writeFileSync(wrapper, WITH_TERMINAL);
    chmodSync(wrapper, 0o755);
    const c = e2e.server({
      binary: wrapper,
      args: [PRODUCT_BINARY, "--root", root],
      cwd: root,
      env: { TOOLHOST_STATE_DIR: e2e.scratch("code-state"), PATH: SERVER_PATH, ...PATIENT },
    });
    await c.initialize();
    const found = await call(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      line: 1,
      column: 17,
    });
    assert.equal(found.isError, false, found.text);
    const [server, toolhost, terminal] = readFileSync(mark, "utf8").trim().split("\n");
    const s = ids(server);
    const t = ids(toolhost);
    assert.notEqual(t.tty, "0", "toolhost has a terminal (else the last check proves nothing)");
    assert.equal(s.session, t.session, "the server is in toolhost's session");
    assert.equal(s.pgrp, s.pid, "the server leads a process group of its own");
    assert.equal(s.tty, "0", "the server has no controlling terminal");
    assert.equal(terminal, "none", "/dev/tty does not open the user's terminal");
  },
);
