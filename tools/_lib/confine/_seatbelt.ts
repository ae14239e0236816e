/**
 * macOS: the policy as a Seatbelt profile for `sandbox-exec -p PROFILE -D NAME=PATH… -- PROGRAM`.
 * Paths never enter the profile's text: each is a parameter (`(param "W0")`), given with -D, so a
 * path holding quotes, backslashes or newlines cannot change the profile. Reads are allowed but
 * for the hidden paths, writes only beneath the writable places less the protected ones, network
 * only to the proxy's port on localhost (none when the network is off). Not run here: the tests
 * check the text and the arguments.
 */
import type { Policy } from "./_policy.ts";

export interface SeatbeltLaunch {
  /** The proxy's port on localhost, when commands may reach it; undefined: no network. */
  proxyPort?: number;
  /** The whole network, unfiltered (`allow_network: ["*"]`). */
  allNetwork?: boolean;
}

/** Devices every program writes (`> /dev/null`), and the terminals. */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/ptmx"];

/** The profile and its parameters: `-D NAME=VALUE` pairs, in order. */
export function seatbeltProfile(
  policy: Policy,
  how: SeatbeltLaunch,
  git: { writable: readonly string[]; readOnly: readonly string[]; pinned: readonly string[] } = {
    writable: [],
    readOnly: [],
    pinned: [],
  },
): { profile: string; params: [string, string][] } {
  const params: [string, string][] = [];
  const param = (prefix: string, path: string) => {
    const name = `${prefix}${params.filter(([n]) => n.startsWith(prefix)).length}`;
    params.push([name, path]);
    return `(param "${name}")`;
  };
  // A directory's rule covers it and what is beneath; a file's, the file itself.
  const subpaths = (prefix: string, paths: readonly string[]) =>
    paths.map((path) => `(subpath ${param(prefix, path)})`);
  const writable = subpaths("W", [...policy.writable, ...git.writable]);
  const files = policy.writableFiles.map((path) => `(literal ${param("F", path)})`);
  const readOnly = [
    ...subpaths("R", [...git.readOnly, ...policy.readOnly.map((p) => p.path)]),
    // A pinned entry itself cannot be renamed or removed; what is inside it stays writable.
    ...[...policy.pinned, ...git.pinned].map((path) => `(literal ${param("P", path)})`),
  ];
  const hidden = subpaths("H", policy.hidden.map((h) => h.path));
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-sem)",
    "(allow ipc-posix-shm)",
    "(allow pseudo-tty)",
    "(allow file-ioctl)",
    hidden.length > 0
      ? `(allow file-read* (require-all (subpath "/") ${
        hidden.map((h) => `(require-not ${h})`).join(" ")
      }))`
      : '(allow file-read* (subpath "/"))',
    `(allow file-write* ${DEVICES.map((d) => `(literal "${d}")`).join(" ")})`,
  ];
  const writes = [...writable, ...files];
  if (writes.length > 0) {
    const allowed = writes.length === 1 ? writes[0] : `(require-any ${writes.join(" ")})`;
    lines.push(
      readOnly.length > 0
        ? `(allow file-write* (require-all ${allowed} ${
          readOnly.map((r) => `(require-not ${r})`).join(" ")
        }))`
        : `(allow file-write* ${allowed})`,
    );
  }
  if (how.allNetwork) lines.push("(allow network*)", "(allow system-socket)");
  else if (how.proxyPort !== undefined) {
    lines.push(`(allow network-outbound (remote tcp "localhost:${how.proxyPort}"))`);
  }
  return { profile: lines.join("\n") + "\n", params };
}

/** sandbox-exec's arguments for `file args` under the profile. */
export function seatbeltArguments(
  profile: { profile: string; params: [string, string][] },
  file: string,
  args: readonly string[],
): string[] {
  const defines = profile.params.flatMap(([name, value]) => ["-D", `${name}=${value}`]);
  return ["-p", profile.profile, ...defines, file, ...args];
}
