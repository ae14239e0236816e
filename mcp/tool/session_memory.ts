/**
 * What one session keeps between its calls (a stdio server's connection, an HTTP session): each
 * family's own record under a typed key, made on first use and gone with the connection. Tools
 * and hooks reach it as `ctx.session`, never through a module global.
 *
 * @example
 * ```ts
 * const seen = new SessionKey("files this session read", () => new Map<string, number>());
 * ctx.session.get(seen).set(real, info.mtimeMs);
 * ```
 */
export class SessionKey<T> {
  constructor(readonly name: string, readonly make: () => T) {}
}

export class SessionMemory {
  #values = new Map<SessionKey<unknown>, unknown>();

  /** This session's value under `key`, made by the key the first time. */
  get<T>(key: SessionKey<T>): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = key.make();
    this.#values.set(key, value);
    return value;
  }

  /** Whether anything was kept under `key` yet (asking makes nothing). */
  has(key: SessionKey<unknown>): boolean {
    return this.#values.has(key);
  }
}
