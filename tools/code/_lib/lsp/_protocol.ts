/**
 * The part of the Language Server Protocol toolhost speaks, as types: each request's method
 * with its parameters and its answer, so a request is checked where it is made rather than its
 * answer cast where it is read. Answers are still untrusted data (a server may send anything):
 * readers check the fields they use.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Location {
  uri: string;
  range: Range;
}

export interface LocationLink {
  targetUri: string;
  targetRange: Range;
  targetSelectionRange: Range;
  originSelectionRange?: Range;
}

export interface TextDocumentIdentifier {
  uri: string;
}

export interface TextDocumentPositionParams {
  textDocument: TextDocumentIdentifier;
  position: Position;
}

export interface Diagnostic {
  range: Range;
  severity?: number;
  message: string;
  code?: string | number;
  source?: string;
}

export interface DocumentSymbol {
  name: string;
  kind?: number;
  range?: Range;
  selectionRange?: Range;
  children?: DocumentSymbol[];
}

export interface SymbolInformation {
  name: string;
  kind?: number;
  location: { uri: string; range?: Range };
  containerName?: string;
}

export interface Hover {
  contents: unknown;
  range?: Range;
}

export interface CallHierarchyItem {
  name: string;
  kind?: number;
  uri: string;
  range: Range;
  selectionRange: Range;
  data?: unknown;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface WorkspaceEdit {
  changes?: Record<string, TextEdit[]>;
  documentChanges?: (
    | { textDocument: { uri: string; version?: number | null }; edits: TextEdit[] }
    | { kind: string }
  )[];
}

export interface DocumentDiagnosticReport {
  kind: "full" | "unchanged";
  items?: Diagnostic[];
  resultId?: string;
}

export interface ServerCapabilities {
  textDocumentSync?: number | { openClose?: boolean; change?: number; save?: boolean | object };
  renameProvider?: boolean | { prepareProvider?: boolean };
  diagnosticProvider?: unknown;
  executeCommandProvider?: { commands?: string[] };
  [capability: string]: unknown;
}

export interface InitializeResult {
  capabilities?: ServerCapabilities;
  serverInfo?: { name?: string; version?: string };
}

type Definitions = Location | Location[] | LocationLink[] | null;

/** Every request toolhost sends: method -> [parameters, answer]. */
export interface Requests {
  "initialize": [Record<string, unknown>, InitializeResult | null];
  "shutdown": [null, null];
  "textDocument/definition": [TextDocumentPositionParams, Definitions];
  "textDocument/typeDefinition": [TextDocumentPositionParams, Definitions];
  "textDocument/implementation": [TextDocumentPositionParams, Definitions];
  "textDocument/references": [
    TextDocumentPositionParams & { context: { includeDeclaration: boolean } },
    Location[] | null,
  ];
  "textDocument/hover": [TextDocumentPositionParams, Hover | null];
  "textDocument/documentSymbol": [
    { textDocument: TextDocumentIdentifier },
    DocumentSymbol[] | SymbolInformation[] | null,
  ];
  "textDocument/prepareCallHierarchy": [TextDocumentPositionParams, CallHierarchyItem[] | null];
  "callHierarchy/incomingCalls": [
    { item: CallHierarchyItem },
    { from: CallHierarchyItem; fromRanges: Range[] }[] | null,
  ];
  "callHierarchy/outgoingCalls": [
    { item: CallHierarchyItem },
    { to: CallHierarchyItem; fromRanges: Range[] }[] | null,
  ];
  "textDocument/prepareRename": [TextDocumentPositionParams, unknown];
  "textDocument/rename": [TextDocumentPositionParams & { newName: string }, WorkspaceEdit | null];
  "textDocument/diagnostic": [
    { textDocument: TextDocumentIdentifier },
    DocumentDiagnosticReport | null,
  ];
  "workspace/symbol": [{ query: string }, SymbolInformation[] | null];
  "workspace/executeCommand": [{ command: string; arguments?: unknown[] }, unknown];
}

export type Method = keyof Requests;
export type ParamsOf<M extends Method> = Requests[M][0];
export type ResultOf<M extends Method> = Requests[M][1];

/** Error codes that mean "ask again": the content changed, or the server was not ready. */
export const RETRY_CODES: ReadonlySet<number> = new Set([-32801, -32802]);
