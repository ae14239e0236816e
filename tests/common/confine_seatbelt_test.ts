/**
 * The macOS profile, as text and arguments (sandbox-exec cannot run here): every rule of the policy
 * is in it, and paths reach it only as -D parameters, so a path holding a quote, a backslash, a
 * newline or a parenthesis cannot change the profile.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { seatbeltArguments, seatbeltProfile } from "../../tools/_lib/confine/_seatbelt.ts";
import type { Policy } from "../../tools/_lib/confine/_policy.ts";

const ODD = '/Users/u/we"ird\\dir\nwith (parens) and ;comments';

const policy: Policy = {
  kind: "command",
  mode: "workspace-write",
  roots: [ODD],
  writable: [ODD, "/private/var/folders/x/T/toolhost-501/s"],
  writableFiles: ["/Users/u/.cargo/.package-cache"],
  readOnly: [{ path: "/Users/u/.config/toolhost", why: "toolhost's configuration" }],
  pinned: ["/Users/u/.config"],
  hidden: [
    { path: "/Users/u/.ssh", why: "credentials", setting: "sandbox.allow_read" },
    {
      path: '/Users/u/Library/Application Support/"Firefox"',
      why: "credentials",
      setting: "sandbox.allow_read",
    },
  ],
  temp: "/private/var/folders/x/T/toolhost-501/s",
  env: {},
  caches: [],
};

const git = {
  writable: ["/Users/u/main/.git"],
  readOnly: [`${ODD}/.git/hooks`, `${ODD}/.git/config`],
  pinned: [`${ODD}/.git`],
};

test("the profile denies by default and allows reads but the hidden paths", () => {
  const { profile } = seatbeltProfile(policy, {}, git);
  assert.match(profile, /^\(version 1\)\n\(deny default\)\n/);
  assert.match(
    profile,
    /\(allow file-read\* \(require-all \(subpath "\/"\) \(require-not \(subpath \(param "H0"\)\)\) \(require-not \(subpath \(param "H1"\)\)\)\)\)/,
  );
  for (const rule of ["process-exec", "process-fork", "sysctl-read", "pseudo-tty"]) {
    assert.ok(profile.includes(`(allow ${rule})`), rule);
  }
  assert.ok(profile.includes("(allow signal (target same-sandbox))"));
});

test("writes: the writable places and files, less every protected path and pinned entry", () => {
  const { profile, params } = seatbeltProfile(policy, {}, git);
  const names = Object.fromEntries(params);
  assert.deepEqual(
    [names.W0, names.W1, names.W2, names.F0],
    [ODD, policy.writable[1], "/Users/u/main/.git", "/Users/u/.cargo/.package-cache"],
  );
  assert.deepEqual([names.R0, names.R1, names.R2], [...git.readOnly, "/Users/u/.config/toolhost"]);
  assert.deepEqual([names.P0, names.P1], ["/Users/u/.config", `${ODD}/.git`]);
  const write = profile.split("\n").find((line) =>
    line.startsWith("(allow file-write* (require-all")
  );
  assert.ok(write, profile);
  for (const name of ["W0", "W1", "W2"]) assert.ok(write.includes(`(subpath (param "${name}"))`));
  assert.ok(write.includes('(literal (param "F0"))'));
  for (const name of ["R0", "R1", "R2"]) {
    assert.ok(write.includes(`(require-not (subpath (param "${name}")))`), name);
  }
  for (const name of ["P0", "P1"]) {
    assert.ok(write.includes(`(require-not (literal (param "${name}")))`), name);
  }
  assert.match(profile, /\(allow file-write\* \(literal "\/dev\/null"\)/);
});

test("no path's text enters the profile: each is a -D parameter, passed as it is", () => {
  const made = seatbeltProfile(policy, {}, git);
  assert.ok(!made.profile.includes('we"ird'), made.profile);
  assert.ok(!made.profile.includes("/Users/"), made.profile);
  const args = seatbeltArguments(made, "/bin/bash", ["-c", "echo hi"]);
  assert.equal(args[0], "-p");
  assert.equal(args[1], made.profile);
  assert.ok(args.includes(`W0=${ODD}`), args.join(" | "));
  assert.deepEqual(args.slice(-3), ["/bin/bash", "-c", "echo hi"]);
  const defines = args.slice(2, -3);
  assert.equal(defines.length, made.params.length * 2);
  assert.ok(defines.every((arg, i) => i % 2 === 1 || arg === "-D"));
});

test("network: none by default; the proxy's port when one is given; everything only when asked", () => {
  const off = seatbeltProfile(policy, {}).profile;
  assert.ok(!/network/.test(off), off);
  const proxied = seatbeltProfile(policy, { proxyPort: 41234 }).profile;
  assert.match(proxied, /\(allow network-outbound \(remote tcp "localhost:41234"\)\)/);
  assert.ok(!proxied.includes("(allow network*)"));
  assert.match(seatbeltProfile(policy, { allNetwork: true }).profile, /\(allow network\*\)/);
});

test("read-only: no writable place but the temporary directory means one subpath rule", () => {
  const readOnly = {
    ...policy,
    mode: "read-only" as const,
    writable: [policy.temp!],
    writableFiles: [],
    readOnly: [],
    pinned: [],
  };
  const { profile, params } = seatbeltProfile(readOnly, {});
  assert.match(profile, /\(allow file-write\* \(subpath \(param "W0"\)\)\)/);
  assert.deepEqual(params.filter(([name]) => name.startsWith("W")), [["W0", policy.temp]]);
});
