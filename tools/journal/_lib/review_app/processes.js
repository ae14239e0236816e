// deno-lint-ignore-file no-unused-vars
// Background processes with their live output, and Stop while one runs.
// Every tick reads the list (toolhost://processes) and the running ones' output: both are
// resources/read, which toolhost does not journal, so an open page leaves history alone. Where
// toolhost starts no background processes (a client profile, `toolhost review`) the list is no
// resource at all, and the section goes away.
const HUMAN_UNITS = ["bytes", "KB", "MB", "GB"];

function humanSize(bytes) {
  let n = bytes;
  let unit = 0;
  while (n >= 1000 && unit < HUMAN_UNITS.length - 1) {
    n /= 1000;
    unit++;
  }
  return `${unit === 0 || n >= 10 ? Math.round(n) : n.toFixed(1)} ${HUMAN_UNITS[unit]}`;
}

/** Whether toolhost starts background processes here: their output's template is listed. */
async function processesOffered() {
  try {
    const result = await request("resources/templates/list", {});
    return (result.resourceTemplates || []).some((t) =>
      t.uriTemplate.startsWith("toolhost://processes/")
    );
  } catch {
    return true;
  }
}

async function pollProcesses(run = ++state.pollRun) {
  state.polling = undefined;
  const list = $("#processes");
  let processes;
  try {
    const result = await request("resources/read", { uri: "toolhost://processes" });
    const text = (result.contents || []).map((c) => c.text || "").join("");
    processes = JSON.parse(text).processes || [];
  } catch (error) {
    if (/not found|unknown resource/i.test(error.message)) {
      $("#processes-section").hidden = true;
      return;
    }
    list.replaceChildren(
      el("p", { class: "note", text: `Background processes cannot be shown: ${error.message}` }),
    );
    return;
  }
  if (processes.length === 0) {
    list.replaceChildren(el("p", { class: "empty", text: "None started." }));
  } else if (list.querySelector(".empty, .note")) list.replaceChildren();
  let running = false;
  for (const proc of processes) {
    running ||= proc.status === "running";
    await showProcess(proc, list);
  }
  // A newer round (Refresh, Stop) took over while this one waited.
  if (running && !document.hidden && run === state.pollRun) {
    state.polling = setTimeout(() => pollProcesses(run), POLL_MS);
  }
}

async function showProcess(proc, list) {
  let entry = state.procs.get(proc.id);
  if (!entry) {
    const output = el("pre", {
      class: "output",
      tabindex: 0,
      "aria-label": `Output of ${proc.name || proc.id}`,
    });
    const stop = el("button", { type: "button", "data-action": "stop", text: "Stop" });
    const status = el("p", { class: "meta" });
    const said = el("span", { class: "said", role: "status" });
    const node = el(
      "article",
      { class: "process", "data-process-id": proc.id },
      el("h3", { text: proc.name || proc.command.slice(0, 200) }),
      proc.name ? el("p", { class: "meta", text: proc.command.slice(0, 200) }) : undefined,
      status,
      output,
      el("div", { class: "acts" }, stop, said),
    );
    stop.addEventListener("click", () => stopProcess(proc.id, stop, said));
    entry = { node, output, stop, status, done: false };
    state.procs.set(proc.id, entry);
  }
  if (!entry.node.isConnected) list.append(entry.node);
  const ended = proc.status === "running"
    ? ""
    : proc.exitCode !== null
    ? ` (exit ${proc.exitCode})`
    : proc.signal
    ? ` (${proc.signal})`
    : "";
  entry.status.textContent = `${proc.id} · ${proc.status}${ended} · ${
    Math.round(proc.runtimeMs / 1000)
  } s · ${humanSize(proc.outputBytes)} of output`;
  // Nothing to stop once it ended.
  entry.stop.hidden = proc.status !== "running";
  if (!entry.done) await readOutput(proc.id, entry, proc.status !== "running");
}

async function readOutput(id, entry, finished) {
  try {
    const result = await request("resources/read", {
      uri: `toolhost://processes/${id}/output`,
    });
    let text = (result.contents || []).map((c) => c.text || "").join("");
    // The first line of a long output tells a model how to read the rest; a person sees the
    // latest part, which is what this says.
    const cut = /^\[[^\n]*· the last ([\d,]+) of ([\d,]+) characters;[^\n]*\]\n/.exec(text);
    if (cut) text = `(the last ${cut[1]} of ${cut[2]} characters)\n${text.slice(cut[0].length)}`;
    const atEnd =
      entry.output.scrollTop + entry.output.clientHeight >= entry.output.scrollHeight - 4;
    if (entry.output.textContent !== text) entry.output.textContent = text;
    if (atEnd) entry.output.scrollTop = entry.output.scrollHeight;
    entry.done = finished;
  } catch (error) {
    entry.output.textContent = `(output cannot be read: ${error.message})`;
  }
}

async function stopProcess(id, button, said) {
  button.disabled = true;
  let result;
  try {
    result = await callTool("bash_kill", { id });
  } catch (error) {
    result = { isError: true, content: [{ type: "text", text: `not stopped: ${error.message}` }] };
  }
  said.textContent = textOf(result) || `Stopped ${id}.`;
  said.classList.toggle("error", Boolean(result.isError));
  button.disabled = false;
  stopPolling();
  pollProcesses();
}

function stopPolling() {
  clearTimeout(state.polling);
  state.polling = undefined;
}
