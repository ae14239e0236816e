/** The tool hooks of every module, run as one: before-hooks in order, after-hooks all. */
import type { ToolHooks } from "./tool.ts";

type Before = NonNullable<ToolHooks["before"]>;

export function combineHooks(hooks: readonly ToolHooks[]): ToolHooks {
  const before = hooks.flatMap((hook) => hook.before ? [hook.before.bind(hook)] : []);
  const after = hooks.flatMap((hook) => hook.after ? [hook.after.bind(hook)] : []);
  const finished = hooks.flatMap((hook) => hook.finished ? [hook.finished.bind(hook)] : []);
  return {
    before: (tool, ctx, args) => runBefore(before, 0, tool, ctx, args),
    after(result, ctx) {
      for (const hook of after) hook(result, ctx);
    },
    finished: finished.length === 0 ? undefined : (call) => runFinished(finished, 0, call),
  };
}

/**
 * The before-hooks in order, each after the last has decided. Hooks that decide at once return
 * nothing, so the common call awaits nothing at all.
 */
function runBefore(
  hooks: Before[],
  start: number,
  tool: Parameters<Before>[0],
  ctx: Parameters<Before>[1],
  args: Parameters<Before>[2],
): void | Promise<void> {
  for (let i = start; i < hooks.length; i++) {
    const waiting = hooks[i](tool, ctx, args);
    if (waiting) return waiting.then(() => runBefore(hooks, i + 1, tool, ctx, args));
  }
}

type Finished = NonNullable<ToolHooks["finished"]>;

/** The finished-hooks in order; like runBefore, awaiting only the hooks that return a promise. */
function runFinished(
  hooks: Finished[],
  start: number,
  call: Parameters<Finished>[0],
): void | Promise<void> {
  for (let i = start; i < hooks.length; i++) {
    const waiting = hooks[i](call);
    if (waiting) return waiting.then(() => runFinished(hooks, i + 1, call));
  }
}
