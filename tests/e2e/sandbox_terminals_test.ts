/**
 * The user's terminals are out of a command's reach: every window, ssh session and tmux pane is a
 * pty of the user's in /dev/pts, which a confined command could open (reading /dev is allowed) to
 * read what is typed there (a password at a sudo prompt) and to write to what is shown. Before the
 * fix a command opened a pty the test held and read the line "typed" into it; now it sees a
 * /dev/pts of its own, where the ptys it makes itself still work.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();
const PYTHON3 = "/usr/bin/python3";

function available(): string | false {
  try {
    execFileSync(PYTHON3, ["-c", "import pty"], { stdio: "ignore" });
    return false;
  } catch {
    return "python3 is needed to make a terminal";
  }
}

/** Holds a pty given to `uid` (the user's terminal), prints its name, types a line into it. */
const TERMINAL = [
  "import os, pty, sys, time",
  "master, slave = pty.openpty()",
  "name = os.ttyname(slave)",
  "os.chown(name, int(sys.argv[1]), -1)",
  "print(name, flush=True)",
  "sys.stdin.readline()",
  "os.write(master, b'typed-password\\n')",
  "time.sleep(30)",
].join("\n");

/** Opens the terminal named, and reads from it for a while (what a keylogger would). */
const THIEF = [
  "import os, sys, time",
  "try:",
  "    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)",
  "except OSError as e:",
  "    print('refused', e.errno); sys.exit(0)",
  "print('opened', flush=True)",
  "end = time.time() + 10",
  "while time.time() < end:",
  "    try: print('read', os.read(fd, 100)); break",
  "    except BlockingIOError: time.sleep(0.05)",
].join("\n");

for (const user of sandboxUsers()) {
  test(`${user.name}: a command cannot open the user's terminal, and makes its own`, {
    skip: user.skip || available(),
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => writeFileSync(join(root, "thief.py"), THIEF),
    });
    const terminal = spawn(PYTHON3, ["-c", TERMINAL, String(user.uid)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const [line] = await once(terminal.stdout!, "data");
      const name = String(line).trim();
      assert.match(name, /^\/dev\/pts\/\d+$/);
      const thief = callTool(w.client, "bash", { command: `${PYTHON3} thief.py ${name}` });
      // The line is typed once the thief may be reading: it is there for whoever reads first.
      setTimeout(() => terminal.stdin!.write("go\n"), 1500);
      const reply = await thief;
      assert.doesNotMatch(reply.text, /typed-password|opened/, reply.text);
      assert.match(reply.text, /refused 2\b/, reply.text);
      const own = await callTool(w.client, "bash", {
        command: `${PYTHON3} -c "import os, pty; m, s = pty.openpty(); os.write(m, b'x\\n'); ` +
          `print(os.ttyname(s), os.read(s, 10))"`,
      });
      assert.match(own.text, /\/dev\/pts\/\d+ b'x\\n'/, own.text);
    } finally {
      terminal.kill();
    }
  });
}
