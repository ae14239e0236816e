/**
 * The network of a session's confined processes (docs/security.md#the-network-of-commands): the
 * seam between the command sandbox's wrap step and the session's network. Per MCP session, at
 * its first confined command, a holder process (`toolhost-confine hold SOCKET`) keeps a network
 * namespace whose only way out is 127.0.0.1:PORT inside it, forwarded to a unix socket on which
 * toolhost's filtering proxy listens; both end with the session. Each process started gets a token
 * of its own in its proxy variables, so the proxy knows which call asks, can ask the person for
 * a host not in `sandbox.allow_network`, and records what it refused for that call's result.
 *
 * @example The wrap step of one confined command
 * ```ts
 * const network = await networkForCall(ctx, { helper, namespaces: probe.netns, userConfigFile }, command);
 * const argv = [helper, "run", "-n", network.helperArgument, ...pathOptions, "--", shell, "-c", command];
 * const child = spawnInGroup(argv[0], argv.slice(1), { env: network.env(env), ... });
 * child.once("exit", () => network.end()); // a background command: when it ends, not when the call returns
 * const lines = network.refusals().map((refusal) => refusal.line); // after the output
 * if (network.notice) lines.unshift(network.notice);
 * ```
 */
import { SessionKey } from "../../../mcp/tool/mod.ts";
import type { SessionNetwork } from "./_network_session.ts";
import { NAMESPACE_LOOPBACK, withProxyEnvironment } from "./_proxy_env.ts";
import { networkRules } from "./_proxy_rules.ts";
import type { NetworkRefusal } from "./_proxy_calls.ts";
import type { NetworkContext } from "./_proxy_ask.ts";

export type { NetworkContext, NetworkRefusal };

/** What the wrap step knows of this machine and the user, the same for every call. */
export interface NetworkOptions {
  /** The toolhost-confine helper, absolute: it holds the session's network (`hold`). */
  helper: string;
  /**
   * Whether unprivileged user and network namespaces work here (the probe's `netns=1`). Without
   * them the proxy listens on TCP 127.0.0.1 and processes get `-n proxy:PORT`.
   */
  namespaces: boolean;
  /** The user config file, where "always allow" answers go; absent: "always" is not offered. */
  userConfigFile?: string;
}

/** The network of one confined process (a `bash` command, a background command, a custom tool). */
export interface CallNetwork {
  /**
   * The helper's `-n` value: `join:PID:INODE` (the session's namespace), `proxy:PORT` (no
   * namespaces on this machine), or `host` (`sandbox.allow_network` has `"*"`).
   */
  readonly helperArgument: string;
  /**
   * The process's environment: `base` with the proxy variables pointing at the session's proxy
   * with this process's token, and the user's own proxy variables and NO_PROXY replaced.
   */
  env(base: Readonly<Record<string, string | undefined>>): Record<string, string>;
  /** One line for the call's result when the session's network had ended and was started again. */
  readonly notice?: string;
  /** What the proxy refused this process so far: one entry per host and port, bounded. */
  refusals(): NetworkRefusal[];
  /**
   * The process has ended (for a background command: when it ends, not when its call returns):
   * its token is refused from now on. Safe to call more than once.
   */
  end(): void;
}

const SESSION_NETWORK = new SessionKey<{ network?: Promise<SessionNetwork> }>(
  "the session's network (its holder process and proxy)",
  () => ({}),
  async (held) => await (await held.network?.catch(() => undefined))?.end(),
);

/**
 * The network for one process `ctx`'s call starts: the session's holder and proxy are made at
 * the session's first call (and made again, with a `notice`, if the holder has ended), and ended
 * with the session. `what` (the command, bounded by the caller) is shown when the person is asked.
 */
export async function networkForCall(
  ctx: NetworkContext,
  options: NetworkOptions,
  what?: string,
): Promise<CallNetwork> {
  if (networkRules(ctx.config.sandbox.allowNetwork).all) return HOST_NETWORK;
  const held = ctx.session.get(SESSION_NETWORK);
  // Loaded on first use: the proxy brings node:net and node:dns with it.
  held.network ??= import("./_network_session.ts").then(({ SessionNetwork }) =>
    new SessionNetwork()
  );
  const network = await held.network;
  const { ready, record } = await network.forProcess(ctx, options, what);
  // A user and a password: git (libcurl) asks for a password it is not given, and fails.
  const url = `http://toolhost:${record.token}@127.0.0.1:${ready.port}`;
  const noProxy = options.namespaces ? NAMESPACE_LOOPBACK : "";
  return {
    helperArgument: ready.helperArgument,
    notice: ready.notice,
    env: (base) => withProxyEnvironment(base, url, noProxy),
    refusals: () => record.refusals(),
    end: () => record.end(),
  };
}

/** `"*"` in the setting: the machine's network, as it is. */
const HOST_NETWORK: CallNetwork = {
  helperArgument: "host",
  env: (base) => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
    return env;
  },
  refusals: () => [],
  end: () => {},
};
