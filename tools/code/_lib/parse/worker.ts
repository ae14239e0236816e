/**
 * The parse worker (parse_pool.ts starts it): tree-sitter's runtime and each grammar are loaded
 * on the first file that needs them and kept for the worker's life. A parse that runs past its
 * deadline is abandoned by tree-sitter itself (the progress callback), so the worker answers.
 */
import "../../../_lib/workers/worker_console.ts";
import { Language, Parser } from "web-tree-sitter";
import { grammarBytes } from "./grammar_bytes.ts";
import { GRAMMARS, type LanguageId, RUNTIME } from "../languages/mod.ts";
import { extractSymbols } from "./extract.ts";
import { syntaxErrors } from "./syntax_errors.ts";
import { identifiersIn } from "./identifiers.ts";
import { MAX_NESTING, nestingDepth } from "./nesting.ts";
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
}

export type ParseReply = { id: number; outcomes: ParseOutcome[] } | { id: number; error: string };

/** The part of a worker's global scope used here (Deno type-checks with the window's lib). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ParseRequest>) => void) | null;
  postMessage(message: ParseReply): void;
}

const scope = globalThis as unknown as WorkerScope;

let ready: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();
let parser: Parser | undefined;

function language(lang: LanguageId): Promise<Language> {
  let loaded = languages.get(lang);
  if (!loaded) {
    ready ??= grammarBytes(RUNTIME).then((wasmBinary) => Parser.init({ wasmBinary }));
    loaded = ready.then(async () => Language.load(await grammarBytes(GRAMMARS[lang])));
    // A failure is not kept: the next file tries again.
    loaded.catch(() => languages.delete(lang));
    languages.set(lang, loaded);
  }
  return loaded;
}

async function parseOne(job: ParseJob, fileMs: number): Promise<ParseOutcome> {
  if (job.text.includes("\0")) return { failed: "it holds NUL bytes (binary data)" };
  if (nestingDepth(job.text) > MAX_NESTING) {
    return { failed: `its brackets nest more than ${MAX_NESTING} levels deep` };
  }
  const grammar = await language(job.lang);
  parser ??= new Parser();
  parser.setLanguage(grammar);
  const deadline = performance.now() + fileMs;
  const tree = parser.parse(job.text, null, {
    // Returning true stops the parse (the typings say void).
    progressCallback: (() => performance.now() > deadline) as () => void,
  });
  if (!tree) {
    parser.reset();
    return { failed: `parsing took longer than ${fileMs / 1000} s` };
  }
  try {
    const errors = syntaxErrors(tree.rootNode);
    const symbols = job.symbols ? extractSymbols(tree, job.lang, job.text) : [];
    const parsed: ParsedFile = { symbols, ...errors };
    if (job.identifiers) parsed.identifiers = identifiersIn(tree, job.text);
    return parsed;
  } finally {
    tree.delete();
  }
}

scope.onmessage = async ({ data }: MessageEvent<ParseRequest>) => {
  try {
    const outcomes: ParseOutcome[] = [];
    for (const job of data.files) {
      outcomes.push(
        await parseOne(job, data.fileMs).catch((error) => ({ failed: (error as Error).message })),
      );
    }
    scope.postMessage({ id: data.id, outcomes } satisfies ParseReply);
  } catch (error) {
    scope.postMessage({ id: data.id, error: (error as Error).message } satisfies ParseReply);
  }
};
