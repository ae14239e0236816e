/**
 * The configuration's secret values (API keys, a proxy's credentials), for whatever must not
 * repeat them: the journal masks them in the arguments it records. config/ knows which settings
 * are secret; tools ask here rather than read its table of settings.
 */
import { LEAVES } from "./keys.ts";
import type { Settings } from "./settings.ts";

/** Values shorter than this are not masked: they would mask ordinary text. */
const SHORTEST_SECRET = 4;

/** A configuration's secrets, worked out once (a configuration is not changed in place). */
const secretsByConfig = new WeakMap<object, string[]>();

/** The secret values set in `config`, and a proxy URL's password alone, as it may appear elsewhere. */
export function secretValues(config: Readonly<Settings>): string[] {
  let secrets = secretsByConfig.get(config);
  if (secrets) return secrets;
  secrets = [];
  for (const leaf of LEAVES) {
    if (!leaf.secret) continue;
    const value = leaf.get(config as Settings);
    if (typeof value !== "string" || value.length < SHORTEST_SECRET) continue;
    secrets.push(value);
    const password = URL.canParse(value) ? decodeURIComponent(new URL(value).password) : "";
    if (password.length >= SHORTEST_SECRET) secrets.push(password);
  }
  secretsByConfig.set(config, secrets);
  return secrets;
}

/** The environment variables that may carry a secret setting (TOOLHOST_PROXY, BRAVE_API_KEY…). */
export function secretVariables(): string[] {
  return LEAVES.filter((leaf) => leaf.secret).flatMap((leaf) => leaf.env);
}
