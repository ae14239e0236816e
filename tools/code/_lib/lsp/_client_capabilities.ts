/** What toolhost tells a server it can do as a client, and how it answers configuration. */

export const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true },
  // rust-analyzer's status: quiescent once it has loaded and indexed the project.
  experimental: { serverStatusNotification: true },
  workspace: {
    workspaceFolders: true,
    configuration: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    didChangeConfiguration: { dynamicRegistration: false },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true, resourceOperations: [] },
    diagnostics: { refreshSupport: true },
  },
  textDocument: {
    // didSave: rust-analyzer runs cargo check on save.
    synchronization: { dynamicRegistration: false, didSave: true },
    definition: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: {},
    rename: { prepareSupport: true },
    publishDiagnostics: { versionSupport: true, relatedInformation: false },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};

/** The part of `settings` a workspace/configuration item asks for ("python.analysis"). */
export function section(settings: unknown, name: string | undefined): unknown {
  if (!name) return settings ?? null;
  let value = settings as Record<string, unknown> | undefined;
  for (const key of name.split(".")) value = value?.[key] as Record<string, unknown> | undefined;
  return value ?? null;
}
