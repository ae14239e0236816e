/** Number formats and the markdown table the benchmark prints. */

export const ms = (value: number) => `${value.toFixed(1)} ms`;
export const us = (value: number) => `${Math.round(value).toLocaleString("en-US")} µs`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")} req/s`;
/** Megabytes of 10^6 bytes, the unit the RSS target is stated in. */
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
export const times = (ratio: number) => `${ratio.toFixed(2)}×`;

/** Where a figure stands against a target; printed for reference, never asserted. */
export const against = (target: string, met: boolean) => `${target} (${met ? "met" : "MISSED"})`;

export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
