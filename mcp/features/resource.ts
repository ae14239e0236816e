/**
 * The resource contract: defineResource() for one fixed URI, defineResourceTemplate() for a
 * family of URIs (RFC 6570 `{name}` and `{+name}`), and what their handlers receive and return.
 */
import type { ToolContext } from "../tool/tool.ts";
import { UriTemplate } from "./uri_template.ts";
import type { Unwatch, Watch, WatchContext } from "./watch.ts";

/** What a resource or prompt handler may use: the same narrow view of a request as a tool's. */
export type ReadContext = Pick<
  ToolContext,
  "signal" | "roots" | "log" | "config" | "state" | "session"
>;

/** A resource as resources/list shows it. */
export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Bytes, when known. */
  size?: number;
}

/**
 * One part of what a read returns: text, or bytes as base64. `uri` defaults to the one read;
 * `meta` goes out as the part's `_meta` (an app page's `ui` settings, say).
 */
export type ResourceBody =
  | { text: string; mimeType?: string; uri?: string; meta?: Record<string, unknown> }
  | { blob: string; mimeType?: string; uri?: string; meta?: Record<string, unknown> };

/** Text (with the resource's mimeType), one body, or several. */
export type ReadReturn = string | ResourceBody | ResourceBody[];

/** Thrown by a read when the URI names nothing that exists (an unknown process id, say). */
export class ResourceNotFound extends Error {}

/** Completes one variable or argument: the values that fit `value` typed so far. */
export type Completer = (
  value: string,
  ctx: ReadContext,
  /** Values the client already settled for the other variables or arguments. */
  others: Record<string, string>,
) => Promise<string[]>;

interface Offered {
  /**
   * Offered only while the tool of this name is: the allow and deny lists and read-only mode
   * then reach what belongs to it (toolhost://plan goes with plan_mode).
   */
  requires?: string;
}

export interface ResourceSpec extends Omit<ResourceInfo, "size">, Offered {
  read(ctx: ReadContext): Promise<ReadReturn>;
  /** When present, clients may subscribe to this resource's changes. */
  watch?: Watch;
}

export interface Resource extends ResourceSpec {
  readonly kind: "resource";
}

export interface ResourceTemplateSpec extends Offered {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(variables: Record<string, string>, ctx: ReadContext): Promise<ReadReturn>;
  complete?: Record<string, Completer>;
  /** The concrete resources of this template worth listing in resources/list now. */
  list?(ctx: ReadContext): Promise<ResourceInfo[]>;
  /**
   * For resources/search: up to `limit` resources of this template whose names hold `query`,
   * whatever its case, beyond what list() gives; the catalog ranks them with the rest.
   */
  search?(query: string, ctx: ReadContext, limit: number): Promise<ResourceInfo[]>;
  /** When present, clients may subscribe to changes of the resource these variables name. */
  watch?(variables: Record<string, string>, ctx: WatchContext, changed: () => void): Unwatch;
  /** When present, changes to what list() returns are notified (resources/list_changed). */
  watchList?: Watch;
}

export interface ResourceTemplate extends ResourceTemplateSpec {
  readonly kind: "resource_template";
  readonly parsed: UriTemplate;
}

export function defineResource(spec: ResourceSpec): Resource {
  try {
    new URL(spec.uri);
  } catch {
    throw new Error(`Resource ${spec.name}: ${JSON.stringify(spec.uri)} is not an absolute URI`);
  }
  return { ...spec, kind: "resource" };
}

export function defineResourceTemplate(spec: ResourceTemplateSpec): ResourceTemplate {
  const parsed = new UriTemplate(spec.uriTemplate);
  for (const name of Object.keys(spec.complete ?? {})) {
    if (!parsed.variables.includes(name)) {
      throw new Error(`Resource template ${spec.uriTemplate} has no variable ${name} to complete`);
    }
  }
  return { ...spec, kind: "resource_template", parsed };
}
