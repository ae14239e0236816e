/**
 * A running language server for one project root: its start and `initialize`, whether it has
 * loaded the project (_readiness.ts), the documents it has open and their versions, the
 * diagnostics it publishes (_published.ts), an idle stop and a memory ceiling. Everything else
 * (which server, when to restart) is the pool's.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CLIENT_CAPABILITIES, section } from "./_client_capabilities.ts";
import { Connection, NoAnswer, RequestFailed } from "./_connection.ts";
import { type FileEvent, ProjectWatcher } from "./_file_watch.ts";
import { LANGUAGES } from "../languages/mod.ts";
import { groupResidentMb } from "./_memory.ts";
import type { Diagnostic, ServerCapabilities } from "./_protocol.ts";
import { Published } from "./_published.ts";
import { Readiness } from "./_readiness.ts";
import type { ServerChoice } from "./_servers.ts";
import type { Confinement } from "../../../_lib/processes/mod.ts";

/** How long `initialize` may take before the server counts as hung. */
const INITIALIZE_MS = 30_000;
/** Open documents kept at most; the least recently used is closed beyond it. */
const MAX_OPEN = 200;

export type { Diagnostic };

/** What identifies a file's content on disk: changed when any of these changes. */
export interface OnDisk {
  mtimeMs: number;
  size: number;
  ino?: number;
}

interface OpenDocument extends OnDisk {
  version: number;
  /** The published sequence when this version was sent: later sets may be about it. */
  sentSeq: number;
  /** The project's changes sent (#changes) when this version was sent. */
  changesAt: number;
  text: string;
  used: number;
}

export interface Limits {
  idleSeconds: number;
  memoryMb: number;
}

/** Where a server's life is told (stderr, and the client's log when it asked). */
export type ServerLog = (level: "info" | "warning", message: string) => void;

export class LanguageServer {
  readonly connection: Connection;
  readonly startedAt = Date.now();
  capabilities: ServerCapabilities = {};
  /** Settles once `initialize` is answered; rejects when it is not. */
  readonly initialized: Promise<void>;
  readonly readiness: Readiness;
  readonly published = new Published();
  #documents = new Map<string, OpenDocument>();
  /** Changes of the project's files sent to the server: new texts, files changed or deleted. */
  #changes = 0;
  /** The last diagnostics had for a version of a document, whichever way they came. */
  #known = new Map<string, { version: number; items: Diagnostic[] }>();
  #idle: ReturnType<typeof setTimeout> | undefined;
  #memory: ReturnType<typeof setInterval> | undefined;
  /** The project's files watched for changes made outside toolhost, while the server runs. */
  readonly watcher: ProjectWatcher;

  /** Why the server this one replaces ended, for the first answer to say. */
  replaced: string | undefined;

  constructor(
    readonly choice: ServerChoice,
    private readonly limits: Limits,
    confinement: Confinement,
    private readonly log: ServerLog = () => {},
  ) {
    this.readiness = new Readiness(
      choice.waitsForProject === true,
      choice.checkOnSave,
      choice.warmsCaches,
      choice.loadedLog !== undefined,
    );
    this.connection = new Connection({
      command: choice.command,
      args: choice.args,
      cwd: choice.root,
      env: choice.env,
      confinement,
      cancels: !choice.neverCancel,
    });
    this.watcher = new ProjectWatcher(
      choice.root,
      watchedByDefault(choice.id),
      (changes) => this.filesChanged(changes),
      (message) => this.log("warning", `${choice.label}: ${message}`),
    );
    this.#answerRequests();
    this.initialized = this.#initialize();
    this.initialized.then(() => this.watcher.start(), () => {});
    this.touch();
    this.#memory = setInterval(() => this.#checkMemory(), 5000);
    this.#memory.unref?.();
    this.connection.onClose((why) => {
      this.log(
        /stopped|idle/.test(why) ? "info" : "warning",
        `${choice.label} for ${choice.root} ended: ${why}`,
      );
      clearInterval(this.#memory);
      clearTimeout(this.#idle);
      this.watcher.close();
      this.readiness.poke();
      this.published.wake();
    });
  }

  get rootUri(): string {
    return pathToFileURL(this.choice.root).href;
  }

  /** Why it is no longer usable (exited, killed, stopped), once it is not. */
  get dead(): string | undefined {
    return this.connection.closed;
  }

  /**
   * Keeps it alive for another idle period. A server still answering a request or loading the
   * project is not idle (a slow answer on a loaded machine must not be cut by the idle stop).
   */
  touch(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.connection.inFlight > 0 || this.readiness.busy() !== undefined) this.touch();
      else void this.connection.stop(`it was stopped after ${this.limits.idleSeconds} s idle`);
    }, this.limits.idleSeconds * 1000);
    this.#idle.unref?.();
  }

  #answerRequests(): void {
    const c = this.connection;
    c.onRequest("window/workDoneProgress/create", (params) => {
      this.readiness.created(String((params as { token?: unknown })?.token));
    });
    c.onRequest("workspace/configuration", (params) => {
      const items = (params as { items?: { section?: string }[] })?.items ?? [];
      return items.map((item) => section(this.choice.settings, item.section));
    });
    c.onRequest("workspace/workspaceFolders", () => [{ uri: this.rootUri, name: "root" }]);
    c.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "not offered" }));
    c.onRequest("client/registerCapability", (params) => {
      for (const { id, method, registerOptions } of registrations(params, "registrations")) {
        if (method !== "workspace/didChangeWatchedFiles") continue;
        this.watcher.register(id, (registerOptions as { watchers?: unknown })?.watchers);
      }
      return null;
    });
    c.onRequest("client/unregisterCapability", (params) => {
      // The protocol's own misspelling.
      for (const { id } of registrations(params, "unregisterations")) this.watcher.unregister(id);
      return null;
    });
    // A diagnostics refresh (rust-analyzer after cargo check): whoever waits looks again.
    c.onRequest("workspace/diagnostic/refresh", () => {
      this.readiness.poke();
      this.published.wake();
    });
    for (const kind of ["semanticTokens", "inlayHint", "codeLens", "inlineValue"]) {
      c.onRequest(`workspace/${kind}/refresh`, () => null);
    }
    c.onRequest("window/showMessageRequest", () => null);
    c.onRequest("window/showDocument", () => ({ success: false }));
    c.onNotification("$/progress", (params) => {
      const { token, value } = (params ?? {}) as { token?: unknown; value?: unknown };
      if (!value || typeof value !== "object") return;
      this.readiness.progress(String(token), value as { kind?: string; title?: unknown });
    });
    const loadedLog = this.choice.loadedLog;
    if (loadedLog) {
      c.onNotification("window/logMessage", (params) => {
        const message = (params as { message?: unknown })?.message;
        if (typeof message === "string" && loadedLog.test(message)) this.readiness.listed();
      });
    }
    c.onNotification("experimental/serverStatus", (params) => {
      if (params && typeof params === "object") this.readiness.status(params);
    });
    c.onNotification("textDocument/publishDiagnostics", (params) => {
      const { uri, version, diagnostics } = (params ?? {}) as {
        uri?: unknown;
        version?: unknown;
        diagnostics?: unknown;
      };
      if (typeof uri !== "string" || !Array.isArray(diagnostics)) return;
      this.published.record(
        uri,
        typeof version === "number" ? version : undefined,
        diagnostics as Diagnostic[],
        this.#documents.get(uri)?.version,
      );
    });
  }

  async #initialize(): Promise<void> {
    const c = this.connection;
    try {
      const result = await c.request(
        "initialize",
        {
          // No parent to watch: a confined server cannot signal toolhost (kill(pid, 0) fails
          // with EPERM, which servers take for toolhost's death), and toolhost ends its
          // servers itself, process group, mark and watchdog.
          processId: null,
          clientInfo: { name: "toolhost" },
          rootUri: this.rootUri,
          rootPath: this.choice.root,
          workspaceFolders: [{ uri: this.rootUri, name: "root" }],
          initializationOptions: this.choice.initializationOptions,
          capabilities: CLIENT_CAPABILITIES,
        },
        INITIALIZE_MS,
      );
      this.capabilities = result?.capabilities ?? {};
      c.notify("initialized", {});
      // A server that asks for its settings gets them so; pushed too, it loads them twice.
      if (this.choice.settings && !this.choice.pullsSettings) {
        c.notify("workspace/didChangeConfiguration", { settings: this.choice.settings });
      }
    } catch (error) {
      // A frozen server was killed by the time limit: the time limit says it.
      const why = error instanceof NoAnswer ? error.message : c.closed ?? (error as Error).message;
      if (!c.closed) c.kill("it did not finish initialize");
      const tail = c.stderrTail;
      throw new RequestFailed(
        `${this.choice.label} could not be started for ${this.choice.root}: ${why}${
          tail ? `; its last output: ${tail}` : ""
        }`,
      );
    }
  }

  /**
   * Waits, until `deadline`, for the server to be done loading the project; returns what it is
   * still doing when the time ran out (an answer may then be incomplete).
   */
  settled(deadline: number, signal?: AbortSignal): Promise<string | undefined> {
    return this.readiness.settled(deadline, signal, () => this.dead !== undefined);
  }

  /**
   * Makes the server's view of `uri` the given content: opens it, or sends the whole new text
   * when it changed. Returns the document's version.
   */
  syncDocument(uri: string, text: string, disk: OnDisk): number {
    const open = this.#documents.get(uri);
    if (!open) {
      this.readiness.opened();
      this.connection.notify("textDocument/didOpen", {
        textDocument: { uri, languageId: this.choice.languageId, version: 1, text },
      });
      this.#documents.set(uri, {
        version: 1,
        sentSeq: this.published.sequence,
        changesAt: this.#changes,
        ...disk,
        text,
        used: Date.now(),
      });
      this.#closeLeastUsed();
      return 1;
    }
    open.used = Date.now();
    if (open.text !== text) {
      open.version++;
      open.sentSeq = this.published.sequence;
      open.changesAt = ++this.#changes;
      open.text = text;
      this.connection.notify("textDocument/didChange", {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
      // A wait for the previous version's diagnostics ends: none can come for it now.
      this.published.wake();
    }
    open.mtimeMs = disk.mtimeMs;
    open.size = disk.size;
    open.ino = disk.ino;
    return open.version;
  }

  /** Whether the server wants to hear of saves (rust-analyzer checks the project then). */
  get wantsSaves(): boolean {
    const sync = this.capabilities.textDocumentSync;
    return typeof sync === "object" && sync !== null && !!sync.save;
  }

  /** Tells the server an open document was written to disk as it has it. */
  saved(uri: string): void {
    if (this.#documents.has(uri) && this.wantsSaves) {
      this.connection.notify("textDocument/didSave", { textDocument: { uri } });
    }
  }

  /** The diagnostics last had for `uri`, with the version they are about. */
  known(uri: string): { version: number; items: Diagnostic[] } | undefined {
    return this.#known.get(uri);
  }

  /** Keeps what was had for a version of an open document (currentDiagnostics). */
  remember(uri: string, version: number, items: Diagnostic[]): void {
    if (!this.#documents.has(uri)) return;
    this.#known.set(uri, { version, items });
  }

  /** The published sequence when the open document's current version was sent. */
  sentSeq(uri: string): number | undefined {
    return this.#documents.get(uri)?.sentSeq;
  }

  /** The version the server has of `uri`, when it is open. */
  version(uri: string): number | undefined {
    return this.#documents.get(uri)?.version;
  }

  /** The text the server has for `uri`, when it is open. */
  openText(uri: string): string | undefined {
    return this.#documents.get(uri)?.text;
  }

  /**
   * The open documents whose file changed on disk since they were sent (another program, an
   * editor, toolhost's own tools) or is gone; the caller sends what they hold now. Each file is
   * looked at with one synchronous stat (microseconds; one through the event loop's thread pool
   * took 30-100 µs, and every query asks this of up to MAX_OPEN files).
   */
  changedOnDisk(): { uri: string; path: string; gone: boolean }[] {
    const changed: { uri: string; path: string; gone: boolean }[] = [];
    for (const [uri, doc] of this.#documents) {
      const path = fileURLToPath(uri);
      let info;
      try {
        info = statSync(path);
      } catch {
        info = undefined;
      }
      if (!info || !info.isFile()) changed.push({ uri, path, gone: true });
      else if (
        info.mtimeMs !== doc.mtimeMs || info.size !== doc.size ||
        (doc.ino !== undefined && info.ino !== doc.ino)
      ) {
        changed.push({ uri, path, gone: false });
      }
    }
    return changed;
  }

  closeDocument(uri: string, deleted: boolean): void {
    if (!this.#documents.delete(uri)) return;
    this.connection.notify("textDocument/didClose", { textDocument: { uri } });
    if (deleted) {
      this.#changes++;
      this.connection.notify("workspace/didChangeWatchedFiles", { changes: [{ uri, type: 3 }] });
    }
    this.published.forget(uri);
    this.#known.delete(uri);
    this.published.wake();
  }

  /**
   * Tells the server a file it does not have open was created, changed or deleted (an open
   * one's content is the client's to send: syncDocument).
   */
  fileChanged(uri: string, type: 1 | 2 | 3): void {
    if (this.#documents.has(uri)) return;
    this.#changes++;
    this.connection.notify("workspace/didChangeWatchedFiles", { changes: [{ uri, type }] });
  }

  /**
   * Tells the server of files changed outside toolhost (ProjectWatcher), in one notification; a
   * file it has open is left out (its content is sent before each query: changedOnDisk).
   */
  filesChanged(changes: FileEvent[]): void {
    const closed = changes.filter((change) => !this.#documents.has(change.uri));
    if (closed.length === 0 || this.dead) return;
    this.#changes++;
    this.connection.notify("workspace/didChangeWatchedFiles", { changes: closed });
  }

  /**
   * Sends an open document's text again as a new version when other files changed after its
   * version was sent, so that a server that publishes diagnostics checks it against the project
   * as it is now: pyright published nothing new for a file whose import changed, and its set
   * from before stood for the current version. Returns the version the server now has.
   */
  recheck(uri: string): number | undefined {
    const open = this.#documents.get(uri);
    if (!open || open.changesAt === this.#changes) return open?.version;
    open.version++;
    open.sentSeq = this.published.sequence;
    open.changesAt = this.#changes;
    this.connection.notify("textDocument/didChange", {
      textDocument: { uri, version: open.version },
      contentChanges: [{ text: open.text }],
    });
    this.published.wake();
    return open.version;
  }

  #closeLeastUsed(): void {
    if (this.#documents.size <= MAX_OPEN) return;
    const [oldest] = [...this.#documents].sort((a, b) => a[1].used - b[1].used)[0];
    this.closeDocument(oldest, false);
  }

  /** Whether the server answers textDocument/diagnostic (pull) rather than only publishing. */
  get pulls(): boolean {
    return this.capabilities.diagnosticProvider !== undefined &&
      this.capabilities.diagnosticProvider !== null;
  }

  /** The resident memory of the server's processes together (Linux), in MB. */
  residentMb(): number | undefined {
    return groupResidentMb(this.connection.pid);
  }

  #checkMemory(): void {
    const mb = this.residentMb();
    if (mb !== undefined && mb > this.limits.memoryMb) {
      this.connection.kill(
        `it held ${Math.round(mb)} MB, over the code.server_memory_mb ceiling of ` +
          `${this.limits.memoryMb} MB, and was killed`,
      );
    }
  }
}

/** A server's own language's files and project markers: watched where it registered no globs. */
function watchedByDefault(id: string): (path: string) => boolean {
  const extensions = new Set<string>();
  const markers = new Set<string>();
  for (const language of LANGUAGES) {
    const family = language.servers.find((server) => server.id === id);
    if (!family) continue;
    for (const extension of Object.keys(language.extensions)) extensions.add(extension);
    for (const marker of family.markers) markers.add(marker);
  }
  return (path) => {
    const name = basename(path);
    const dot = name.lastIndexOf(".");
    return markers.has(name) || (dot > 0 && extensions.has(name.slice(dot).toLowerCase()));
  };
}

/** The registrations (or unregistrations) of a register/unregisterCapability request. */
function registrations(
  params: unknown,
  key: string,
): { id: string; method: string; registerOptions?: unknown }[] {
  const list = (params as Record<string, unknown> | undefined)?.[key];
  if (!Array.isArray(list)) return [];
  return list.filter((item) => typeof item?.id === "string" && typeof item?.method === "string");
}
