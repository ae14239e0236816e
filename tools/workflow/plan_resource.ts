/**
 * toolhost://plan: the plan being written in plan mode, as markdown, for a client to show or
 * attach. Reading it changes nothing (no state directory is created for it), and neither does
 * watching it.
 */
import { defineResource, type WatchContext } from "../../mcp/features/mod.ts";
import { MAX_PLAN_CHARS, readPlan } from "./_lib/plan_file.ts";
import { cachedPlanState, planStatePath } from "./_lib/plan_state.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { projectStatePath } from "../_lib/state.ts";
import { bytes, count } from "../_lib/text/units.ts";
import {
  serially,
  type StartedWatch,
  startWatch,
  watchFile,
  type WatchGroup,
} from "../_lib/watch/watch_files.ts";

export default defineResource({
  uri: "toolhost://plan",
  name: "plan",
  title: "Plan",
  description: "The plan written in plan mode for this project (markdown); says so when plan " +
    "mode is off.",
  mimeType: "text/markdown",
  requires: "plan_mode",
  async read(ctx) {
    const sandbox = await Sandbox.of(ctx);
    const state = await cachedPlanState(
      planStatePath(projectStatePath(ctx.state.dir, sandbox.base), ctx.session),
    );
    if (!state.active) {
      return "_Plan mode is off: no plan is being written. The plan_mode tool starts one._\n";
    }
    const shown = sandbox.display(state.planFile);
    const plan = await readPlan(state.planFile, shown, sandbox);
    if (!plan.cut) return plan.text;
    return `${plan.text}\n\n_[cut at ${count(MAX_PLAN_CHARS)} characters of ${
      bytes(plan.bytes)
    }; the whole plan is in ${shown}]_\n`;
  },
  watch: watchPlan,
});

/**
 * The plan changes when plan.json does (plan mode entered, exited or reset, by any server on
 * the project: all of them share the project's state directory) and, while plan mode is on,
 * when the plan file named in it is written (by plan_mode, or by a person in an editor).
 */
function watchPlan(ctx: WatchContext, changed: () => void): StartedWatch {
  return startWatch(ctx, "toolhost://plan", async (group) => {
    const projectDir = projectStatePath(ctx.state.dir, (await Sandbox.of(ctx)).base);
    const stateFile = planStatePath(projectDir, ctx.session);
    const follow = followPlanFile(group, stateFile, changed);
    group.add(watchFile(stateFile, () => {
      changed();
      void follow();
    }));
    await follow();
  });
}

/**
 * Keeps one watch on the plan file plan.json names now: entering plan mode again may name
 * another one, and while plan mode is off there is none to watch.
 */
function followPlanFile(group: WatchGroup, stateFile: string, changed: () => void) {
  let watched: { file: string; stop: () => void } | undefined;
  return serially(async () => {
    // An unreadable plan.json names no file; read() says what is wrong with it.
    const state = await cachedPlanState(stateFile).catch(() => undefined);
    const file = state?.active ? state.planFile : undefined;
    if (file === watched?.file) return;
    watched?.stop();
    watched = file === undefined ? undefined : { file, stop: group.add(watchFile(file, changed)) };
  }, () => {});
}
