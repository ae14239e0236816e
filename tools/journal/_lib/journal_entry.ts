/**
 * What one journal line holds: the call, and what undo needs of each path it changed. Apart from
 * journal.ts so the reader (journal_scan.ts) and the writer share the types without a circle.
 */
import type { TraceContext } from "../../../mcp/wire/mod.ts";

/** What undo needs of one path: its state before the call and after it. */
export type PathState =
  | { kind: "absent" }
  | { kind: "file"; sha: string; mode: number; size: number }
  | { kind: "dir" }
  | { kind: "link"; target: string }
  | TreeState;

/**
 * A directory with what it holds, described by a manifest kept as a blob (tree_manifest.ts). With
 * `content`, every file's content is kept too (a deleted tree, restorable); without, the
 * manifest holds each entry's identity and times instead (a moved or copied tree: enough to
 * tell whether it is still as toolhost left it, not to recreate it).
 */
export interface TreeState {
  kind: "tree";
  content: boolean;
  /** SHA-256 of the manifest blob. */
  manifest: string;
  /** Entries below the top. */
  entries: number;
  /** Bytes of its files. */
  bytes: number;
  /**
   * A content manifest: the digest its shape had when it was kept (not kept itself), to tell
   * whether a call that was to delete the tree left it untouched.
   */
  shape?: string;
}

export interface Change {
  /** The real path. */
  path: string;
  before: PathState;
  after: PathState;
  /** A directory moved here from this path: undo moves it back (by a rename). */
  from?: string;
}

export interface Entry {
  id: string;
  /** The session that made the call (session.ts); none in older lines. */
  session?: string;
  /** The tag of the OAuth subject whose session it was (tools/_lib/owner.ts); none without. */
  owner?: string;
  /** ISO time the call ended. */
  time: string;
  era: string;
  tool: string;
  args: Record<string, unknown>;
  outcome: "ok" | "error" | "cancelled";
  ms: number;
  /** Files the call changed, as shown to the model. */
  files?: string[];
  /** What undo restores, in the order the call changed them. */
  changes?: Change[];
  /** Why this call cannot be undone, when it changed files but kept too little. */
  noUndo?: string;
  /** An undo call: the entries it reversed. */
  undid?: string[];
  /** The trace the client named for the call (traceparent, tracestate, baggage; bounded). */
  trace?: TraceContext;
  /** A note of the writer (tool "journal"): entries dropped when its queue overflowed. */
  dropped?: number;
}
