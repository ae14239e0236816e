/**
 * More of the command sandbox attacked through the binary, as root and as uid 65534: secrets that
 * live outside the file system's credential list (the kernel's keyrings toolhost was started
 * with), and what belongs to another session of the same user (its private temporary directory,
 * its network's socket).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import type { Buffer } from "node:buffer";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();
/** The system's python (a shim in root's home would not run as uid 65534). */
const PYTHON3 = "/usr/bin/python3";

function hasPython(): boolean {
  try {
    execFileSync(PYTHON3, ["-c", "import ctypes"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const PYTHON = hasPython();
/** add_key and keyctl: the numbers differ between x86_64 and aarch64. */
const [ADD_KEY, KEYCTL] = process.arch === "arm64" ? [217, 219] : [248, 250];

/**
 * Starts the program after it in a session keyring of its own holding a key named
 * `toolhost-attack` (what Kerberos' KEYRING: caches and others keep there), or fails.
 */
const KEY_WRAPPER = [
  PYTHON3,
  "-c",
  [
    "import ctypes, os, sys",
    "libc = ctypes.CDLL(None, use_errno=True)",
    `libc.syscall(${KEYCTL}, 1, None)`, // KEYCTL_JOIN_SESSION_KEYRING: a new anonymous one
    `key = libc.syscall(${ADD_KEY}, b"user", b"toolhost-attack", b"KEYRING-SECRET", 14, -3)`,
    "if key < 0: sys.exit('add_key failed: errno %d' % ctypes.get_errno())",
    "os.execvp(sys.argv[1], sys.argv[1:])",
  ].join("\n"),
];

/** Looks for the key in every keyring a process can name, and prints what it reads (no '). */
const KEY_THIEF = [
  "import ctypes",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "for ring in (-1, -2, -3, -4, -5):",
  `    key = libc.syscall(${KEYCTL}, 10, ring, b"user", b"toolhost-attack", 0)`,
  '    if key < 0: print("ring", ring, "errno", ctypes.get_errno()); continue',
  "    buf = ctypes.create_string_buffer(64)",
  `    n = libc.syscall(${KEYCTL}, 11, key, buf, 64)`,
  '    print("ring", ring, "read", buf.raw[:max(n, 0)].decode())',
].join("\n");

for (const user of sandboxUsers()) {
  test(`${user.name}: the keys in toolhost's session keyring are never read`, {
    skip: user.skip || (!PYTHON && "python3 (with ctypes) is needed to make and read a key"),
  }, async () => {
    const w = startWorld(e2e, user, { wrapper: KEY_WRAPPER });
    const reply = await callTool(w.client, "bash", {
      command: `${PYTHON3} -c '${KEY_THIEF}'`,
    });
    assert.match(reply.text, /ring -3 /, reply.text);
    assert.ok(!reply.text.includes("KEYRING-SECRET"), `the key was read:\n${reply.text}`);
  });

  test(`${user.name}: another session's temporary directory and network are out of reach`, {
    skip: user.skip,
  }, async () => {
    const a = startWorld(e2e, user);
    const b = startWorld(e2e, user);
    const made = await callTool(a.client, "bash", {
      command: 'echo SESSION-A-SECRET > "$TMPDIR/secret" && echo "$TMPDIR"',
    });
    assert.equal(made.isError, false, made.text);
    const aTemp = made.text.split("\n")[0];
    await callTool(a.client, "bash_background", { command: "sleep 30", grace_ms: 0 });
    const parent = aTemp.slice(0, aTemp.lastIndexOf("/"));
    const reply = await callTool(b.client, "bash", {
      command: `cat ${aTemp}/secret; cat ${parent}/*/secret; ls -a ${parent}; ` +
        `ls ${parent}/*; echo own > "$TMPDIR/mine" && cat "$TMPDIR/mine"`,
    });
    assert.ok(!reply.text.includes("SESSION-A-SECRET"), `A's file was read:\n${reply.text}`);
    const listed = reply.text.split("\n");
    assert.ok(
      !listed.includes(aTemp.slice(parent.length + 1)),
      `A's directory is listed:\n${reply.text}`,
    );
    assert.ok(!reply.text.includes("proxy.sock"), `A's network socket is seen:\n${reply.text}`);
    // B's own temporary directory works as before.
    assert.match(reply.text, /^own$/m);
  });

  test(
    `${user.name}: a directory swapped for a link out of the root does not stop the journal, nor aim undo outside`,
    {
      skip: user.skip,
    },
    async () => {
      const w = startWorld(e2e, user, {
        prepare: ({ root, out }) => {
          execFileSync("git", ["init", "-q", root]);
          writeFileSync(join(out, "f"), "OUTSIDE\n");
        },
      });
      await callTool(w.client, "bash", { command: "mkdir d && echo inside > d/f" });
      const swapped = await callTool(w.client, "bash", {
        command: `rm -rf d && ln -s ${w.out} d`,
      });
      assert.doesNotMatch(swapped.text, /Not kept for undo/, swapped.text);
      const later = await callTool(w.client, "bash", { command: "echo later > later.txt" });
      assert.doesNotMatch(later.text, /Not kept for undo/, later.text);
      const undoLater = await callTool(w.client, "undo", {});
      assert.equal(undoLater.isError, false, undoLater.text);
      assert.equal(existsSync(join(w.root, "later.txt")), false, undoLater.text);
      // Undoing the swap puts the directory back, or refuses; it never writes through the link.
      const undone = await callTool(w.client, "undo", {});
      if (!undone.isError) {
        assert.ok(lstatSync(join(w.root, "d")).isDirectory(), undone.text);
        assert.equal(readFileSync(join(w.root, "d", "f"), "utf8"), "inside\n");
      } else assert.match(undone.text, /nothing was undone/);
      assert.deepEqual(readdirSync(w.out).sort(), ["existing.txt", "f"]);
      assert.equal(readFileSync(join(w.out, "f"), "utf8"), "OUTSIDE\n");
    },
  );
}

for (const user of sandboxUsers()) {
  test(`${user.name}: a repository one level inside the root gets no hook nor fsmonitor`, {
    skip: user.skip,
  }, async () => {
    // A root that holds several repositories (~/code): git runs their hooks and fsmonitor later,
    // outside any sandbox, when the user (or a prompt showing git status) works in them.
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => execFileSync("git", ["init", "-q", join(root, "proj")]),
    });
    const git = join(w.root, "proj", ".git");
    const config = readFileSync(join(git, "config"), "utf8");
    const attempts = [
      "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > proj/.git/hooks/pre-commit",
      "git -C proj config core.fsmonitor 'touch /tmp/pwned'",
      "echo '[core] hooksPath = /tmp' >> proj/.git/config",
      "mv proj/.git proj/.git-away && mkdir -p proj/.git/hooks && echo x > proj/.git/hooks/post-checkout",
      // The repository itself may move (it is the user's, in the root): its .git stays guarded.
      "mv proj proj-away && echo x > proj-away/.git/hooks/pre-commit; mv proj-away proj",
    ];
    for (const command of attempts) await callTool(w.client, "bash", { command });
    assert.equal(readFileSync(join(git, "config"), "utf8"), config, "config unchanged");
    assert.ok(existsSync(join(w.root, "proj", ".git", "HEAD")), ".git is where it was");
    const hooks = readdirSync(join(git, "hooks"));
    assert.ok(hooks.every((name) => name.endsWith(".sample")), `hooks now: ${hooks.join(", ")}`);
    // The repository's own work goes on: a commit from a command works.
    const commit = await callTool(w.client, "bash", {
      command: "cd proj && echo a > a.txt && git add a.txt && " +
        "git -c user.name=t -c user.email=t@t commit -qm a && git log --oneline | wc -l",
    });
    assert.match(commit.text, /^1$/m, commit.text);
  });

  test(`${user.name}: a .git a command writes opens no place outside the roots`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => mkdirSync(join(root, "linked")),
    });
    // A gitfile naming a directory outside, and a .git link to one: then, in the next command,
    // writes there (into the home, it would be ~/.bashrc).
    await callTool(w.client, "bash", {
      command: `echo "gitdir: ${w.out}" > .git; ln -s ${w.home} linked/.git`,
    });
    const reply = await callTool(w.client, "bash", {
      command: `echo pwned > ${w.out}/planted; echo pwned > ${w.home}/.bashrc`,
    });
    assert.match(reply.text, /Permission denied/, reply.text);
    assert.deepEqual(readdirSync(w.out), ["existing.txt"], "nothing made outside, no hooks");
    assert.equal(existsSync(join(w.home, ".bashrc")), false);
    assert.equal(existsSync(join(w.home, "hooks")), false);
  });
}

for (const user of sandboxUsers()) {
  test(`${user.name}: toolhost's secret settings reach no command, by variable or by file`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      env: {
        BRAVE_API_KEY: "BRAVE-ENV-SECRET",
        TOOLHOST_PROXY: "http://u:PROXY-SECRET@127.0.0.1:9",
      },
      prepare: ({ home }) => {
        const config = join(home, ".config", "toolhost");
        mkdirSync(config, { recursive: true });
        writeFileSync(
          join(config, "config.jsonc"),
          JSON.stringify({ search: { brave_api_key: "BRAVE-FILE-SECRET" } }),
        );
      },
    });
    const reply = await callTool(w.client, "bash", {
      command: "env; cat ~/.config/toolhost/config.jsonc; grep -r SECRET ~/.config 2>&1",
    });
    for (const secret of ["BRAVE-ENV-SECRET", "PROXY-SECRET", "BRAVE-FILE-SECRET"]) {
      assert.ok(!reply.text.includes(secret), `${secret} was read:\n${reply.text}`);
    }
    assert.match(reply.text, /sandbox: refused reading ~\/\.config\/toolhost\/config\.jsonc/);
  });
}

const SYSTEM_BUS = "/run/dbus/system_bus_socket";

test("root: the system bus (systemd-run as root, outside every sandbox) is out of reach", {
  skip: process.platform !== "linux" || process.getuid!() !== 0
    ? "stands a listener in for the system bus at its path, which needs root"
    : existsSync(SYSTEM_BUS)
    ? `a real system bus listens at ${SYSTEM_BUS}: not stood in for`
    : !existsSync("/run/dbus")
    ? "/run/dbus is missing"
    : false,
}, async () => {
  // A listener of its own process (in the test's, its socket would pass to the server started
  // next and outlive the test's close): prints a line for each connection it accepts.
  const bus = spawn(PYTHON3, [
    "-u",
    "-c",
    "import socket, sys\n" +
    "s = socket.socket(socket.AF_UNIX)\n" +
    "s.bind(sys.argv[1]); s.listen(8); print('listening')\n" +
    "while True:\n" +
    "    c, _ = s.accept(); print('accepted'); c.sendall(b'bus'); c.close()",
    SYSTEM_BUS,
  ], { stdio: ["ignore", "pipe", "inherit"] });
  let said = "";
  bus.stdout.on("data", (chunk: Buffer) => (said += chunk.toString()));
  try {
    while (!said.includes("listening")) {
      if (bus.exitCode !== null) throw new Error("the stand-in bus did not start");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [root] = sandboxUsers();
    const w = startWorld(e2e, root);
    const reply = await callTool(w.client, "bash", {
      command: `${PYTHON3} -c 'import socket; s = socket.socket(socket.AF_UNIX); ` +
        `s.connect("${SYSTEM_BUS}"); print("connected", s.recv(10))' 2>&1`,
    });
    assert.ok(!reply.text.includes("connected"), reply.text);
    assert.ok(!said.includes("accepted"), "the stand-in bus saw a connection");
  } finally {
    bus.kill("SIGKILL");
    rmSync(SYSTEM_BUS, { force: true });
  }
});
