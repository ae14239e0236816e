// Background processes with their live output and a Stop button.
// Every tick reads the list (toolhost://processes) and the running ones' output: both are
// resources/read, which toolhost does not journal, so an open page leaves history alone.
async function pollProcesses(run = ++state.pollRun) {
  state.polling = undefined;
  const list = $("#processes");
  let processes;
  try {
    const result = await request("resources/read", { uri: "toolhost://processes" });
    const text = (result.contents || []).map((c) => c.text || "").join("");
    processes = JSON.parse(text).processes || [];
  } catch (error) {
    list.replaceChildren(
      el("p", { class: "note", text: `Background processes cannot be shown: ${error.message}` }),
    );
    return;
  }
  if (processes.length === 0) {
    list.replaceChildren(el("p", { class: "empty", text: "None started (bash_background)." }));
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
      "aria-label": `Output of ${proc.id}`,
    });
    const stop = el("button", { type: "button", "data-action": "stop", text: "Stop" });
    const status = el("p", { class: "meta" });
    const node = el(
      "article",
      { class: "process", "data-process-id": proc.id },
      el("h3", { text: `${proc.id}: ${proc.command.slice(0, 200)}` }),
      status,
      output,
      stop,
    );
    stop.addEventListener("click", () => stopProcess(proc.id, stop));
    entry = { node, output, stop, status, done: false };
    state.procs.set(proc.id, entry);
  }
  if (!entry.node.isConnected) list.append(entry.node);
  const exit = proc.status === "running"
    ? ""
    : proc.exitCode !== null
    ? ` (exit ${proc.exitCode})`
    : proc.signal
    ? ` (${proc.signal})`
    : "";
  entry.status.textContent = `${proc.status}${exit} · ${
    Math.round(proc.runtimeMs / 1000)
  } s · ${proc.outputBytes} bytes of output`;
  entry.stop.disabled = proc.status !== "running";
  if (!entry.done) await readOutput(proc.id, entry, proc.status !== "running");
}

async function readOutput(id, entry, finished) {
  try {
    const result = await request("resources/read", {
      uri: `toolhost://processes/${id}/output`,
    });
    const text = (result.contents || []).map((c) => c.text || "").join("");
    const atEnd =
      entry.output.scrollTop + entry.output.clientHeight >= entry.output.scrollHeight - 4;
    if (entry.output.textContent !== text) entry.output.textContent = text;
    if (atEnd) entry.output.scrollTop = entry.output.scrollHeight;
    entry.done = finished;
  } catch (error) {
    entry.output.textContent = `(output cannot be read: ${error.message})`;
  }
}

async function stopProcess(id, button) {
  button.disabled = true;
  try {
    const result = await callTool("bash_kill", { id });
    say(textOf(result) || `Stopped ${id}.`, result.isError);
  } catch (error) {
    say(`bash_kill was not run: ${error.message}`, true);
  }
  stopPolling();
  pollProcesses();
}

function stopPolling() {
  clearTimeout(state.polling);
  state.polling = undefined;
}
