/**
 * What this machine offers, decided once per server: on Linux `toolhost-confine probe` says which
 * Landlock ABI the kernel has and whether user and network namespaces can be made, and the
 * fallback ladder follows (namespaces and Landlock; Landlock alone; nothing); on macOS Seatbelt's
 * sandbox-exec; on Windows nothing.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";
import { helperPath } from "./_helper.ts";

export type Mechanism =
  /** Landlock with user, mount and network namespaces: every guarantee. */
  | { kind: "namespaces"; helper: string; landlock: number }
  /** Landlock without namespaces: writes and sockets confined, the rest lost (see LOST). */
  | { kind: "landlock"; helper: string; landlock: number }
  /** macOS: sandbox-exec with a generated profile. */
  | { kind: "seatbelt"; sandboxExec: string }
  /** No sandbox on this machine, and why. */
  | { kind: "unavailable"; reason: string };

/** What Landlock without namespaces cannot guarantee, for the start line and list_roots. */
export const LOST_WITHOUT_NAMESPACES = [
  ".git/hooks, .git/config and toolhost's files inside the roots are writable",
  "sockets outside the roots (agents, the session bus, container engines) are reachable",
  "/dev/shm is shared with your other processes",
  "your terminals in /dev/pts can be opened (what is typed there read, what is shown written)",
  "the machine's loopback services are reachable when the network is allowed",
];

/** What an older Landlock cannot do, by the ABI that added it. */
export function landlockGaps(abi: number): string[] {
  const gaps: string[] = [];
  if (abi < 2) gaps.push("files can be linked or renamed across directories (Landlock ABI 2)");
  if (abi < 3) gaps.push("files outside the roots can be truncated (Landlock ABI 3)");
  if (abi < 6) {
    gaps.push(
      "commands can signal toolhost and your other processes, and reach abstract unix sockets " +
        "(Landlock ABI 6, Linux 6.12)",
    );
  }
  return gaps;
}

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** `landlock=7 userns=1 netns=1` from the helper, or why it did not say. */
function probe(helper: string): Promise<{ facts: string } | { failed: string }> {
  // TOOLHOST_SANDBOX_PROBE stands in for the kernel's answer, so the suite can see each rung of
  // the ladder on one machine. The environment is the user's, who may turn the sandbox off too.
  const stand = process.env.TOOLHOST_SANDBOX_PROBE;
  if (stand) return Promise.resolve({ facts: stand });
  return new Promise((resolve) => {
    execFile(helper, ["probe"], { encoding: "utf8", timeout: 10_000 }, (error, out, err) => {
      if (error) resolve({ failed: err.trim().slice(0, 300) || error.message });
      else resolve({ facts: out });
    });
  });
}

async function linux(helper: string): Promise<Mechanism> {
  const run = await probe(helper);
  if ("failed" in run) {
    return { kind: "unavailable", reason: `the sandbox helper does not run here (${run.failed})` };
  }
  const facts = Object.fromEntries(
    run.facts.trim().split(" ").map((pair) => pair.split("=") as [string, string]),
  );
  const landlock = Number(facts.landlock) || 0;
  if (landlock < 1) {
    return {
      kind: "unavailable",
      reason: "this kernel has no Landlock (Linux 5.13 or later, with landlock in its lsm= list)",
    };
  }
  if (facts.userns === "1" && facts.netns === "1") return { kind: "namespaces", helper, landlock };
  return { kind: "landlock", helper, landlock };
}

let decided: Promise<Mechanism> | undefined;

/** The mechanism of this server, probed the first time it is asked. */
export function mechanism(stateDir: string): Promise<Mechanism> {
  decided ??= (async (): Promise<Mechanism> => {
    if (process.platform === "win32") {
      return {
        kind: "unavailable",
        reason: "not available on Windows (a restricted token cannot keep writes to the roots " +
          "without changing their access lists)",
      };
    }
    if (process.platform === "darwin") {
      return existsSync(SANDBOX_EXEC)
        ? { kind: "seatbelt", sandboxExec: SANDBOX_EXEC }
        : { kind: "unavailable", reason: `${SANDBOX_EXEC} is missing` };
    }
    if (process.platform !== "linux") {
      return { kind: "unavailable", reason: `not available on ${process.platform}` };
    }
    const helper = await helperPath(stateDir);
    if ("unavailable" in helper) return { kind: "unavailable", reason: helper.unavailable };
    return linux(helper.path);
  })();
  return decided;
}
