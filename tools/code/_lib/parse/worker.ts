/**
 * The parse worker (parse_pool.ts starts it): tree-sitter's runtime and each grammar are
 * instantiated on the first file that needs them, from the modules the main thread compiled
 * (compiled_modules.ts, sent with each batch), and kept for the worker's life. A parse that runs past its
 * deadline, or whose memory grows past bounds.ts's, is abandoned by tree-sitter itself (the
 * progress callback), so the worker answers; each reply says how much memory the runtime holds,
 * and a worker whose memory grew is ended by the pool once it has answered.
 */
import "../../../_lib/workers/worker_console.ts";
import { Language, Node, Parser } from "web-tree-sitter";
import type { LanguageId } from "../languages/mod.ts";
import type { CompiledModules } from "./compiled_modules.ts";
import { extractSymbols, PER_DEFINITION } from "./extract.ts";
import { syntaxErrors } from "./syntax_errors.ts";
import { IdentifierCounts, identifiersIn } from "./identifiers.ts";
import { MAX_NESTING, nestingDepth } from "./nesting.ts";
import {
  INITIAL_MEMORY_BYTES,
  MAX_MEMORY_BYTES,
  MAX_TREE_NODES,
  PARSE_MEMORY_BYTES,
  tooComplex,
} from "./bounds.ts";
import type { ParsedFile, ParseOutcome } from "./types.ts";

/** One file to parse: `symbols` false when only its syntax errors are wanted. */
export interface ParseJob {
  lang: LanguageId;
  text: string;
  symbols: boolean;
  /** Also count the identifiers it uses (the project map ranks definitions by them). */
  identifiers?: boolean;
}

export interface ParseRequest {
  id: number;
  files: ParseJob[];
  /** Milliseconds one file may take to parse. */
  fileMs: number;
  /** The runtime and the grammars of `files`, compiled. */
  modules: CompiledModules;
}

/** `memoryBytes`: the runtime's memory after the batch (it never shrinks). */
export type ParseReply =
  | { id: number; outcomes: ParseOutcome[]; memoryBytes: number }
  | { id: number; error: string; memoryBytes: number };

/** The part of a worker's global scope used here (Deno type-checks with the window's lib). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ParseRequest>) => void) | null;
  postMessage(message: ParseReply): void;
}

const scope = globalThis as unknown as WorkerScope;

/**
 * Under Bun, the functions run per definition and per file, and tree-sitter's node methods, are
 * kept from JavaScriptCore's top tier (FTL): compiling them, the node methods inlined, took
 * 0.15-1.3 s each in every worker (BUN_JSC_reportFTLCompileTimes), more than their running
 * gained; the tier below (DFG) compiles them in milliseconds.
 */
async function keepFromTopTier(): Promise<void> {
  if (!(globalThis as { Bun?: unknown }).Bun) return;
  const module = "bun:jsc"; // named at run time: Deno checks and runs this file too
  const { noFTL } = await import(module) as { noFTL(f: unknown): unknown };
  const nodeMethods = Object.values(Object.getOwnPropertyDescriptors(Node.prototype))
    .flatMap((d) => [d.value, d.get].filter((f) => typeof f === "function"));
  for (const f of [...PER_DEFINITION, identifiersIn, parseOne, ...nodeMethods]) noFTL(f);
}
const topTierKept = keepFromTopTier().catch(() => {});

const PAGE = 64 * 1024;
/** The runtime's memory, made here so that it has a ceiling and can be measured. */
const memory = new WebAssembly.Memory({
  initial: INITIAL_MEMORY_BYTES / PAGE,
  maximum: MAX_MEMORY_BYTES / PAGE,
});

/** Set once the runtime has aborted (its memory's ceiling reached): nothing runs in it again. */
let broken: string | undefined;

let ready: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();
let parser: Parser | undefined;

/** Emscripten's hook for instantiating the runtime itself (missing from the typings). */
type InstantiateWasm = (
  imports: WebAssembly.Imports,
  done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
) => WebAssembly.Exports;

function language(lang: LanguageId, modules: CompiledModules): Promise<Language> {
  let loaded = languages.get(lang);
  if (!loaded) {
    const instantiateWasm: InstantiateWasm = (imports, done) => {
      const instance = new WebAssembly.Instance(modules.runtime, imports);
      done(instance, modules.runtime);
      return instance.exports;
    };
    // `wasmMemory` and `instantiateWasm` are the runtime's (Emscripten's) own options.
    ready ??= Parser.init(
      { wasmMemory: memory, instantiateWasm } as Parameters<
        typeof Parser.init
      >[0],
    );
    const grammar = modules.grammars[lang];
    loaded = ready.then(() => {
      if (!grammar) throw new Error(`no grammar was sent for ${lang}`);
      return Language.loadSync(grammar);
    });
    // A failure is not kept: the next file tries again.
    loaded.catch(() => languages.delete(lang));
    languages.set(lang, loaded);
  }
  return loaded;
}

/** Bun's collector, asked not to wait (elsewhere nothing). */
function collectGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(false);
}

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function parseOne(
  job: ParseJob,
  fileMs: number,
  modules: CompiledModules,
): Promise<ParseOutcome> {
  if (broken) return { failed: `the parser stopped on an earlier file (${broken}); try again` };
  if (job.text.includes("\0")) return { failed: "it holds NUL bytes (binary data)" };
  if (nestingDepth(job.text) > MAX_NESTING) {
    return { failed: `its brackets nest more than ${MAX_NESTING} levels deep` };
  }
  const grammar = await language(job.lang, modules);
  parser ??= new Parser();
  parser.setLanguage(grammar);
  const deadline = performance.now() + fileMs;
  let tooLarge = false;
  const tree = parser.parse(job.text, null, {
    // Returning true stops the parse (the typings say void).
    progressCallback: (() => {
      tooLarge = memory.buffer.byteLength > PARSE_MEMORY_BYTES;
      return tooLarge || performance.now() > deadline;
    }) as () => void,
  });
  if (!tree) {
    parser.reset();
    return {
      failed: tooLarge
        ? tooComplex(`its syntax tree would take more than ${megabytes(PARSE_MEMORY_BYTES)} MB`)
        : `parsing took longer than ${fileMs / 1000} s`,
    };
  }
  try {
    const nodes = tree.rootNode.descendantCount;
    if (nodes > MAX_TREE_NODES) {
      return { failed: tooComplex(`${nodes} syntax nodes, over ${MAX_TREE_NODES}`) };
    }
    const errors = syntaxErrors(tree.rootNode);
    // The definitions' search counts the identifiers too, when the tree is searched in one call.
    const counted = job.identifiers ? new IdentifierCounts(job.text) : undefined;
    const symbols = job.symbols ? extractSymbols(tree, job.lang, job.text, counted) : [];
    const parsed: ParsedFile = { symbols, ...errors };
    if (job.identifiers) parsed.identifiers = identifiersIn(tree, job.text, symbols, counted);
    return parsed;
  } finally {
    tree.delete();
  }
}

scope.onmessage = async ({ data }: MessageEvent<ParseRequest>) => {
  try {
    await topTierKept;
    const outcomes: ParseOutcome[] = [];
    for (const job of data.files) {
      outcomes.push(
        await parseOne(job, data.fileMs, data.modules).catch((error) => {
          if (error instanceof WebAssembly.RuntimeError) broken = (error as Error).message;
          return { failed: (error as Error).message };
        }),
      );
    }
    // A broken runtime asks to be replaced as a grown one does.
    const memoryBytes = broken ? MAX_MEMORY_BYTES : memory.buffer.byteLength;
    scope.postMessage({ id: data.id, outcomes, memoryBytes } satisfies ParseReply);
    // The batch's garbage (its text, the nodes looked at) goes now, before the next batch adds
    // to it: a worker's heap otherwise grows by tens of megabytes before it is collected.
    collectGarbage();
  } catch (error) {
    scope.postMessage(
      {
        id: data.id,
        error: (error as Error).message,
        memoryBytes: memory.buffer.byteLength,
      } satisfies ParseReply,
    );
  }
};
