/**
 * What one file may cost the parse worker. Real code stays far inside these: a 1 MiB file of
 * real JavaScript, C or Python parses to at most about 350,000 nodes within the runtime's first
 * 32 MB. A few kilobytes of hostile text (`!!!…x`, `x?1:x?1:…`, `-----…1`, `var a,a,…,b;`) ask
 * for far more: 1 MiB of them took tree-sitter 165–412 MB and 1.3–2.1 million nodes.
 */

/** The runtime's memory at start: what its wasm declares, and all real files need. */
export const INITIAL_MEMORY_BYTES = 32 * 1024 * 1024;

/**
 * A parse whose memory grows past this is stopped and the file reported too complex: its first
 * 32 MB, which real files fit in. The runtime grows its memory by a fifth at a time and the check
 * runs every hundred or so steps of the parser, so the memory ends at most one growth past it
 * (about 38 MB).
 */
export const PARSE_MEMORY_BYTES = INITIAL_MEMORY_BYTES;

/**
 * Files larger than this are parsed one at a time (in whichever worker is free), so that at most
 * one worker's runtime holds a large tree: hostile text takes up to 400 bytes per character, so
 * a smaller file cannot fill the first 32 MB.
 */
export const HEAVY_FILE_CHARS = 64 * 1024;

/**
 * The runtime's memory can never grow past this, whatever runs in it (a safety net under the
 * check above: reaching it aborts the worker, which is then replaced).
 */
export const MAX_MEMORY_BYTES = 128 * 1024 * 1024;

/**
 * A worker whose memory grew past its start is ended once it has answered: a WebAssembly memory
 * never shrinks, and a fresh worker starts small.
 */
export const RETIRE_MEMORY_BYTES = INITIAL_MEMORY_BYTES;

/** A tree with more nodes than this is not walked (the outline and the identifiers). */
export const MAX_TREE_NODES = 600_000;

/** At most this many distinct identifiers of one file are counted for the map's ranking. */
export const MAX_WORDS_PER_FILE = 5_000;

/** Why a file is skipped when it passes these bounds. */
export function tooComplex(why: string): string {
  return `skipped: too complex (${why})`;
}
