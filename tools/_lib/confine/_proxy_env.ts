/**
 * The environment that sends a confined process's traffic through the session's proxy: the
 * variables each common tool reads, set to `http://TOKEN@127.0.0.1:PORT`, in place of the user's
 * own (their proxy is chained by toolhost's proxy; a process that went to it directly would find
 * no route). What reads what:
 *
 * - curl, git, wget, libcurl: http_proxy (lower case only), HTTPS_PROXY/https_proxy,
 *   ALL_PROXY/all_proxy, NO_PROXY/no_proxy. git also reads `http.proxy`, which a user's
 *   ~/.gitconfig may set: given again through GIT_CONFIG_COUNT/KEY_n/VALUE_n, which wins.
 * - Python (pip, requests, urllib), Go, Deno, Bun, Ruby: the upper- and lower-case variables.
 *   pip's own `proxy` option (pip.conf) wins over them: PIP_PROXY sets it.
 * - npm, pnpm, yarn 1: npm_config_proxy, npm_config_https_proxy, npm_config_noproxy (which win
 *   over .npmrc); yarn 2+: YARN_HTTP_PROXY, YARN_HTTPS_PROXY.
 * - cargo: CARGO_HTTP_PROXY (wins over ~/.cargo/config.toml's http.proxy).
 * - Node's fetch and http: only with NODE_USE_ENV_PROXY=1 (Node 24 and later).
 * - Java (Maven, Gradle) reads none of these: its proxy is set by system properties, and it does
 *   not send credentials to a proxy for https by default, so it is not served.
 */

/** The loopback names of the namespace itself, which stay off the proxy. */
export const NAMESPACE_LOOPBACK = "localhost,127.0.0.1,::1";

/**
 * `base` with the proxy variables set to `proxyUrl` and NO_PROXY to `noProxy`, and the user's own
 * NO_PROXY gone (it would send hosts around the proxy, where there is no route).
 */
export function withProxyEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  proxyUrl: string,
  noProxy: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined) env[name] = value;
  }
  for (const name of ["http_proxy", "https_proxy", "all_proxy"]) {
    env[name] = proxyUrl;
    env[name.toUpperCase()] = proxyUrl;
  }
  env.no_proxy = env.NO_PROXY = noProxy;
  env.npm_config_proxy = env.npm_config_https_proxy = proxyUrl;
  env.npm_config_noproxy = noProxy;
  env.YARN_HTTP_PROXY = env.YARN_HTTPS_PROXY = proxyUrl;
  env.PIP_PROXY = proxyUrl;
  env.CARGO_HTTP_PROXY = proxyUrl;
  env.NODE_USE_ENV_PROXY = "1";
  // Appended to what the base already gives git, so its own entries keep working.
  const count = Number(env.GIT_CONFIG_COUNT);
  const at = Number.isInteger(count) && count >= 0 ? count : 0;
  env[`GIT_CONFIG_KEY_${at}`] = "http.proxy";
  env[`GIT_CONFIG_VALUE_${at}`] = proxyUrl;
  env.GIT_CONFIG_COUNT = String(at + 1);
  return env;
}
