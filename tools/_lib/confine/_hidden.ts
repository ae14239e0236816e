/**
 * What commands may not read: the built-in list of credentials and of sockets that lead out of
 * any sandbox (agents, the session bus, container engines, a terminal multiplexer), then the
 * user's `sandbox.deny_read`, less what `sandbox.allow_read` lifts.
 */
import { join } from "node:path";

/** A hidden path and why: shown by list_roots and in a refusal's explanation. */
export interface Hidden {
  path: string;
  /** "credentials", "agent socket", …; a refusal names the setting that would allow it. */
  why: string;
  /** The setting that lifts it: allow_read for the built-in list, deny_read for the user's. */
  setting: "sandbox.allow_read" | "sandbox.deny_read";
  /** A socket or a directory of sockets: hiding it matters only where a mount can hide it. */
  socket?: boolean;
}

/** Files and directories under the home directory that hold credentials. */
const HOME_CREDENTIALS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".config/git/credentials",
  ".config/gh",
  ".config/hub",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".vault-token",
  ".terraform.d/credentials.tfrc.json",
  ".password-store",
  ".local/share/keyrings",
  // Browser profiles: cookies and saved passwords.
  ".mozilla",
  ".config/google-chrome",
  ".config/chromium",
  ".config/BraveSoftware",
  ".config/microsoft-edge",
  ".config/vivaldi",
  ".config/opera",
  "snap/firefox",
  "snap/chromium",
  ".var/app/org.mozilla.firefox",
  ".var/app/com.google.Chrome",
  ".var/app/org.chromium.Chromium",
  // macOS.
  "Library/Keychains",
  "Library/Cookies",
  "Library/Application Support/Google/Chrome",
  "Library/Application Support/Firefox",
  "Library/Application Support/BraveSoftware",
  "Library/Application Support/Microsoft Edge",
  "Library/Safari",
];

export interface HiddenInput {
  home: string;
  env: Record<string, string | undefined>;
  uid: number;
  denyRead: readonly string[];
  allowRead: readonly string[];
}

/** Every path hidden from commands, the built-in list first. */
export function hiddenPaths({ home, env, uid, denyRead, allowRead }: HiddenInput): Hidden[] {
  const builtIn = (path: string, why: string, socket = false): Hidden => ({
    path,
    why,
    setting: "sandbox.allow_read",
    socket,
  });
  const list: Hidden[] = HOME_CREDENTIALS.map((p) => builtIn(join(home, p), "credentials"));
  if (env.SSH_AUTH_SOCK?.startsWith("/")) {
    list.push(builtIn(env.SSH_AUTH_SOCK, "the SSH agent's socket", true));
  }
  // Agents, keyrings, the session bus, systemd --user (which would run a command outside).
  const runtime = env.XDG_RUNTIME_DIR?.startsWith("/") ? env.XDG_RUNTIME_DIR : `/run/user/${uid}`;
  list.push(builtIn(runtime, "the session's sockets (agents, keyrings, the session bus)", true));
  for (const socket of ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"]) {
    list.push(builtIn(socket, "a container engine's socket (a way out of any sandbox)", true));
  }
  // The system bus and systemd's own socket: as root, one message starts any program as a
  // service of the machine's (systemd-run), outside every sandbox.
  for (
    const socket of [
      "/run/dbus/system_bus_socket",
      "/var/run/dbus/system_bus_socket",
      "/run/systemd/private",
    ]
  ) {
    list.push(builtIn(socket, "the system's service manager (a way out of any sandbox)", true));
  }
  list.push(builtIn(`/tmp/tmux-${uid}`, "tmux's sockets (keys typed into your terminals)", true));
  list.push(
    builtIn("/tmp/.X11-unix", "the X display's sockets (keys typed into any window)", true),
  );
  const lifted = new Set(allowRead);
  const kept = list.filter((entry) => !lifted.has(entry.path));
  for (const path of denyRead) {
    kept.push({ path, why: "sandbox.deny_read", setting: "sandbox.deny_read" });
  }
  return kept;
}
