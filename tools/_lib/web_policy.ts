/**
 * What the program allows web tools to reach, set once by main.ts from its flags. Kept apart from
 * the tools so a test or a future config file can open the guard without touching them.
 */
export interface WebPolicy {
  /** Loopback, private, link-local and cloud-metadata addresses may be fetched. */
  allowPrivateNetwork: boolean;
}

export const webPolicy: WebPolicy = { allowPrivateNetwork: false };

export function setWebPolicy(policy: Partial<WebPolicy>): void {
  Object.assign(webPolicy, policy);
}
