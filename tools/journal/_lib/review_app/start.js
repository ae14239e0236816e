// Wiring the controls, then the first list: inside a host after ui/initialize.
function wire() {
  let typing;
  $("[name=filter-tool]").addEventListener("change", () => refresh());
  $("[name=filter-all]").addEventListener("change", () => refresh());
  $("[name=filter-path]").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => refresh(), 300);
  });
  $("[data-action=refresh]").addEventListener("click", () => {
    refresh();
    stopPolling();
    if (!$("#processes-section").hidden) pollProcesses();
  });
  $("[data-action=more]").addEventListener("click", () => refresh(true));
  $("[data-action=view]").addEventListener("click", (event) => toggleView(event.currentTarget));
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) return;
    follow();
    if (!state.polling && !$("#processes-section").hidden) pollProcesses();
  });
}

async function start() {
  wire();
  if (
    !document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches
  ) {
    document.documentElement.dataset.theme = "dark";
  }
  if (framed) {
    try {
      const result = await hostRequest("ui/initialize", {
        appInfo: { name: "toolhost-review", version: "1.0.0" },
        appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] },
        protocolVersion: "2026-01-26",
      });
      useHostContext((result && result.hostContext) || {});
      post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
      let sent = "";
      new ResizeObserver(() => {
        // The root's own box, not scrollHeight: that never falls below the frame the host
        // already gave, so a shorter list would keep the old height with a blank below.
        const size = {
          width: document.documentElement.scrollWidth,
          height: Math.ceil(document.documentElement.getBoundingClientRect().height),
        };
        if (JSON.stringify(size) === sent) return;
        sent = JSON.stringify(size);
        post({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: size });
      }).observe(document.documentElement);
    } catch {
      // Framed by a page that is no MCP Apps host: talk to toolhost directly.
      framed = false;
    }
  }
  if (!framed) {
    takeTokenFromAddress();
    await finishSignIn().catch((error) => say(`Not signed in: ${error.message}`, true));
  }
  await refresh();
  startFollowing();
  if (await processesOffered()) pollProcesses();
  else $("#processes-section").hidden = true;
}

start();
