/**
 * One error map for every zod schema: messages read `field: what is wrong` (`title: required`), so a 400
 * always names the field. A schema that sets its own message (`invalid limit`) keeps it verbatim.
 */
import { z } from "zod";

type Issue = Parameters<NonNullable<NonNullable<Parameters<typeof z.config>[0]>["customError"]>>[0];

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

function sizeMessage(origin: unknown, bound: unknown, word: "least" | "most", exact: boolean): string {
  const n = Number(bound);
  if (origin === "string") {
    if (word === "least" && n === 1) return "must not be empty";
    return `must be at ${word} ${n} character${n === 1 ? "" : "s"}`;
  }
  if (origin === "array" || origin === "set") return `must have at ${word} ${n} item${n === 1 ? "" : "s"}`;
  return exact ? `must be at ${word} ${n}` : `must be ${word === "least" ? "greater" : "less"} than ${n}`;
}

function describe(issue: Issue): string {
  const i = issue as unknown as Record<string, unknown>;
  switch (issue.code) {
    case "invalid_type":
      if (i.input === undefined) return "required";
      return `must be ${ARTICLE[String(i.expected)] ?? String(i.expected)}`;
    case "too_small":
      return sizeMessage(i.origin, i.minimum, "least", i.inclusive !== false);
    case "too_big":
      return sizeMessage(i.origin, i.maximum, "most", i.inclusive !== false);
    case "invalid_format":
      switch (i.format) {
        case "uuid":
          return "must be a UUID";
        case "email":
          return "must be an email address";
        case "datetime":
          return "must be an RFC 3339 timestamp";
        case "url":
          return "must be a URL";
        default:
          return `must be a valid ${String(i.format)}`;
      }
    case "invalid_value":
      return `must be one of ${(i.values as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "custom":
      // `.refine(check, { params: { message: "must be an http(s) URL" } })` names what is wrong.
      return String((i.params as { message?: string } | undefined)?.message ?? "is invalid");
    default:
      return typeof i.message === "string" && i.message ? i.message : "is invalid";
  }
}

/** Renders a zod path as `attachments[0].url`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

let installed = false;

/** Installs the error map; idempotent. */
export function installZodMessages(): void {
  if (installed) return;
  installed = true;
  z.config({
    customError: (issue) => {
      const path = fieldPath(issue.path ?? []);
      if (path === "") {
        // Only a body can be absent or not an object at the root.
        return issue.input == null ? "invalid json" : "body must be a JSON object";
      }
      return `${path}: ${describe(issue)}`;
    },
  });
}
