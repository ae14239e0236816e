/** The proxy flags of a rendering Chromium, from the user's proxy rules. */
import { isIP } from "node:net";
import { isUsable, type ProxyRules } from "../../../_lib/net/user_proxy.ts";

/**
 * The proxy flags for a rendering Chromium, matching what the downloads do: the same proxies,
 * NO_PROXY as a bypass list, and loopback not bypassed unless NO_PROXY says so. A proxy that
 * needs credentials (Chromium would ask for them interactively) or cannot be used is a refusal.
 */
export function chromiumProxyArguments(rules: ProxyRules): string[] | { refusal: string } {
  const { http, https, noProxy } = rules;
  if ((!http && !https) || noProxy.some((entry) => entry.host === "*")) {
    return ["--no-proxy-server"];
  }
  const parts: string[] = [];
  for (const [scheme, proxy] of [["http", http], ["https", https]] as const) {
    if (!proxy) continue;
    if (!isUsable(proxy)) return proxy;
    if (proxy.authorization) {
      return {
        refusal: `render: true cannot use a proxy that needs credentials (${proxy.from}); ` +
          "fetch the page without render.",
      };
    }
    parts.push(`${scheme}=${proxy.url.protocol}//${proxy.url.host}`);
  }
  const bypass = noProxy.flatMap(({ host, port, cidr }) => {
    const shown = isIP(host) === 6 ? `[${host}]` : host;
    const suffix = port ? `:${port}` : "";
    if (cidr) return [`${host}/${32 - Math.log2(cidr.size)}`];
    return isIP(host) ? [`${shown}${suffix}`] : [`${host}${suffix}`, `*.${host}${suffix}`];
  });
  return [
    `--proxy-server=${parts.join(";")}`,
    `--proxy-bypass-list=${[...bypass, "<-loopback>"].join(";")}`,
  ];
}
