/**
 * Scenario tables, after PocketBase's `ApiScenario`: a line is one request (method, path, caller, body) and the
 * answer it must get (a status and, for a refusal, the exact `{"error"}` body). `scenarios` makes each line a
 * test named after it, so that a new route, or a new caller of one, is a new line.
 */
import { expect, it } from "bun:test";
import { type Reply, type RequestOptions, request } from "./http";

/** The answer a line expects. */
export interface Answer {
  /** `"2xx"`: any success, a WebSocket upgrade's 101 included. */
  status: number | "2xx";
  /** What a refusal says: the body is exactly `{"error": error}`. Every status from 400 up names one. */
  error?: string;
}

/** One line of a table. */
export interface Scenario extends Answer {
  method: string;
  /** The path; each `{name}` in it is replaced with the table's `params()[name]` when the line runs. */
  url: string;
  /** Who calls: a name among the table's `tokens()`. */
  as: string;
  /** A body sent as JSON (shown in the test's name). */
  body?: unknown;
  /** Options made when the line runs (a body of ids made in `beforeAll`, raw bytes); they win over `body`. */
  options?: () => RequestOptions | Promise<RequestOptions>;
  /** What the name says beyond the method, path, caller and body. */
  name?: string;
  /** More checks of the answer. */
  check?: (res: Reply) => void | Promise<void>;
}

/** An answer and the request it came from. */
export interface Sent {
  label: string;
  res: Reply;
}

/** Where and as whom a table's lines run: functions, as servers and callers exist only once `beforeAll` ran. */
export interface Table<Line extends Scenario = Scenario> {
  /** The server's URL. */
  url: () => string;
  /** Each caller's token; a caller given `undefined` sends none. */
  tokens: () => Record<string, string | undefined>;
  /** Values of the `{name}` placeholders of the lines' paths. */
  params?: () => Record<string, string>;
  /** Sends a line's requests, when one request with its body will not do; each answer is checked against it. */
  send?: (line: Line, token: string | undefined) => Promise<Sent[]>;
}

/** A test per line, named after its request and the answer it expects. */
export function scenarios<Line extends Scenario>(table: Table<Line>, lines: readonly Line[]): void {
  if (lines.length === 0) throw new Error("a scenario table without lines checks nothing");
  for (const line of lines) {
    it(titleOf(line), async () => {
      const tokens = table.tokens();
      if (!(line.as in tokens)) throw new Error(`no caller named ${line.as}`);
      const token = tokens[line.as];
      const sent = table.send ? await table.send(line, token) : [await sendOne(table, line, token)];
      expect(sent.length, "requests sent").toBeGreaterThan(0);
      for (const { label, res } of sent) {
        expectAnswer(res, line, label);
        await line.check?.(res);
      }
    });
  }
}

/** `METHOD path as caller [with body] [name]: answer`. */
export function titleOf(line: Scenario): string {
  const body = line.body === undefined ? "" : ` with ${JSON.stringify(line.body)}`;
  return `${line.method} ${line.url} as ${line.as}${body}${line.name ? ` ${line.name}` : ""}: ${answerText(line)}`;
}

/** `2xx`, `204`, `403 missing permission: files.write`. */
export function answerText(answer: Answer): string {
  return answer.error === undefined ? String(answer.status) : `${answer.status} ${answer.error}`;
}

/** Fails unless `res` is the answer; `label` says which request it was. */
export function expectAnswer(res: Reply, want: Answer, label: string): void {
  const got = `got ${res.status} ${res.text.slice(0, 200)}`;
  if (want.status === "2xx") {
    const ok = (res.status >= 200 && res.status < 300) || res.status === 101;
    expect(ok, `${label}: want 2xx, ${got}`).toBe(true);
    return;
  }
  if (want.error === undefined) {
    if (want.status >= 400) throw new Error(`${label}: a line answering ${want.status} names its error`);
    expect(res.status, `${label}: ${got}`).toBe(want.status);
    return;
  }
  expect({ status: res.status, body: res.body }, `${label}: ${got}`).toEqual({
    status: want.status,
    body: { error: want.error },
  });
}

/** Replaces each `{name}` of a path. */
export function fill(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
    return value;
  });
}

async function sendOne(table: Table<any>, line: Scenario, token: string | undefined): Promise<Sent> {
  const path = fill(line.url, table.params?.() ?? {});
  const options: RequestOptions = { token, body: line.body, ...(await line.options?.()) };
  return { label: `${line.method} ${path}`, res: await request(table.url(), line.method, path, options) };
}
