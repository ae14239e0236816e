/**
 * The command sandbox attacked through the binary, as root and as an unprivileged user: writes
 * outside the roots (directly, through a symlink or a hard link made in the root, through
 * /proc/self/root, after `cd /`), reads of ~/.ssh, a git hook planted in the root (and .git
 * renamed to get around it), toolhost's own configuration and journal rewritten. Every attempt is
 * refused, nothing is written, and the result names what was refused and the setting.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

/** Every file under `dir` with a digest of its content. */
function digests(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.set(path, createHash("sha256").update(readFileSync(path)).digest("hex"));
    }
  };
  walk(dir);
  return found;
}

/**
 * The state directory's digests once toolhost appends no journal line: the line of a call that
 * changed nothing is written after its reply, its lock file there only meanwhile (a snapshot
 * taken then saw a file the next one did not). Waited for by its work, not a time.
 */
async function stateDigests(dir: string): Promise<Map<string, string>> {
  for (let tries = 0;; tries++) {
    try {
      const found = digests(dir);
      if (![...found.keys()].some((path) => path.endsWith(".lock")) || tries >= 400) return found;
    } catch (error) {
      // A lock removed between the listing and the read.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || tries >= 400) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const user of sandboxUsers()) {
  test(`${user.name}: writes outside the roots are refused however they are aimed`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    const out = w.out;
    const before = digests(out);
    const attempts = [
      `echo direct > ${out}/direct.txt`,
      `ln -s ${out} link && echo through-link > link/symlinked.txt`,
      // A hard link to a file outside, made in the root, then written through.
      `ln ${out}/existing.txt hard.txt; echo appended >> hard.txt`,
      `echo proc > /proc/self/root${out}/proc.txt`,
      `cd / && echo relative > ${out.slice(1)}/relative.txt`,
      `mkdir ${out}/made-dir; touch ${out}/touched; cp /etc/hostname ${out}/copied`,
      `mv ${out}/existing.txt ${out}/renamed.txt; rm -f ${out}/existing.txt`,
      `echo tmp > /tmp/toolhost-sandbox-attack-${process.pid}`,
    ];
    for (const command of attempts) {
      const reply = await callTool(w.client, "bash", { command });
      assert.match(reply.text, /Permission denied|Operation not permitted|cross-device/, command);
    }
    assert.deepEqual(digests(out), before, "nothing outside the roots changed");
    assert.equal(existsSync(`/tmp/toolhost-sandbox-attack-${process.pid}`), false);
    // What the result says: the path and the setting that would allow it.
    const said = await callTool(w.client, "bash", { command: `echo x > ${out}/said.txt` });
    assert.match(
      said.text,
      // The scratch directories are in /tmp: the way out named is $TMPDIR.
      new RegExp(
        `sandbox: refused writing ${out}/said\\.txt \\(outside the roots; (use \\$TMPDIR \\(.*\\) or )?sandbox\\.allow_write\\)`,
      ),
    );
    const tmp = await callTool(w.client, "bash", { command: "echo x > /tmp/said.txt" });
    assert.match(
      tmp.text,
      /sandbox: refused writing \/tmp\/said\.txt \(outside the roots; use \$TMPDIR \(\/tmp\/toolhost-\d+\/\d+-session-\w+\) or sandbox\.allow_write\)/,
    );
    // The root and $TMPDIR are writable, and the temporary directory is the session's own.
    const ok = await callTool(w.client, "bash", {
      command:
        'echo in > inside.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && stat -c %a "$TMPDIR"',
    });
    assert.equal(ok.isError, false, ok.text);
    assert.match(ok.text, /^t\n700\n/);
    assert.equal(readFileSync(join(w.root, "inside.txt"), "utf8"), "in\n");
  });

  test(`${user.name}: credentials in the home directory are never read`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ home }) => {
        writeFileSync(join(home, ".netrc"), "machine x login y password NETRC-SECRET\n");
        mkdirSync(join(home, ".aws"));
        writeFileSync(join(home, ".aws", "credentials"), "AWS-SECRET\n");
      },
    });
    const reply = await callTool(w.client, "bash", {
      command:
        "cat ~/.ssh/id_ed25519; cat ~/.ssh/id_*; cat /proc/self/root$HOME/.ssh/id_ed25519; " +
        "cat ~/.netrc ~/.aws/credentials; cp -r ~/.ssh ./stolen; grep -r SECRET ~ 2>&1 | head -5; " +
        "ls -la ~/.ssh",
    });
    for (const secret of [w.secret, "NETRC-SECRET", "AWS-SECRET"]) {
      assert.ok(!reply.text.includes(secret), `${secret} was read:\n${reply.text}`);
    }
    assert.equal(existsSync(join(w.root, "stolen", "id_ed25519")), false);
    assert.match(
      reply.text,
      /sandbox: refused reading ~\/\.ssh\/id_ed25519 \(credentials; sandbox\.allow_read\)/,
    );
    // The search tools run confined too: grep (rg) over the home finds nothing in .ssh.
    const grep = await callTool(w.client, "grep", { pattern: "planted", path: w.root });
    assert.ok(!grep.text.includes(w.secret), grep.text);
  });

  test(`${user.name}: a git hook cannot be planted in the root, nor .git moved out of the way`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => execFileSync("git", ["init", "-q", root]),
    });
    const config = readFileSync(join(w.root, ".git", "config"), "utf8");
    const attempts = [
      "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit",
      "chmod +x .git/hooks/pre-commit.sample; cp .git/hooks/pre-commit.sample .git/hooks/pre-push",
      "rm -rf .git/hooks",
      "git config core.hooksPath evil-hooks",
      "mv .git .git-away && mkdir -p .git/hooks && echo planted > .git/hooks/post-checkout",
      "mv .git/hooks .git/hooks-away",
      "echo '[core] hooksPath = /tmp' >> .git/config",
    ];
    for (const command of attempts) await callTool(w.client, "bash", { command });
    assert.equal(readFileSync(join(w.root, ".git", "config"), "utf8"), config, "config unchanged");
    assert.ok(statSync(join(w.root, ".git")).isDirectory(), ".git is where it was");
    assert.equal(existsSync(join(w.root, ".git-away")), false);
    const hooks = readdirSync(join(w.root, ".git", "hooks"));
    assert.ok(hooks.every((name) => name.endsWith(".sample")), `hooks now: ${hooks.join(", ")}`);
    const said = await callTool(w.client, "bash", { command: "echo x > .git/hooks/pre-commit" });
    assert.match(
      said.text,
      /sandbox: refused writing .*\.git\/hooks\/pre-commit \(protected: \.git\/hooks; never writable by commands\)/,
    );
    const moved = await callTool(w.client, "bash", { command: "mv .git .elsewhere" });
    assert.match(moved.text, /sandbox: refused moving or removing .*\/\.git \(a repository's git/);
  });

  test(`${user.name}: a repository without a hooks directory gets one, read-only all the same`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => {
        execFileSync("git", ["init", "-q", root]);
        rmSync(join(root, ".git", "hooks"), { recursive: true });
      },
    });
    const reply = await callTool(w.client, "bash", {
      command: "mkdir -p .git/hooks; echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
    });
    assert.match(reply.text, /\.git\/hooks\/pre-commit: Read-only file system/);
    assert.deepEqual(readdirSync(join(w.root, ".git", "hooks")), []);
  });

  test(`${user.name}: toolhost's configuration, project file and journal are never rewritten`, {
    skip: user.skip,
  }, async () => {
    // The home, the state directory and the project file all inside the root: only the sandbox's
    // read-only mounts stand between a command and them.
    const w = startWorld(e2e, user, {
      homeInRoot: true,
      prepare: ({ root, home }) => {
        mkdirSync(join(home, ".config", "toolhost"), { recursive: true });
        writeFileSync(join(home, ".config", "toolhost", "config.jsonc"), "{}\n");
        writeFileSync(join(root, ".toolhost.jsonc"), "{}\n");
      },
    });
    await callTool(w.client, "write_file", { path: "journaled.txt", content: "a\n" });
    await callTool(w.client, "history", {}); // the journal's lines are written out
    await callTool(w.client, "bash", { command: "true" }); // the helper is in the state directory
    const state = await stateDigests(w.state);
    const names = [...state.keys()].join("\n");
    assert.match(names, /journal/);
    assert.match(names, /toolhost-confine-/);
    const files = [
      join(w.root, ".toolhost.jsonc"),
      join(w.home, ".config", "toolhost", "config.jsonc"),
      ...state.keys(),
    ];
    const reply = await callTool(w.client, "bash", {
      command: files.map((file) => `echo '{"sandbox":"off"}' >> '${file}'; rm -f '${file}'`)
        .join("; ") + "; mv home/.config/toolhost home/away; mv state state-away; rm -rf state",
    });
    for (const file of files.slice(0, 2)) assert.equal(readFileSync(file, "utf8"), "{}\n", file);
    // toolhost goes on journaling the calls itself: each file is still there, the helper as it
    // was, and no file holds the line the command tried to append.
    const now = await stateDigests(w.state);
    assert.deepEqual([...now.keys()].sort(), [...state.keys()].sort(), "nothing removed or added");
    for (const [file, digest] of state) {
      if (/toolhost-confine-/.test(file)) assert.equal(now.get(file), digest, file);
      const lines = readFileSync(file, "latin1").split("\n");
      assert.ok(!lines.includes('{"sandbox":"off"}'), `${file} was appended to`);
    }
    assert.match(
      reply.text,
      /sandbox: refused writing .*\.toolhost\.jsonc \(protected: toolhost's configuration; never writable by commands\)/,
    );
  });
}
