/**
 * One session's network: its proxy (on a unix socket in a private directory, or on TCP
 * 127.0.0.1 where there are no namespaces) and its holder, made at the first confined process,
 * made again when the holder has died, and ended with the session. Loaded on first use: it brings
 * node:net and node:dns with it.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { makeTemp } from "./_temp.ts";
import type { NetworkContext } from "./_proxy_ask.ts";
import { type Holder, startHolder } from "./_holder.ts";
import { FilteringProxy } from "./_proxy.ts";
import { forwardLoopback, type LoopbackForward, MAX_FORWARDS } from "./_loopback_forward.ts";
import { loopbackServices, networkRules } from "./_proxy_rules.ts";
import { type CallRecord, SessionPolicy, type SessionPolicyOptions } from "./_proxy_calls.ts";

/** The longest path a unix socket may have (sun_path, with its terminating zero). */
const SOCKET_PATH_MAX = 107;

/** What the wrap step knows of the machine (the seam's NetworkOptions). */
export interface MachineNetwork {
  helper: string;
  namespaces: boolean;
  userConfigFile?: string;
}

export interface Ready {
  helperArgument: string;
  /** The proxy's port as a process sees it: inside the namespace, or on the machine. */
  port: number;
  notice?: string;
}

export class SessionNetwork {
  #policy?: SessionPolicy;
  #proxy?: FilteringProxy;
  #holder?: Holder;
  #dir?: string;
  /** The machine's loopback services brought into the namespace, and the holder's arguments. */
  #forwards: LoopbackForward[] = [];
  #port = 0;
  /** Calls wait their turn: two first commands at once make one network. */
  #queue: Promise<unknown> = Promise.resolve();
  #ended = false;

  constructor(readonly policyOptions: Omit<SessionPolicyOptions, "userConfigFile"> = {}) {}

  /** Makes the network if needed, and a record for one process of `ctx`'s call. */
  async forProcess(
    ctx: NetworkContext,
    options: MachineNetwork,
    what?: string,
  ): Promise<{ ready: Ready; record: CallRecord }> {
    const ready = this.#queue.then(() => this.#ensure(ctx, options));
    this.#queue = ready.catch(() => {});
    const made = await ready;
    return { ready: made, record: this.#policy!.register(ctx, what) };
  }

  async #ensure(ctx: NetworkContext, options: MachineNetwork): Promise<Ready> {
    if (this.#ended) throw new Error("the session has ended");
    if (!this.#proxy) {
      this.#policy = new SessionPolicy(ctx.config, {
        ...this.policyOptions,
        userConfigFile: options.userConfigFile,
      });
      const proxy = new FilteringProxy(this.#policy);
      this.#proxy = proxy;
      if (!options.namespaces) this.#port = await proxy.listen({ port: 0 });
      else {
        // Beside the session's temporary directory, in toolhost's private parent: never a place a
        // confined command may write.
        this.#dir = makeTemp("net");
        const socket = join(this.#dir, "proxy.sock");
        if (socket.length > SOCKET_PATH_MAX) {
          throw new Error(
            `the session's network needs a unix socket, and ${socket} is longer than ` +
              `${SOCKET_PATH_MAX} bytes: set TMPDIR to a shorter directory`,
          );
        }
        this.#forwards = await this.#forwardServices(ctx, this.#dir);
        // At once: the holder connects to the socket only when a process does.
        const [listening, holder] = await Promise.allSettled([
          proxy.listen({ path: socket }),
          startHolder(options.helper, socket, this.#holderForwards()),
        ]);
        if (holder.status === "fulfilled") this.#holder = holder.value;
        if (listening.status === "rejected") {
          this.#proxy = undefined;
          await this.#holder?.end();
          this.#holder = undefined;
          await this.#closeForwards();
          rmSync(this.#dir, { recursive: true, force: true });
          throw listening.reason;
        }
        if (holder.status === "rejected") throw holder.reason;
      }
    }
    if (!options.namespaces) {
      return { helperArgument: `proxy:${this.#port}`, port: this.#port };
    }
    let notice: string | undefined;
    if (this.#holder && !this.#holder.alive()) {
      notice = `sandbox: the session's network had ended (${
        this.#holder.ended ?? "its holder process is gone"
      }) and was made again; processes still running from earlier calls lost their network`;
      await this.#holder.end();
      this.#holder = undefined;
    }
    this.#holder ??= await startHolder(
      options.helper,
      join(this.#dir!, "proxy.sock"),
      this.#holderForwards(),
    );
    const { pid, inode, port } = this.#holder;
    return { helperArgument: `join:${pid}:${inode}`, port, notice };
  }

  /**
   * The loopback services `sandbox.allow_network` names with a port, each on a unix socket in
   * `dir` (fixed for the session: such entries are never added by asking the person).
   */
  async #forwardServices(ctx: NetworkContext, dir: string): Promise<LoopbackForward[]> {
    const services = loopbackServices(networkRules(ctx.config.sandbox.allowNetwork));
    const made = await Promise.allSettled(
      services.slice(0, MAX_FORWARDS).map(async ({ host, port }) => {
        const socket = join(dir, `p${port}.sock`);
        if (socket.length > SOCKET_PATH_MAX) {
          throw new Error(
            `${host}:${port} in sandbox.allow_network needs a unix socket, and ${socket} is ` +
              `longer than ${SOCKET_PATH_MAX} bytes: set TMPDIR to a shorter directory`,
          );
        }
        return await forwardLoopback(socket, host, port);
      }),
    );
    const forwards = made.flatMap((each) => each.status === "fulfilled" ? [each.value] : []);
    const failed = made.find((each) => each.status === "rejected");
    if (failed) {
      await Promise.allSettled(forwards.map((forward) => forward.close()));
      throw (failed as PromiseRejectedResult).reason;
    }
    return forwards;
  }

  #holderForwards(): string[] {
    return this.#forwards.map((forward) => `${forward.port}=${forward.socket}`);
  }

  async #closeForwards(): Promise<void> {
    await Promise.allSettled(this.#forwards.map((forward) => forward.close()));
    this.#forwards = [];
  }

  /** Ends the holder, the proxy and the loopback forwards, and removes the socket's directory. */
  async end(): Promise<void> {
    this.#ended = true;
    await this.#queue;
    await Promise.allSettled([this.#holder?.end(), this.#proxy?.close(), this.#closeForwards()]);
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }

  /** For tests: the holder's pid, the proxy's connections. */
  get holderPid(): number | undefined {
    return this.#holder?.pid;
  }

  get proxy(): FilteringProxy | undefined {
    return this.#proxy;
  }
}
