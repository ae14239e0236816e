/**
 * A running language server for one project root: its start and `initialize`, the project
 * loading it reports (`$/progress`), the documents it has open and their versions, the
 * diagnostics it publishes, an idle stop and a memory ceiling. Everything else (which server,
 * when to restart) is the pool's.
 */
import { stat } from "node:fs/promises";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { Connection, RequestFailed } from "./_connection.ts";
import type { ServerChoice } from "./_servers.ts";
import type { Confinement } from "../../../_lib/processes/mod.ts";

/** How long `initialize` may take before the server counts as hung. */
const INITIALIZE_MS = 30_000;
/**
 * How long after its first document a server that reported no loading yet may still begin to
 * (typescript-language-server begins 1-3 s after the first didOpen, and answers references
 * from a half-loaded project until it ends).
 */
const PROGRESS_GRACE_MS = 3000;
/** Open documents kept at most; the least recently used is closed beyond it. */
const MAX_OPEN = 200;

export interface Diagnostic {
  range: { start: { line: number; character: number } };
  severity?: number;
  message: string;
  code?: string | number;
  source?: string;
}

interface OpenDocument {
  version: number;
  /** The diagnostics sequence when this version was sent: later ones are about it. */
  sentSeq: number;
  mtimeMs: number;
  size: number;
  text: string;
  used: number;
}

export interface Limits {
  idleSeconds: number;
  memoryMb: number;
}

export class LanguageServer {
  readonly connection: Connection;
  readonly startedAt = Date.now();
  capabilities: Record<string, unknown> = {};
  /** Settles once `initialize` is answered; rejects when it is not. */
  readonly initialized: Promise<void>;
  /** Work-done progress in flight (token -> title), and whether any was ever reported. */
  #progress = new Map<string, string>();
  #progressSeen = false;
  /** When the first document was opened: the grace for progress to begin counts from it. */
  #firstOpen: number | undefined;
  #progressChanged: (() => void)[] = [];
  #documents = new Map<string, OpenDocument>();
  #diagnostics = new Map<string, { version?: number; items: Diagnostic[]; seq: number }>();
  #seq = 0;
  #diagnosticWaiters: (() => void)[] = [];
  #idle: ReturnType<typeof setTimeout> | undefined;
  #memory: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly choice: ServerChoice,
    private readonly limits: Limits,
    confinement: Confinement,
  ) {
    this.connection = new Connection({
      command: choice.command,
      args: choice.args,
      cwd: choice.root,
      env: choice.env,
      confinement,
    });
    this.#answerRequests();
    this.initialized = this.#initialize();
    this.initialized.catch(() => {});
    this.touch();
    this.#memory = setInterval(() => this.#checkMemory(), 5000);
    this.#memory.unref?.();
    this.connection.onClose(() => {
      clearInterval(this.#memory);
      clearTimeout(this.#idle);
      for (const wake of this.#progressChanged.splice(0)) wake();
      for (const wake of this.#diagnosticWaiters.splice(0)) wake();
    });
  }

  get rootUri(): string {
    return pathToFileURL(this.choice.root).href;
  }

  /** Why it is no longer usable (exited, killed, stopped), once it is not. */
  get dead(): string | undefined {
    return this.connection.closed;
  }

  /** Keeps it alive for another idle period. */
  touch(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(
      () => void this.connection.stop(),
      this.limits.idleSeconds * 1000,
    );
    this.#idle.unref?.();
  }

  #answerRequests(): void {
    const c = this.connection;
    c.onRequest("window/workDoneProgress/create", (params) => {
      const token = String((params as { token?: unknown })?.token);
      this.#progressSeen = true;
      this.#progress.set(token, this.#progress.get(token) ?? "loading");
      this.#wakeProgress();
    });
    c.onRequest("workspace/configuration", (params) => {
      const items = (params as { items?: { section?: string }[] })?.items ?? [];
      return items.map((item) => section(this.choice.settings, item.section));
    });
    c.onRequest("workspace/workspaceFolders", () => [{ uri: this.rootUri, name: "root" }]);
    c.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "not offered" }));
    for (const method of ["client/registerCapability", "client/unregisterCapability"]) {
      c.onRequest(method, () => null);
    }
    for (const kind of ["diagnostic", "semanticTokens", "inlayHint", "codeLens", "inlineValue"]) {
      c.onRequest(`workspace/${kind}/refresh`, () => null);
    }
    c.onRequest("window/showMessageRequest", () => null);
    c.onRequest("window/showDocument", () => ({ success: false }));
    c.onNotification("$/progress", (params) => {
      const { token, value } = params as {
        token: unknown;
        value?: { kind?: string; title?: string };
      };
      if (!value || typeof value !== "object") return;
      const key = String(token);
      if (value.kind === "begin") {
        this.#progressSeen = true;
        this.#progress.set(key, String(value.title ?? "loading").slice(0, 200));
      } else if (value.kind === "end") this.#progress.delete(key);
      this.#wakeProgress();
    });
    c.onNotification("textDocument/publishDiagnostics", (params) => {
      const { uri, version, diagnostics } = params as {
        uri: string;
        version?: number;
        diagnostics: Diagnostic[];
      };
      if (typeof uri !== "string" || !Array.isArray(diagnostics)) return;
      this.#diagnostics.set(uri, { version, items: diagnostics.slice(0, 1000), seq: ++this.#seq });
      if (this.#diagnostics.size > 5000) {
        this.#diagnostics.delete(this.#diagnostics.keys().next().value!);
      }
      for (const wake of this.#diagnosticWaiters.splice(0)) wake();
    });
  }

  async #initialize(): Promise<void> {
    const c = this.connection;
    try {
      const result = await c.request<{ capabilities?: Record<string, unknown> }>(
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
      if (this.choice.settings) {
        c.notify("workspace/didChangeConfiguration", { settings: this.choice.settings });
      }
    } catch (error) {
      const why = c.closed ?? (error as Error).message;
      if (!c.closed) c.kill("it did not finish initialize");
      const tail = c.stderrTail;
      throw new RequestFailed(
        `${this.choice.label} could not be started for ${this.choice.root}: ${why}${
          tail ? `; its last output: ${tail}` : ""
        }`,
      );
    }
  }

  #wakeProgress(): void {
    for (const wake of this.#progressChanged.splice(0)) wake();
  }

  /**
   * Waits, at most `maxMs`, until the server is done loading the project: no work-done progress
   * in flight, and past the grace in which a fresh server may begin reporting it. Returns what
   * it is still doing when the time ran out (the answer may then be incomplete).
   */
  async settled(maxMs: number, signal?: AbortSignal): Promise<string | undefined> {
    const deadline = Date.now() + maxMs;
    for (;;) {
      if (this.dead || signal?.aborted) return undefined;
      const since = this.#firstOpen ?? Date.now();
      const young = !this.#progressSeen && Date.now() - since < PROGRESS_GRACE_MS;
      if (!young && this.#progress.size === 0) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return [...this.#progress.values()][0] ?? "starting";
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, young ? Math.min(left, 100) : left);
        this.#progressChanged.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Whether the server ever reported loading progress (else its early answers are doubtful). */
  get reportsProgress(): boolean {
    return this.#progressSeen;
  }

  /**
   * Makes the server's view of `path` the given content: opens it, or sends the whole new text
   * when it changed. Returns the document's version.
   */
  syncDocument(uri: string, text: string, mtimeMs: number, size: number): number {
    const open = this.#documents.get(uri);
    if (!open) {
      this.#firstOpen ??= Date.now();
      this.connection.notify("textDocument/didOpen", {
        textDocument: { uri, languageId: this.choice.languageId, version: 1, text },
      });
      this.#documents.set(uri, {
        version: 1,
        sentSeq: this.#seq,
        mtimeMs,
        size,
        text,
        used: Date.now(),
      });
      this.#closeLeastUsed();
      return 1;
    }
    open.used = Date.now();
    if (open.text !== text) {
      open.version++;
      open.sentSeq = this.#seq;
      open.text = text;
      this.connection.notify("textDocument/didChange", {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
    }
    open.mtimeMs = mtimeMs;
    open.size = size;
    return open.version;
  }

  /** The diagnostics sequence when the open document's current version was sent. */
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
   * editor, toolhost's own tools) or is gone; the caller sends what they hold now.
   */
  async changedOnDisk(): Promise<{ uri: string; path: string; gone: boolean }[]> {
    const changed: { uri: string; path: string; gone: boolean }[] = [];
    await Promise.all([...this.#documents].map(async ([uri, doc]) => {
      const path = fileURLToPath(uri);
      const info = await stat(path).catch(() => undefined);
      if (!info || !info.isFile()) changed.push({ uri, path, gone: true });
      else if (info.mtimeMs !== doc.mtimeMs || info.size !== doc.size) {
        changed.push({ uri, path, gone: false });
      }
    }));
    return changed;
  }

  closeDocument(uri: string, deleted: boolean): void {
    if (!this.#documents.delete(uri)) return;
    this.connection.notify("textDocument/didClose", { textDocument: { uri } });
    if (deleted) {
      this.connection.notify("workspace/didChangeWatchedFiles", { changes: [{ uri, type: 3 }] });
    }
    this.#diagnostics.delete(uri);
  }

  /**
   * Tells the server a file it does not have open was created, changed or deleted (an open
   * one's content is the client's to send: syncDocument).
   */
  fileChanged(uri: string, type: 1 | 2 | 3): void {
    if (this.#documents.has(uri)) return;
    this.connection.notify("workspace/didChangeWatchedFiles", { changes: [{ uri, type }] });
  }

  #closeLeastUsed(): void {
    if (this.#documents.size <= MAX_OPEN) return;
    const [oldest] = [...this.#documents].sort((a, b) => a[1].used - b[1].used)[0];
    this.closeDocument(oldest, false);
  }

  /** Whether the server answers textDocument/diagnostic (pull) rather than only publishing. */
  get pulls(): boolean {
    return this.capabilities.diagnosticProvider !== undefined;
  }

  /** The last diagnostics published for `uri`, with their sequence number. */
  published(uri: string): { version?: number; items: Diagnostic[]; seq: number } | undefined {
    return this.#diagnostics.get(uri);
  }

  /** Every published diagnostic, by uri. */
  allPublished(): Map<string, Diagnostic[]> {
    return new Map([...this.#diagnostics].map(([uri, d]) => [uri, d.items]));
  }

  get sequence(): number {
    return this.#seq;
  }

  /**
   * Waits for diagnostics of `uri` published after sequence `after`, until `deadline`; those of
   * `version` or later (`exact`: of that version only) where the server names versions.
   */
  async publishedAfter(
    uri: string,
    after: number,
    deadline: number,
    version?: number,
    exact = false,
  ): Promise<Diagnostic[] | undefined> {
    for (;;) {
      const now = this.#diagnostics.get(uri);
      if (
        now && now.seq > after && (version === undefined || now.version === undefined ||
          (exact ? now.version === version : now.version >= version))
      ) return now.items;
      const left = deadline - Date.now();
      if (left <= 0 || this.dead) return undefined;
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.#diagnosticWaiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Diagnostics of `uri` asked for (pull servers), within `timeoutMs`. */
  async pull(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<Diagnostic[]> {
    const report = await this.connection.request<{ kind?: string; items?: Diagnostic[] }>(
      "textDocument/diagnostic",
      { textDocument: { uri } },
      timeoutMs,
      signal,
    );
    return report?.items ?? [];
  }

  /** The resident memory of the server's processes together (Linux), in MB. */
  residentMb(): number | undefined {
    const pgid = this.connection.pid;
    if (pgid === undefined || process.platform !== "linux") return undefined;
    let kb = 0;
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return undefined;
    }
    for (const entry of entries) {
      if (entry.charCodeAt(0) > 57) continue;
      try {
        const statLine = readFileSync(`/proc/${entry}/stat`, "latin1");
        const fields = statLine.slice(statLine.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) !== pgid) continue; // the process group
        const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "latin1"));
        if (rss) kb += Number(rss[1]);
      } catch {
        // ended meanwhile
      }
    }
    return kb / 1024;
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

/** The part of `settings` a workspace/configuration item asks for ("python.analysis"). */
function section(settings: unknown, name: string | undefined): unknown {
  if (!name) return settings ?? null;
  let value = settings as Record<string, unknown> | undefined;
  for (const key of name.split(".")) value = value?.[key] as Record<string, unknown> | undefined;
  return value ?? null;
}

const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true },
  workspace: {
    workspaceFolders: true,
    configuration: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    didChangeConfiguration: { dynamicRegistration: false },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true, resourceOperations: [] },
    diagnostics: { refreshSupport: false },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false },
    definition: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: {},
    rename: { prepareSupport: true },
    publishDiagnostics: { versionSupport: true, relatedInformation: false },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};
