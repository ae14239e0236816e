/**
 * toolhost://plan: the plan being written in plan mode, as markdown, for a client to show or
 * attach. Reading it changes nothing (no state directory is created for it).
 */
import { defineResource } from "../mcp/resource.ts";
import { MAX_PLAN_CHARS, readPlan } from "./_lib/plan_file.ts";
import { cachedPlanState, planStatePath } from "./_lib/plan_state.ts";
import { Sandbox } from "./_lib/sandbox.ts";
import { projectStatePath } from "./_lib/state.ts";
import { bytes, count } from "./_lib/units.ts";

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
    const state = await cachedPlanState(planStatePath(projectStatePath(sandbox.base)));
    if (!state.active) {
      return "_Plan mode is off: no plan is being written. The plan_mode tool starts one._\n";
    }
    const shown = sandbox.display(state.planFile);
    const plan = await readPlan(state.planFile, shown);
    if (!plan.cut) return plan.text;
    return `${plan.text}\n\n_[cut at ${count(MAX_PLAN_CHARS)} characters of ${
      bytes(plan.bytes)
    }; the whole plan is in ${shown}]_\n`;
  },
});
