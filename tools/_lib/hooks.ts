/**
 * The hooks every tool call passes through, gathered here so a tool module can add its own by
 * importing this (plan mode refuses destructive tools; fired callbacks ride on the next result)
 * and main.ts hands the lot to the server once.
 */
import type { LogLevel } from "../../mcp/log.ts";
import type { ToolHooks } from "../../mcp/tool.ts";

const before: NonNullable<ToolHooks["before"]>[] = [];
const after: NonNullable<ToolHooks["after"]>[] = [];
let log: (level: LogLevel, logger: string, data: unknown) => void = () => {};

export const toolHooks: ToolHooks = {
  before(tool, ctx, args) {
    // Hooks that decide at once return nothing: only the ones that must wait are awaited.
    const waiting = before.map((hook) => hook(tool, ctx, args)).filter((p) => p !== undefined);
    if (waiting.length > 0) return Promise.all(waiting).then(() => {});
  },
  after(result) {
    for (const hook of after) hook(result);
  },
};

/** Runs before every tool call; a ToolError it throws refuses the call. */
export function beforeEveryTool(hook: NonNullable<ToolHooks["before"]>): void {
  before.push(hook);
}

/** Runs on every tool result; may append content. */
export function afterEveryTool(hook: NonNullable<ToolHooks["after"]>): void {
  after.push(hook);
}

/** Where something logged outside any call goes (the server's log); set by main.ts. */
export function setProgramLog(sink: typeof log): void {
  log = sink;
}

/** Logs outside any call: to stderr, and to clients that asked for log messages. */
export function programLog(level: LogLevel, logger: string, data: unknown): void {
  log(level, logger, data);
}
