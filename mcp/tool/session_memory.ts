/**
 * What one session keeps between its calls (a stdio server's connection, a legacy HTTP session, a
 * WebSocket, an SSE stream, or the 2026-07-28 requests of one subject): each family's own record
 * under a typed key, made on first use and released when the session ends. Tools
 * and hooks reach it as `ctx.session`, never through a module global. A key may say how its value
 * is released when the session ends (a temporary directory removed, a process stopped).
 *
 * @example
 * ```ts
 * const seen = new SessionKey("files this session read", () => new Map<string, number>());
 * ctx.session.get(seen).set(real, info.mtimeMs);
 * const scratch = new SessionKey("a scratch directory", makeScratch, (dir) => dir.remove());
 * ```
 */
export class SessionKey<T> {
  constructor(
    readonly name: string,
    readonly make: () => T,
    /** Called once with the value when the session ends, if a value was ever made. */
    readonly dispose?: (value: T) => void | Promise<void>,
  ) {}
}

export class SessionMemory {
  /**
   * Who the session belongs to: the subject of the OAuth token that opened it (its `sub`, else
   * its client, else the token itself). Undefined without OAuth (stdio, HTTP with no OAuth or a
   * static token), where every session is the machine's user's. What one subject keeps across
   * sessions (the journal, the task list) is told apart by it.
   */
  readonly subject?: string;
  #values = new Map<object, unknown>();
  /** How each value made is released, captured with its own type when it was made. */
  #releases: (() => void | Promise<void>)[] = [];
  #disposed?: Promise<void>;
  /** A random name for this session, for what it owns outside the process (files, logs). */
  readonly id: string = crypto.randomUUID();

  constructor(subject?: string) {
    this.subject = subject;
  }

  /** This session's value under `key`, made by the key the first time. */
  get<T>(key: SessionKey<T>): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    if (this.#disposed) throw new Error(`the session has ended: ${key.name} cannot be made`);
    const value = key.make();
    this.#values.set(key, value);
    const dispose = key.dispose;
    if (dispose) this.#releases.push(() => dispose(value));
    return value;
  }

  /** Whether anything was kept under `key` yet (asking makes nothing). */
  has<T>(key: SessionKey<T>): boolean {
    return this.#values.has(key);
  }

  /** Whether the session has ended (dispose() was called). */
  get ended(): boolean {
    return this.#disposed !== undefined;
  }

  /** Ends the session: every key's value is released, once; later calls return the same wait. */
  dispose(): Promise<void> {
    this.#disposed ??= Promise.allSettled(this.#releases.map(async (release) => await release()))
      .then(() => {
        this.#values.clear();
        this.#releases = [];
      });
    return this.#disposed;
  }
}
