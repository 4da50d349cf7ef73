/**
 * OpenAPI 3.1 generated from the registered routes: their zod body and query schemas, the permission the
 * macro recorded, and the responses of `doc()`. Path parameters come from the path itself (they are ids,
 * deliberately not validated as UUIDs so a malformed one answers the resource's 404).
 */
import { Elysia } from "elysia";
import { z } from "zod";
import { BUILD } from "../config";
import type { AuthMacro } from "./auth";
import { JSON_TYPE } from "./base";
import type { DocExtra, Responses } from "./docs";
import { notFoundOf } from "./path-ids";

/** The slice of an Elysia route this generator reads. */
export interface RouteInfo {
  method: string;
  path: string;
  hooks: {
    body?: unknown;
    query?: unknown;
    detail?: Record<string, unknown>;
  };
}

type Json = Record<string, unknown>;

/** Where named schemas (`.meta({ id })`: the API's resources) go, and how they are referred to. */
const COMPONENTS = "#/components/schemas/";

/**
 * The JSON schema of a zod schema. A resource named with `.meta({ id: "Task" })` is written once, into
 * `components` (what a generated client turns into a named type), and referred to from here.
 */
function schemaOf(schema: unknown, io: "input" | "output", components: Record<string, Json>): Json | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, Json>;
  delete json.$defs;
  for (const [name, def] of Object.entries(defs)) components[name] ??= refine(def, io);
  return refine(json, io);
}

/** Required fields made explicit, date-times a request carries left without a pattern, refs into components. */
function refine(json: Json, io: "input" | "output"): Json {
  markRequired(json);
  if (io === "input") dropDateTimePatterns(json);
  pointRefsAtComponents(json);
  return json;
}

function pointRefsAtComponents(json: unknown): void {
  if (!json || typeof json !== "object") return;
  const node = json as Json;
  if (typeof node.$ref === "string") node.$ref = node.$ref.replace("#/$defs/", COMPONENTS);
  for (const value of Object.values(node)) pointRefsAtComponents(value);
}

/**
 * A field the API requires but whose zod schema is optional, so that the service words the message for it
 * (`emoji must be a single emoji`), carries `x-required`; the document lists it as required.
 */
function markRequired(json: Json): void {
  const properties = json.properties as Record<string, Json> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (property["x-required"]) {
      delete property["x-required"];
      json.required = [...((json.required as string[] | undefined) ?? []), name];
    }
    markRequired(property);
  }
  if (json.items && typeof json.items === "object") markRequired(json.items as Json);
}

/** What every JSON body may be refused with, before its fields are read. */
const JSON_BODY_ERRORS =
  "; a body that is not JSON: `invalid json`; another Content-Type: `content-type must be application/json`; `null`: `body must be a JSON object`";

/** Statuses whose route-specific messages come beside the generic ones rather than replacing them. */
const MERGED = new Set(["400", "403", "404"]);

/** A date-time's pattern (upper-case `T` and `Z` only) is stricter than the API, which reads them in either case. */
function dropDateTimePatterns(json: unknown): void {
  if (!json || typeof json !== "object") return;
  const node = json as Json;
  if (node.format === "date-time") delete node.pattern;
  for (const value of Object.values(node)) dropDateTimePatterns(value);
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ERROR_REF } },
});

function describeAccess(detail: Json): string {
  if (detail["x-access"]) return `${String(detail["x-access"])}.`;
  if (detail["x-public"]) return "Public: no token needed.";
  if (detail["x-signed-in"]) return "Needs any valid token.";
  const need = detail["x-permission"];
  return need === "member" ? "Needs membership of the organization." : `Needs the permission \`${String(need)}\`.`;
}

/** Builds the OpenAPI document of the given routes. */
export function buildOpenApi(routes: readonly RouteInfo[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const components: Record<string, Json> = {
    Error: { type: "object", properties: { error: { type: "string" } }, required: ["error"] },
  };
  for (const route of routes) {
    const detail = (route.hooks.detail ?? {}) as Json;
    if (detail.hide || route.path.includes("*")) continue;
    // A WebSocket is a GET that upgrades; a browser's may carry its token in the URL, which the browser can set.
    const socket = route.method === "WS";
    const method = socket ? "get" : route.method.toLowerCase();
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const isPublic = Boolean(detail["x-public"]);
    const operation: Json = {
      summary: detail.summary,
      description: describeAccess(detail),
      tags: [tagOf(path)],
      operationId: `${method}${path.replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase())}`,
    };
    if (detail["x-permission"]) operation["x-permission"] = detail["x-permission"];
    if (detail["x-access"]) operation["x-access"] = detail["x-access"];
    if (isPublic) operation.security = [];

    const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const ownParams = (detail["x-params"] ?? {}) as Record<string, Json>;
    const parameters: Json[] = pathParams.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: ownParams[name] ?? { type: "string", format: "uuid" },
    }));
    const bytes = detail["x-bytes"] as DocExtra["bytes"];
    const headers = { ...bytes?.requestHeaders, ...(detail["x-headers"] as DocExtra["headers"]) };
    for (const [name, description] of Object.entries(headers)) {
      parameters.push({ name, in: "header", required: false, description, schema: { type: "string" } });
    }
    if (socket && detail["x-token-in-url"]) {
      parameters.push({
        name: "token",
        in: "query",
        required: false,
        description: "The access or `sa_` token, where the client cannot send an Authorization header",
        schema: { type: "string" },
      });
    }
    for (const extra of (detail["x-query"] ?? []) as NonNullable<DocExtra["query"]>) {
      const { name, description, required = false } = extra;
      parameters.push({ name, in: "query", required, description, schema: { type: "string" } });
    }
    const query = schemaOf(route.hooks.query, "input", components);
    const queryProps = (query?.properties ?? {}) as Record<string, Json>;
    const requiredQuery = new Set((query?.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(queryProps)) {
      parameters.push({ name, in: "query", required: requiredQuery.has(name), schema });
    }
    if (parameters.length > 0) operation.parameters = parameters;

    const { schema: bodySchema, optional } = unwrapOptional(route.hooks.body);
    const body = schemaOf(bodySchema, "input", components);
    if (body) operation.requestBody = { required: !optional, content: { "application/json": { schema: body } } };
    const raw = detail["x-body"] as DocExtra["body"];
    if (raw) {
      const content = Object.fromEntries(Object.entries(raw).map(([type, schema]) => [type, { schema }]));
      operation.requestBody = { required: true, content };
    }

    const responses: Json = socket ? { "101": { description: "Switching Protocols: the WebSocket is open" } } : {};
    if (body || query || raw) {
      responses["400"] = errorResponse(`Invalid input: the message names the field${body ? JSON_BODY_ERRORS : ""}`);
    }
    if (!isPublic) responses["401"] = errorResponse("Missing, invalid or expired token: `unauthorized`");
    if (detail["x-permission"]) {
      responses["403"] = errorResponse(
        "Missing permission: `missing permission: <name>`; an account whose signup awaits approval: `signup pending approval`",
      );
    }
    const notFound = [...new Set(pathParams.map((name) => notFoundOf(name, path)).filter(Boolean))];
    if (notFound.length > 0) {
      const messages = notFound.map((m) => `\`${m}\``).join(", ");
      responses["404"] = errorResponse(`Not found, or not visible to the caller: ${messages}`);
    }
    if (body) responses["413"] = errorResponse("A body over 1 MiB: `request body too large`");
    if (method !== "get") {
      responses["507"] = errorResponse(
        "The server's disk is full: `the server's disk is full: nothing can be stored until space is freed`",
      );
      responses["503"] = errorResponse(
        "The server's disk refuses writes (read-only or failing): `the server cannot write to its disk: nothing can be stored until it is repaired`",
      );
    }
    responses["500"] = errorResponse(
      "An unexpected failure, logged with the request id (sent as X-Request-Id): `internal error`",
    );
    for (const [status, answer] of Object.entries((detail["x-responses"] as (() => Responses) | undefined)?.() ?? {})) {
      const generic = responses[status] as Json | undefined;
      responses[status] = responseOf(Number(status), answer, components);
      // A route's own 400, 403 or 404 comes beside the generic ones (invalid input, a permission, a pending
      // signup, an id in the path), which it answers too.
      if (MERGED.has(status) && generic && typeof answer === "string") {
        (responses[status] as Json).description = `${String(generic.description)}; ${answer}`;
      }
      if (bytes?.statuses.includes(Number(status))) {
        const headers = Object.fromEntries(
          Object.entries(bytes.headers).map(([name, description]) => [
            name,
            { description, schema: { type: "string" } },
          ]),
        );
        Object.assign(responses[status] as Json, {
          headers,
          content: { "*/*": { schema: { type: "string", format: "binary" } } },
        });
      }
    }
    operation.responses = responses;
    paths[path] ??= {};
    (paths[path] as Record<string, Json>)[method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Tandem API", version: BUILD.version },
    servers: [{ url: "/", description: "The server that serves this document" }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An access token (JWT) or a staff `sa_` token" },
      },
    },
    security: [{ bearer: [] }],
  };
}

/** A route's answer for one status, as `doc()` gave it. */
function responseOf(status: number, answer: Responses[number], components: Record<string, Json>): Json {
  if (typeof answer === "string") return status >= 400 ? errorResponse(answer) : { description: answer };
  const json = answer ? schemaOf(answer, "output", components) : undefined;
  if (!json) return { description: "No content" };
  return { description: status >= 400 ? "Error" : "OK", content: { "application/json": { schema: json } } };
}

/** A body schema that may be left out (`{}` or nothing): its object schema, and that it is optional. */
function unwrapOptional(schema: unknown): { schema: unknown; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional = true;
    inner = inner.unwrap();
  }
  return { schema: inner, optional };
}

function tagOf(path: string): string {
  const parts = path.split("/").filter((p) => p && !p.startsWith("{"));
  if (parts[0] !== "api") return "service";
  const rest = parts.slice(2);
  if (rest[0] === "organizations" && rest.length > 1)
    return rest[1] === "me" ? "organizations" : (rest[1] ?? "organizations");
  return rest[0] ?? "service";
}

/** A page that renders the document without anything from the internet. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Tandem API</title>
<style>
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#666;--bg:#fff;--card:#f4f4f6;--line:#ddd}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8ec;--muted:#9a9aa5;--bg:#151518;--card:#1f1f24;--line:#333}}
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:24px;color:var(--fg);background:var(--bg)}
h2{margin-top:2em;text-transform:capitalize}details{background:var(--card);border-radius:8px;margin:6px 0;padding:8px 12px}
summary{cursor:pointer}code,pre{font:13px ui-monospace,monospace}pre{overflow:auto;border-top:1px solid var(--line);padding-top:8px}
.m{display:inline-block;min-width:64px;font-weight:700}.p{color:var(--muted)}
</style></head><body><h1>Tandem API</h1>
<p>Generated from the running server's routes. Raw document: <a href="/api/docs/json">/api/docs/json</a>.</p>
<main id="ops">Loading…</main>
<script>
fetch("/api/docs/json").then(function(r){return r.json()}).then(function(doc){
  var groups={};
  Object.keys(doc.paths).forEach(function(path){Object.keys(doc.paths[path]).forEach(function(m){
    var op=doc.paths[path][m];var tag=(op.tags&&op.tags[0])||"other";(groups[tag]=groups[tag]||[]).push([m,path,op]);});});
  var main=document.getElementById("ops");main.textContent="";
  Object.keys(groups).sort().forEach(function(tag){
    var h=document.createElement("h2");h.textContent=tag;main.appendChild(h);
    groups[tag].forEach(function(e){
      var d=document.createElement("details");var s=document.createElement("summary");
      var m=document.createElement("span");m.className="m";m.textContent=e[0].toUpperCase();
      var p=document.createElement("code");p.textContent=e[1];
      var t=document.createElement("span");t.className="p";t.textContent=" "+(e[2].summary||"");
      s.append(m,p,t);var pre=document.createElement("pre");
      pre.textContent=JSON.stringify({access:e[2].description,parameters:e[2].parameters,requestBody:e[2].requestBody,responses:e[2].responses},null,2);
      d.append(s,pre);main.appendChild(d);});});
}).catch(function(err){document.getElementById("ops").textContent="Could not load the document: "+err;});
</script></body></html>`;

/** `GET /api/docs` (the page) and `GET /api/docs/json` (the document, built once on first request). */
export function docsRoutes(auth: AuthMacro, routes: () => readonly RouteInfo[]) {
  let spec: string | undefined;
  return new Elysia()
    .use(auth)
    .get(
      "/api/docs",
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        return DOCS_PAGE;
      },
      { public: true, detail: { hide: true } },
    )
    .get(
      "/api/docs/json",
      ({ set }) => {
        set.headers["content-type"] = JSON_TYPE;
        spec ??= JSON.stringify(buildOpenApi(routes()));
        return spec;
      },
      { public: true, detail: { hide: true } },
    );
}
