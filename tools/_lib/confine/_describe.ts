/**
 * The sandbox in force, as a person and a model read it: one line at start (stderr), and the
 * policy in list_roots and --print-config: the mode and mechanism, where commands may write, what
 * stays protected or hidden, the network, and what this machine does not guarantee.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import process from "node:process";
import type { Settings } from "../../../config/settings.ts";
import { gitProtection } from "./_git.ts";
import { landlockGaps, LOST_WITHOUT_NAMESPACES, type Mechanism, mechanism } from "./_mechanism.ts";
import { confinedMode, policyFor, realRoots, within } from "./_policy.ts";
import { isWithin } from "../sandbox/mod.ts";

export interface SandboxStatus {
  /** The mode in force for every process toolhost starts. */
  mode: "workspace-write" | "read-only" | "off";
  /** "Landlock 7 with namespaces", "Landlock 7 only", "Seatbelt", or "none". */
  mechanism: string;
  /** Why there is none, when there is none. */
  unavailable?: string;
  network: string;
  writable: string[];
  protected: string[];
  hidden: string[];
  caches: string[];
  /** What this machine does not guarantee. */
  notGuaranteed: string[];
  /** Commands are refused rather than run unconfined. */
  required: boolean;
}

function mechanismName(mech: Mechanism): string {
  switch (mech.kind) {
    case "namespaces":
      return `Landlock ${mech.landlock}, namespaces`;
    case "landlock":
      return `Landlock ${mech.landlock} only (no user namespaces)`;
    case "seatbelt":
      return "Seatbelt (sandbox-exec)";
    case "unavailable":
      return "none";
  }
}

const shortened = (path: string, home: string) =>
  path === home ? "~" : isWithin(home, path) ? `~${path.slice(home.length)}` : path;

/** The last answers, for a second: a client polling list_roots must not stat the list each time. */
const recent = new Map<string, { at: number; status: Promise<SandboxStatus> }>();

/** The sandbox for commands in this session, as list_roots and --print-config show it. */
export function sandboxStatus(
  settings: Readonly<Settings>,
  roots: readonly string[],
  stateDir: string,
): Promise<SandboxStatus> {
  const key = JSON.stringify([roots, stateDir, settings.sandbox, confinedMode(settings)]);
  const now = Date.now();
  const kept = recent.get(key);
  if (kept && now - kept.at < 1000) return kept.status;
  if (recent.size > 64) recent.clear();
  const status = computeStatus(settings, roots, stateDir);
  recent.set(key, { at: now, status });
  return status;
}

async function computeStatus(
  settings: Readonly<Settings>,
  roots: readonly string[],
  stateDir: string,
): Promise<SandboxStatus> {
  const mode = confinedMode(settings);
  const mech: Mechanism = mode === "off"
    ? { kind: "unavailable", reason: "sandbox.mode is off" }
    : await mechanism(stateDir);
  const home = homedir();
  const base = {
    mode,
    mechanism: mechanismName(mech),
    network: "off (commands, language servers and searches have no network)",
    required: settings.sandbox.required,
  };
  if (mode === "off" || mech.kind === "unavailable") {
    return {
      ...base,
      unavailable: mode === "off" ? "sandbox.mode is off" : (mech as { reason: string }).reason,
      writable: [],
      protected: [],
      hidden: [],
      caches: [],
      notGuaranteed: ["anything: commands run with your full rights"],
    };
  }
  const policy = policyFor({
    kind: "command",
    settings,
    roots: realRoots(roots),
    home,
    env: process.env,
    uid: process.getuid?.() ?? 0,
    stateDir,
    temp: "$TMPDIR",
  });
  const isWritable = (path: string) => policy.writable.some((place) => within(path, place));
  const git = gitProtection(policy.roots.filter(isWritable), isWritable);
  const notGuaranteed = [
    ...(mech.kind === "landlock" ? LOST_WITHOUT_NAMESPACES : []),
    ...(mech.kind === "namespaces" || mech.kind === "landlock" ? landlockGaps(mech.landlock) : []),
    "pathname unix sockets outside the hidden ones can be connected to",
    ...(settings.sandbox.caches === "shared" && mode === "workspace-write"
      ? ["the shared caches can be filled with content that later builds outside read"]
      : []),
    ...(mech.kind === "seatbelt"
      ? ["the macOS profile is not tested on a Mac by toolhost's suite"]
      : []),
  ];
  return {
    ...base,
    writable: policy.writable.map((p) =>
      p === "$TMPDIR" ? "$TMPDIR (the session's own)" : shortened(p, home)
    ),
    protected: [...git.readOnly, ...policy.readOnly].map((p) => shortened(p.path, home)),
    hidden: policy.hidden.filter((h) => existsSync(h.path)).map((h) => shortened(h.path, home)),
    caches: policy.caches,
    notGuaranteed,
  };
}

/** The start line: `sandbox: workspace-write (Landlock 7, namespaces); network: off`. */
export function startLine(status: SandboxStatus): string {
  if (status.unavailable) {
    const then = status.required
      ? "commands are refused (sandbox.required)"
      : "commands run with your full rights";
    return status.mode === "off"
      ? `sandbox: off (sandbox.mode); ${then}`
      : `sandbox: unavailable: ${status.unavailable}; ${then}`;
  }
  const lost = status.mechanism.includes("only")
    ? `; not guaranteed here: ${LOST_WITHOUT_NAMESPACES.join("; ")}`
    : "";
  return `sandbox: ${status.mode} (${status.mechanism}); network: off${lost}`;
}

/** The policy as lines, for list_roots and --print-config. */
export function statusLines(status: SandboxStatus): string[] {
  if (status.unavailable) return [startLine(status)];
  const list = (items: string[]) => items.length > 0 ? items.join(", ") : "none";
  return [
    `sandbox: ${status.mode} (${status.mechanism})`,
    `  commands may write: ${list(status.writable)}`,
    `  protected (never written): ${list(status.protected)}`,
    `  hidden (never read): ${list(status.hidden)}`,
    `  caches: ${list(status.caches)}`,
    `  network: ${status.network}`,
    `  not guaranteed here: ${status.notGuaranteed.join("; ")}`,
  ];
}
