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
    return runBefore(0, tool, ctx, args);
  },
  after(result) {
    for (const hook of after) hook(result);
  },
};

/**
 * The before-hooks in order, each after the last has decided. Hooks that decide at once return
 * nothing, so the common call awaits nothing at all.
 */
function runBefore(
  start: number,
  ...call: Parameters<NonNullable<ToolHooks["before"]>>
): void | Promise<void> {
  for (let i = start; i < before.length; i++) {
    const waiting = before[i](...call);
    if (waiting) return waiting.then(() => runBefore(i + 1, ...call));
  }
}

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
