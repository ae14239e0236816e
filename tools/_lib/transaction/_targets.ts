/**
 * A call's sandbox and the real paths of what it writes, each resolved once for the whole call
 * and carried on `ctx.writes`: plan mode's gate, the check against another's change, the journal,
 * the diagnostics and the tool itself all act on the same real path, never on a second lookup
 * that a rename meanwhile could answer differently.
 *
 * One rule resolves a declared path: a write of the entry itself (`link`: a move, a copy's
 * destination, a delete) acts on the link when the path names one; a write of content
 * (`replaces`, `changes`) goes where links lead, a link to a file not made yet included (each hop
 * checked by the sandbox); anything else acts on the real path.
 */
import { readlink } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Handoff, type PlannedWrite, type ToolContext, ToolError } from "../../../mcp/tool/mod.ts";
import { resolveEntry, Sandbox } from "../sandbox/mod.ts";
import type { Version } from "./_version.ts";

/** Symlinks followed at most when the target of a link does not exist yet. */
const MAX_LINK_HOPS = 8;

/** A path one call writes, resolved. */
export interface WriteTarget {
  readonly write: PlannedWrite;
  /** The real path the write acts on (see the rule above). */
  readonly real: string;
}

/** One write's resolution: its target, or why it has none (outside the roots, say). */
type Resolution = { target: WriteTarget } | { error: unknown };

const SANDBOX = new Handoff<Promise<Sandbox>>("the call's sandbox");
const RESOLVED = new Handoff<Map<PlannedWrite, Promise<Resolution>>>(
  "the call's writes, each resolved once",
);
/** Paths named at run time by the transaction, which resolved them first: path -> real path. */
const NAMED = new Handoff<Map<string, string>>("paths named at run time, resolved");

/**
 * Remembers that the transaction resolved `path` (named at run time, absolute) to `real`, so the
 * hooks that hear of it need not resolve it again.
 */
export function resolvedAlready(ctx: ToolContext, path: string, real: string): void {
  ctx.writes.memo(NAMED, () => new Map<string, string>()).set(path, real);
}

/** The sandbox of the call: its roots established once for the call, whoever asks first. */
export function callSandbox(ctx: ToolContext): Promise<Sandbox> {
  return ctx.writes.memo(SANDBOX, () => Sandbox.of(ctx));
}

/**
 * What the session check found unchanged, by real path: the version a write there is checked
 * against just before its rename (Transaction), so a change made after the check is not lost.
 */
const VOUCHED = new Handoff<Map<string, Version>>("the files the session check found unchanged");

/** The session check found `real` unchanged since the session saw it, as `version`. */
export function vouch(ctx: ToolContext, real: string, version: Version): void {
  ctx.writes.memo(VOUCHED, () => new Map<string, Version>()).set(real, version);
}

/** The version the session check vouched for at `real`, if it did. */
export function vouchedVersion(ctx: ToolContext, real: string): Version | undefined {
  return ctx.writes.memo(VOUCHED, () => new Map<string, Version>()).get(real);
}

/** Where `write` acts, by the rule above; a ToolError when it lies outside the roots. */
export async function resolveWrite(
  sandbox: Sandbox,
  write: Pick<PlannedWrite, "path" | "kind" | "link">,
): Promise<string> {
  let at = await resolveEntry(sandbox, write.path);
  if (write.link) return at.entry;
  if (write.kind !== "replaces" && write.kind !== "changes") return at.real;
  for (let hops = 0; at.link && !at.exists; hops++) {
    if (hops === MAX_LINK_HOPS) {
      throw new ToolError(
        `${write.path} leads through more than ${MAX_LINK_HOPS} symlinks; write to the final ` +
          "path instead.",
      );
    }
    at = await resolveEntry(sandbox, resolve(dirname(at.entry), await readlink(at.entry)));
  }
  return at.real;
}

/** `write`'s resolution, made once for the call (whoever asks first). */
export function resolution(ctx: ToolContext, write: PlannedWrite): Promise<Resolution> {
  const all = ctx.writes.memo(RESOLVED, () => new Map<PlannedWrite, Promise<Resolution>>());
  let found = all.get(write);
  const named = write.arg === undefined
    ? ctx.writes.memo(NAMED, () => new Map<string, string>()).get(write.path)
    : undefined;
  if (!found && named !== undefined) {
    found = Promise.resolve({ target: { write, real: named } });
    all.set(write, found);
  }
  if (!found) {
    found = callSandbox(ctx)
      .then((sandbox) => resolveWrite(sandbox, write))
      .then((real): Resolution => ({ target: { write, real } }), (error) => ({ error }));
    all.set(write, found);
  }
  return found;
}

/**
 * The targets of `writes` (the call's declared ones unless given; those named at run time once
 * named) that resolve, in order: what the hooks act on. One that does not resolve is left out
 * here; the tool meets its refusal when it asks for it (Transaction.target).
 */
export async function writeTargets(
  ctx: ToolContext,
  writes: readonly PlannedWrite[] = ctx.writes.planned,
): Promise<WriteTarget[]> {
  const found: WriteTarget[] = [];
  for (const write of writes) {
    const resolved = await resolution(ctx, write);
    if ("target" in resolved) found.push(resolved.target);
  }
  return found;
}

/** Every target the call writes so far: declared, and named at run time. */
export function allWriteTargets(ctx: ToolContext): Promise<WriteTarget[]> {
  return writeTargets(ctx, [...ctx.writes.planned, ...ctx.writes.named]);
}
