/**
 * Who may go where through a session's proxy: the calls running now (by token), what the
 * setting, the person's answers for this session and "always" allow, and what each call was
 * refused. A host no rule lists is never resolved before it is allowed (a lookup of a made-up
 * name would carry data out through DNS); a host a rule lists by name is resolved once, and
 * every address checked by the private-network guard unless the entry names that host itself.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import type { Settings } from "../../../config/settings.ts";
import { hostAsWrittenKind } from "../net/net_guard.ts";
import { proxyRulesOf } from "../net/user_proxy.ts";
import type { ProxyCall, ProxyPolicy } from "./_proxy.ts";
import { ask, type Asking, type NetworkContext, type Outcome, questionFor } from "./_proxy_ask.ts";
import {
  entryFor,
  matchHost,
  type NetworkRules,
  networkRules,
  shownTarget,
} from "./_proxy_rules.ts";
import {
  type Lookup,
  Refused,
  type ResolveOptions,
  resolveTarget,
  type Target,
} from "./_proxy_upstream.ts";

/** A host and port the proxy refused a process, and what would allow it. */
export interface NetworkRefusal {
  host: string;
  port: number;
  /** Why, as a clause: "not in sandbox.allow_network", "the person denied it", … */
  why: string;
  /** The setting that would allow it. */
  setting: "sandbox.allow_network";
  /** Requests refused for this host and port. */
  count: number;
  /** The result's line: `sandbox: refused network to example.com:443 (not in sandbox.allow_network)`. */
  line: string;
}

const SETTING = "sandbox.allow_network";
/** Distinct hosts a call's refusals name; the rest are counted in one more entry. */
const MAX_REFUSALS = 20;

/** Entries "always" added while toolhost runs, for every session (the file is read at start). */
const addedAlways = new WeakMap<Readonly<Settings>, string[]>();

export interface SessionPolicyOptions {
  /** Where "always" answers are written; absent: "always" is not offered. */
  userConfigFile?: string;
  /** Default: the user's proxy rules as they are now (the `proxy` setting, HTTPS_PROXY). */
  userProxies?: boolean;
  /** How long the person has to answer; default two minutes. */
  answerMs?: number;
  /** How names are looked up; default the system's resolver. */
  lookup?: Lookup;
}

export class SessionPolicy implements ProxyPolicy {
  readonly #config: Readonly<Settings>;
  readonly #options: SessionPolicyOptions;
  readonly #calls = new Map<string, CallRecord>();
  /** Entries the person allowed for this session. */
  readonly #session: string[] = [];
  /** Questions being asked, by the entry they would add: requests for one host share one. */
  readonly #questions = new Map<string, Asking>();

  constructor(config: Readonly<Settings>, options: SessionPolicyOptions = {}) {
    this.#config = config;
    this.#options = options;
  }

  /** Registers a process of `ctx`'s call; `what` is the command, shown when the person is asked. */
  register(ctx: NetworkContext, what?: string): CallRecord {
    const token = randomBytes(16).toString("hex");
    const record = new CallRecord(token, ctx, what, this);
    this.#calls.set(token, record);
    return record;
  }

  call(tokens: string[]): ProxyCall | undefined {
    for (const token of tokens) {
      const record = this.#calls.get(token);
      if (record) return record;
    }
    return undefined;
  }

  forget(token: string): void {
    this.#calls.delete(token);
  }

  /** The rules in force now: the setting, "always" answers of this run, and this session's. */
  rules(): NetworkRules {
    const always = addedAlways.get(this.#config) ?? [];
    return networkRules([...this.#config.sandbox.allowNetwork, ...always, ...this.#session]);
  }

  /** How a host this session may reach is resolved: the user's proxies as they are now. */
  resolveOptions(guard: boolean, scheme: "http" | "https"): ResolveOptions {
    const { userProxies, lookup } = this.#options;
    return {
      guard,
      scheme,
      lookup,
      userProxies: userProxies === false ? undefined : proxyRulesOf(this.#config),
    };
  }

  /** The question about `entry`, asked through `record`'s call unless one is under way. */
  question(record: CallRecord, entry: string, shown: string): Asking {
    const pending = this.#questions.get(entry);
    if (pending) return pending;
    const { userConfigFile, answerMs } = this.#options;
    const request = questionFor(shown, entry, record.what, userConfigFile);
    const asking = ask(record.ctx, request, answerMs);
    this.#questions.set(entry, asking);
    asking.outcome.then(() => this.#questions.delete(entry));
    // "session" and "always" count whenever they come, after the deadline too.
    asking.late.then((decision) => {
      if (decision === "session" || decision === "always") this.#allowForSession(entry);
      if (decision === "always") this.#allowAlways(record.ctx, entry);
    });
    return asking;
  }

  #allowForSession(entry: string): void {
    if (!this.#session.includes(entry)) this.#session.push(entry);
  }

  #allowAlways(ctx: NetworkContext, entry: string): void {
    const added = addedAlways.get(this.#config) ?? [];
    if (!added.includes(entry)) added.push(entry);
    addedAlways.set(this.#config, added);
    const file = this.#options.userConfigFile;
    if (!file) return;
    // jsonc-parser is loaded only for this.
    import("./_allow_always.ts").then(({ addToAllowNetwork }) => addToAllowNetwork(file, entry))
      .catch((error) =>
        ctx.log(
          "warning",
          `could not add ${entry} to ${SETTING} in ${file} (${(error as Error).message}); ` +
            "it is allowed until toolhost ends",
        )
      );
  }
}

/** One process's view of the proxy: its token, its answers and its refusals. */
export class CallRecord implements ProxyCall {
  ended = false;
  /** Entries the person allowed for this command, and those denied (with why). */
  readonly #once = new Set<string>();
  readonly #denied = new Map<string, string>();
  readonly #refusals = new Map<string, NetworkRefusal>();
  #more = 0;

  constructor(
    readonly token: string,
    readonly ctx: NetworkContext,
    readonly what: string | undefined,
    readonly session: SessionPolicy,
  ) {}

  async admit(host: string, port: number, scheme: "http" | "https"): Promise<Target> {
    const match = matchHost(this.session.rules(), host, port);
    const entry = entryFor(host, port);
    const allowed = match ?? (this.#once.has(entry) ? { explicit: false } : undefined);
    if (allowed) return await this.#resolve(host, port, !allowed.explicit, scheme);
    const shown = shownTarget(host, port);
    const denied = this.#denied.get(entry);
    if (denied) throw this.#refuse(host, port, denied);
    const kind = hostAsWrittenKind(host);
    if (kind) {
      throw this.#refuse(
        host,
        port,
        `${
          isIP(host) ? "it" : host
        } is ${kind}, which only an entry naming it in ${SETTING} allows`,
      );
    }
    for (;;) {
      if (this.ended || !this.ctx.canElicitMidCall) {
        throw this.#refuse(host, port, `not in ${SETTING}`);
      }
      // The session drops a settled question before this resumes (its callback came first), so
      // a question withdrawn by another call's end is asked again here.
      const outcome: Outcome = await this.session.question(this, entry, shown).outcome;
      if ("withdrawn" in outcome) continue;
      if ("decision" in outcome && outcome.decision !== "deny") {
        this.#once.add(entry);
        return await this.#resolve(host, port, true, scheme);
      }
      const why = "unanswered" in outcome
        ? `not in ${SETTING}; ${outcome.unanswered}`
        : `not in ${SETTING}, and the person denied it`;
      this.#denied.set(entry, why);
      throw this.#refuse(host, port, why);
    }
  }

  async #resolve(host: string, port: number, guard: boolean, scheme: "http" | "https") {
    try {
      return await resolveTarget(host, port, this.session.resolveOptions(guard, scheme));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      throw this.#refuse(
        host,
        port,
        `${error.message}, which only an entry naming this host in ${SETTING} allows`,
      );
    }
  }

  /** Records the refusal (once per host and port, counted) and returns what to throw. */
  #refuse(host: string, port: number, why: string): Refused {
    const key = shownTarget(host, port);
    const known = this.#refusals.get(key);
    if (known) known.count++;
    else if (this.#refusals.size < MAX_REFUSALS) {
      this.#refusals.set(key, {
        host,
        port,
        why,
        setting: SETTING,
        count: 1,
        line: `sandbox: refused network to ${key} (${why})`,
      });
    } else this.#more++;
    return new Refused(`${key}: ${why}`);
  }

  refusals(): NetworkRefusal[] {
    const list = [...this.#refusals.values()];
    if (this.#more > 0) {
      list.push({
        host: "",
        port: 0,
        why: `${this.#more} more requests to other hosts`,
        setting: SETTING,
        count: this.#more,
        line: `sandbox: refused ${this.#more} more requests to other hosts (${SETTING})`,
      });
    }
    return list;
  }

  end(): void {
    this.ended = true;
    this.session.forget(this.token);
  }
}
