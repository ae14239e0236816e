/**
 * What a confined command cannot reach, through the binary, as root and as uid 65534: a service
 * listening on the host's 127.0.0.1 with the network off (one listed with its port is reached, by
 * any protocol), privileges (a setuid binary, root's capabilities), toolhost and its watchdog by
 * signal; and the same attacks from a background
 * command, a custom tool and a language server started under read-only.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

/** The children of `pid` whose command line holds `text` (read from /proc). */
function childrenWith(pid: number, text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === pid && cmdline.includes(text)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** "R", "S", "T" (stopped)…, or undefined when the process is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

for (const user of sandboxUsers()) {
  test(`${user.name}: with the network off, the host's 127.0.0.1 services are out of reach`, {
    skip: user.skip,
  }, async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const w = startWorld(e2e, user);
      const reply = await callTool(w.client, "bash", {
        command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3; ` +
          `(echo > /dev/tcp/localhost/${port}) 2>&1; ` +
          // The command's own loopback works: a test suite's local server is still possible.
          `(sleep 0.3; echo inside | (exec 3<>/dev/tcp/127.0.0.1/${port} 2>/dev/null)) & wait`,
      });
      assert.ok(!reply.text.includes("hello from the host"), reply.text);
      assert.ok(!reply.text.includes("connected"), reply.text);
      assert.equal(connections, 0, "the host's server saw a connection");
      // Its own namespace has a loopback of its own, up, where it may listen.
      const own = await callTool(w.client, "bash", {
        command: "python3 -c \"import socket;s=socket.socket();s.bind(('127.0.0.1',0));" +
          "s.listen();c=socket.create_connection(s.getsockname());print('loopback works')\"" +
          " 2>&1 || echo no python",
      });
      assert.match(own.text, /loopback works|no python/);
    } finally {
      server.close();
    }
  });

  test(
    `${user.name}: a loopback service listed with its port is reached with any protocol; another port is not`,
    {
      skip: user.skip,
    },
    async () => {
      const heard: string[] = [];
      const listen = () => {
        const server = createServer({ allowHalfOpen: true }, (socket) => {
          let text = "";
          socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          // Answers after the client's half-close, as a request/response protocol may.
          socket.on("end", () => {
            heard.push(text);
            socket.end(`the host's service heard ${JSON.stringify(text)}\n`);
          });
        });
        return new Promise<{ port: number; close: () => void }>((resolve) =>
          server.listen(0, "127.0.0.1", () =>
            resolve({
              port: (server.address() as { port: number }).port,
              close: () => server.close(),
            }))
        );
      };
      const allowed = await listen();
      const other = await listen();
      try {
        const w = startWorld(e2e, user, {
          env: { TOOLHOST_SANDBOX_ALLOW_NETWORK: `localhost:${allowed.port}` },
        });
        const talk = (port: number) =>
          "python3 -c \"import socket,sys;s=socket.create_connection(('127.0.0.1'," + port +
          "),timeout=20);s.sendall(b'ping');s.shutdown(socket.SHUT_WR);" +
          'sys.stdout.write(s.makefile().read())" 2>&1 | tail -n 1';
        const reply = await callTool(w.client, "bash", { command: talk(allowed.port) });
        assert.match(reply.text, /the host's service heard "ping"/);
        const refused = await callTool(w.client, "bash", { command: talk(other.port) });
        assert.doesNotMatch(refused.text, /service heard/);
        assert.deepEqual(heard, ["ping"], "the other port's service saw a connection");
      } finally {
        allowed.close();
        other.close();
      }
    },
  );

  test(`${user.name}: a setuid binary gains nothing, and root keeps no capability`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    // A copy of id that is setuid to someone else: root's for uid 65534, uid 65534's for root.
    const id = join(w.out, "suid-id");
    copyFileSync("/usr/bin/id", id);
    chownSync(id, user.uid === 0 ? 65534 : 0, user.uid === 0 ? 65534 : 0);
    chmodSync(id, 0o4755);
    const other = join(w.out, "others.txt");
    writeFileSync(other, "NOT-YOURS\n", { mode: 0o600 });
    chownSync(other, user.uid === 0 ? 65534 : 0, 0);
    const reply = await callTool(w.client, "bash", {
      command: `${id} -u; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status; ` +
        `cat ${other}; chown ${user.uid === 0 ? 65534 : 0} . ; echo chown=$?`,
    });
    const lines = reply.text.split("\n");
    assert.equal(lines[0], String(user.uid), `the setuid binary ran as its caller:\n${reply.text}`);
    assert.match(reply.text, /CapEff:\s+0000000000000000/);
    assert.match(reply.text, /CapPrm:\s+0000000000000000/);
    assert.match(reply.text, /CapBnd:\s+0000000000000000/);
    assert.match(reply.text, /NoNewPrivs:\s+1/);
    assert.ok(!reply.text.includes("NOT-YOURS"), reply.text);
    assert.match(reply.text, /chown=1/);
    // Its own file modes refused the read, not the sandbox: nothing is said of it.
    assert.ok(!/sandbox: refused .*others\.txt/.test(reply.text), reply.text);
  });

  test(`${user.name}: toolhost and its watchdog cannot be signalled by a command`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    await callTool(w.client, "bash", { command: "true" }); // the watchdog starts with it
    const server = w.client.child.pid!;
    let watchdog: number | undefined;
    assert.ok(
      await waitUntil(
        () => (watchdog = childrenWith(server, "toolhost-watchdog")[0]) !== undefined,
        5000,
      ),
      "the watchdog runs",
    );
    const reply = await callTool(w.client, "bash", {
      command: `kill -STOP ${watchdog}; kill -KILL ${watchdog}; kill -TERM ${server}; ` +
        `kill -STOP ${server}; kill -0 ${server}; echo "status $?"`,
    });
    assert.match(reply.text, /Operation not permitted/);
    assert.match(reply.text, /status 1/);
    assert.ok(!["T", undefined].includes(stateOf(watchdog!)), "the watchdog runs on");
    assert.ok(!["T", undefined].includes(stateOf(server)), "toolhost runs on");
    const after = await callTool(w.client, "bash", { command: "echo still here" });
    assert.match(after.text, /^still here/);
  });

  test(`${user.name}: a timeout still stops everything a confined command started`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    const marker = String(40000 + Math.floor(Math.random() * 9999));
    const reply = await callTool(w.client, "bash", {
      command: `sleep ${marker}1 & setsid sleep ${marker}2 & sleep ${marker}3`,
      timeout_ms: 500,
    });
    assert.match(reply.text, /Timed out after 500 ms/);
    const left = () => processesWith(`sleep ${marker}`).filter((line) => /: sleep /.test(line));
    assert.ok(await waitUntil(() => left().length === 0, 5000), left().join("\n"));
  });

  test(`${user.name}: a background command is confined like any other`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    const started = await callTool(w.client, "bash_background", {
      command: `echo bg > ${w.out}/background.txt; cat ~/.ssh/id_ed25519; echo done`,
      grace_ms: 2000,
    });
    assert.ok(!started.text.includes(w.secret), started.text);
    assert.match(started.text, /sandbox: refused writing .*background\.txt/);
    assert.match(started.text, /sandbox: refused reading ~\/\.ssh\/id_ed25519/);
    assert.equal(existsSync(join(w.out, "background.txt")), false);
  });

  test(`${user.name}: a custom tool is confined like any other command`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ home, out }) => {
        const config = join(home, ".config", "toolhost");
        mkdirSync(config, { recursive: true });
        writeFileSync(
          join(config, "config.jsonc"),
          JSON.stringify({
            custom_tools: {
              attack: {
                description: "tries what it should not",
                command: [
                  "sh",
                  "-c",
                  `echo custom > ${out}/custom.txt; cat "$HOME/.ssh/id_ed25519"`,
                ],
              },
            },
          }),
        );
      },
    });
    const reply = await callTool(w.client, "attack", {});
    assert.ok(!reply.text.includes(w.secret), reply.text);
    assert.equal(existsSync(join(w.out, "custom.txt")), false);
    assert.match(reply.text, /sandbox: refused writing .*custom\.txt/);
    assert.match(reply.text, /sandbox: refused reading ~\/\.ssh\/id_ed25519/);
  });

  test(`${user.name}: a language server under read-only writes nothing, not even in the root`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      args: ["--read-only"],
      prepare: ({ home, root, out }) => {
        const config = join(home, ".config", "toolhost");
        mkdirSync(config, { recursive: true });
        const script = `echo ls > ${root}/marker.txt; echo ls > ${out}/marker.txt; ` +
          `cat "$HOME/.ssh/id_ed25519" > ${root}/stolen.txt; exit 3`;
        writeFileSync(
          join(config, "config.jsonc"),
          JSON.stringify({
            code: {
              language_servers: {
                hostile: { command: ["/bin/sh", "-c", script], extensions: [".hostile"] },
              },
            },
          }),
        );
        writeFileSync(join(root, "a.hostile"), "x\n");
      },
    });
    const reply = await callTool(w.client, "code_nav", {
      operation: "hover",
      path: "a.hostile",
      line: 1,
    });
    assert.equal(reply.isError, true, reply.text);
    for (
      const file of [
        join(w.root, "marker.txt"),
        join(w.out, "marker.txt"),
        join(w.root, "stolen.txt"),
      ]
    ) {
      assert.equal(existsSync(file), false, `${file} was written`);
    }
  });
}
