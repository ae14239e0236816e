/**
 * Whether a language server has finished loading the project, from what it says: its
 * work-done progress (`$/progress` begin/end), rust-analyzer's `experimental/serverStatus`
 * (quiescent or not), and for a server that says neither, a short grace after its first
 * document in which it may still begin. Every change wakes whoever waits for one: waits are on
 * events, bounded by the caller's deadline.
 */

/**
 * How long after its first document a server that reported no loading yet may still begin to.
 * Not waited for where the server's own answers wait for the project (`waitsForProject`).
 */
export const PROGRESS_GRACE_MS = 3000;

export class Readiness {
  /** Work-done progress in flight (token -> title). */
  #progress = new Map<string, string>();
  #progressSeen = false;
  /** rust-analyzer's status: undefined until it sends one. */
  #quiescent: boolean | undefined;
  #statusMessage: string | undefined;
  /** rust-analyzer's health when not "ok" ("warning", "error"): part of the project failed. */
  #health: string | undefined;
  #firstOpen: number | undefined;
  #waiters: (() => void)[] = [];
  /** Set once the server is known to have loaded the project, and never unset. */
  #loadedOnce = false;
  /** The checks run after a save (progress titled `checkTitle…`): how many began, which run. */
  #checksBegun = 0;
  #checksRunning = new Set<string>();

  /**
   * `waitsForProject`: the server's answers wait for the project to load (no grace needed);
   * `checkTitle`: how the progress of its check after a save is titled ("cargo check");
   * `warming`: titles of progress that only warms caches (answers meanwhile are complete);
   * `logsListing`: it logs when it has listed the project's files (listed() is called then).
   */
  constructor(
    private readonly waitsForProject: boolean,
    private readonly checkTitle?: string,
    private readonly warming: readonly string[] = [],
    logsListing = false,
  ) {
    this.#listed = !logsListing;
  }

  /** False until a server that logs its listing of the project's files has. */
  #listed: boolean;

  /** The server logged that it knows the project's files. */
  listed(): void {
    this.#listed = true;
    this.#wake();
  }

  /** `window/workDoneProgress/create`: progress will follow. */
  created(token: string): void {
    this.#progressSeen = true;
    if (!this.#progress.has(token)) this.#progress.set(token, "loading");
    this.#wake();
  }

  /** `$/progress`. */
  progress(token: string, value: { kind?: string; title?: unknown }): void {
    if (value.kind === "begin") {
      const title = String(value.title ?? "loading").slice(0, 200);
      if (this.checkTitle && title.startsWith(this.checkTitle)) {
        this.#checksBegun++;
        this.#checksRunning.add(token);
        this.#progress.delete(token);
      } else {
        this.#progressSeen = true;
        this.#progress.set(token, title);
      }
    } else if (value.kind === "end") {
      this.#progress.delete(token);
      this.#checksRunning.delete(token);
    } else return;
    this.#wake();
  }

  /** rust-analyzer's `experimental/serverStatus`. */
  status(value: { quiescent?: unknown; message?: unknown; health?: unknown }): void {
    if (typeof value.quiescent !== "boolean") return;
    this.#quiescent = value.quiescent;
    this.#statusMessage = typeof value.message === "string"
      ? value.message.slice(0, 200)
      : undefined;
    this.#health = value.health === "warning" || value.health === "error"
      ? value.health
      : undefined;
    if (value.quiescent) this.#loadedOnce = true;
    this.#wake();
  }

  /**
   * What the server says failed in loading the project, once it is done (rust-analyzer's health
   * "warning" or "error", e.g. a standard library it could not load): its answers may then miss
   * what depends on that part, complete as they look.
   */
  get problem(): string | undefined {
    if (!this.#health || this.#quiescent !== true) return undefined;
    const said = this.#statusMessage?.split("\n")[0].trim();
    return said ? `${this.#health}: ${said}` : this.#health;
  }

  /** A document was opened: the grace for progress to begin counts from the first. */
  opened(): void {
    this.#firstOpen ??= Date.now();
  }

  /** Something else worth a new look (the server ended, a diagnostic refresh). */
  poke(): void {
    this.#wake();
  }

  /** Whether the server reports what it loads (progress or status). */
  get reports(): boolean {
    return this.#progressSeen || this.#quiescent !== undefined;
  }

  /** Whether it finished loading at least once (quiescent, or its progress ended). */
  get loadedOnce(): boolean {
    return this.#loadedOnce;
  }

  /** What it is still doing, or undefined when it is ready for a question. */
  busy(now = Date.now()): string | undefined {
    if (!this.#listed) return "listing the project's files";
    const titles = [...this.#progress.values()];
    const loading = titles.filter((title) => !this.warming.includes(title));
    const working = loading.at(-1);
    if (this.#quiescent !== undefined) {
      if (this.#quiescent) return undefined;
      // Only warming its caches: loaded, though it is not quiescent yet.
      if (!working && titles.length > 0) return undefined;
      return working ?? this.#statusMessage ?? "indexing";
    }
    if (working) return working;
    if (this.#progressSeen) this.#loadedOnce = true;
    if (this.waitsForProject || this.#progressSeen || this.#firstOpen === undefined) {
      return undefined;
    }
    return now - this.#firstOpen < PROGRESS_GRACE_MS ? "starting" : undefined;
  }

  /** How many checks after a save have begun (to wait for the next one's end). */
  get checksBegun(): number {
    return this.#checksBegun;
  }

  /** Whether a check after a save runs now. */
  get checking(): boolean {
    return this.#checksRunning.size > 0;
  }

  /**
   * Waits, until `deadline`, for a check begun after `begunBefore` had begun to end; true when
   * one did (its diagnostics are published then).
   */
  async checkEnded(begunBefore: number, deadline: number, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.#checksBegun > begunBefore && this.#checksRunning.size === 0) return true;
      if (Date.now() >= deadline || signal?.aborted) return false;
      await this.changed(deadline, signal);
    }
  }

  /** Resolves at the next change, or at `deadline`. */
  changed(deadline: number, signal?: AbortSignal): Promise<void> {
    return new Promise((wake) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        wake();
      };
      // Without a change, the grace's end is itself one.
      const grace = this.#firstOpen !== undefined && !this.reports && !this.waitsForProject
        ? this.#firstOpen + PROGRESS_GRACE_MS
        : Infinity;
      const timer = setTimeout(done, Math.max(Math.min(deadline, grace) - Date.now(), 0));
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.push(done);
    });
  }

  /**
   * Waits until the server is ready, at most until `deadline`; returns what it is still doing
   * when the time ran out (an answer now may be incomplete), else undefined.
   */
  async settled(deadline: number, signal?: AbortSignal, gone?: () => boolean): Promise<
    string | undefined
  > {
    for (;;) {
      const busy = this.busy();
      if (busy === undefined || signal?.aborted || gone?.()) return undefined;
      if (Date.now() >= deadline) return busy;
      await this.changed(deadline, signal);
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
