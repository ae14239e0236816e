/**
 * The tool hooks of every module, run as one, phase by phase (HookPhase: gate, check, keep,
 * observe): each hook declares its phase, and hooks of one phase run in the order of their names.
 * Nothing depends on which file a hook comes from, so renaming a folder reorders nothing.
 */
import { HOOK_PHASES, type ToolHook, type ToolHooks } from "./tool.ts";

type Before = NonNullable<ToolHooks["before"]>;

/**
 * The hooks in the order they run: by phase, then by name.
 *
 * @example
 * ```ts
 * ordered([journal, planGate, diagnostics]).map((hook) => hook.name);
 * // ["plan_gate", "journal", "code_diagnostics"]: gate, keep, observe
 * ```
 */
export function ordered(hooks: readonly ToolHook[]): ToolHook[] {
  const rank = (hook: ToolHook) => HOOK_PHASES.indexOf(hook.phase);
  for (const hook of hooks) {
    if (rank(hook) < 0) {
      throw new Error(`tool hook ${hook.name} has no phase (${HOOK_PHASES.join(", ")})`);
    }
  }
  return [...hooks].sort((a, b) =>
    rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

export function combineHooks(hooks: readonly ToolHook[]): ToolHooks {
  const inOrder = ordered(hooks);
  const before = inOrder.flatMap((hook) => hook.before ? [hook.before.bind(hook)] : []);
  const after = inOrder.flatMap((hook) => hook.after ? [hook.after.bind(hook)] : []);
  const finished = inOrder.flatMap((hook) => hook.finished ? [hook.finished.bind(hook)] : []);
  return {
    before: (tool, ctx, args) => runBefore(before, 0, tool, ctx, args),
    after(result, ctx) {
      for (const hook of after) hook(result, ctx);
    },
    finished: finished.length === 0 ? undefined : (call) => runFinished(finished, 0, call),
  };
}

/**
 * The before-hooks in order, each after the last has decided: one that refuses (throws) stops
 * the call there, so no later phase starts. Hooks that decide at once return nothing, so the
 * common call awaits nothing at all.
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
