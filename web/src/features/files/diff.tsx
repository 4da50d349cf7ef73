/**
 * A line diff of two texts (the `diff` package), as git shows one: added and removed lines with their numbers,
 * unchanged stretches folded to a few lines around each change. Used by proposal reviews and the history.
 */
import { diffLines } from "diff";
import { useMemo, useState } from "react";

/** Unchanged lines kept around each change; longer unchanged runs fold into one line. */
const CONTEXT = 3;

/** A line of the diff; `eol` is false for a last line with no newline after it. */
type Line = { kind: "add" | "del" | "same"; text: string; eol: boolean; oldNo: number | null; newNo: number | null };
type Row = Line | { kind: "fold"; count: number; lines: Line[] };

/** The lines of a part of the diff, each with whether a newline ends it (the text's last line may have none). */
function splitLines(value: string): { text: string; eol: boolean }[] {
  const lines = value.split("\n");
  const last = lines.pop() as string;
  const split = lines.map((text) => ({ text, eol: true }));
  if (last !== "") split.push({ text: last, eol: false });
  return split;
}

/** The diff as numbered lines with long unchanged stretches folded; null when it took too long. */
function diffRows(before: string, after: string): { rows: Row[]; added: number; removed: number } | null {
  const parts = diffLines(before, after, { timeout: 1500 });
  if (!parts) return null;
  const lines: Line[] = [];
  let oldNo = 1;
  let newNo = 1;
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    for (const { text, eol } of splitLines(part.value)) {
      if (part.added) {
        lines.push({ kind: "add", text, eol, oldNo: null, newNo: newNo++ });
        added++;
      } else if (part.removed) {
        lines.push({ kind: "del", text, eol, oldNo: oldNo++, newNo: null });
        removed++;
      } else lines.push({ kind: "same", text, eol, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  const rows: Row[] = [];
  let i = 0;
  while (i < lines.length) {
    if ((lines[i] as Line).kind !== "same") {
      rows.push(lines[i] as Line);
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && (lines[end] as Line).kind === "same") end++;
    const run = lines.slice(i, end);
    const keepBefore = i === 0 ? 0 : CONTEXT;
    const keepAfter = end === lines.length ? 0 : CONTEXT;
    if (run.length > keepBefore + keepAfter + 1) {
      rows.push(...run.slice(0, keepBefore));
      const folded = run.slice(keepBefore, run.length - keepAfter);
      rows.push({ kind: "fold", count: folded.length, lines: folded });
      rows.push(...run.slice(run.length - keepAfter));
    } else rows.push(...run);
    i = end;
  }
  return { rows, added, removed };
}

/** Unique in a diff: an added line has only a new number, a removed one only an old one. */
const keyOf = (line: Line) => `${line.oldNo ?? "-"}:${line.newNo ?? "-"}`;

/**
 * The line diff from `before` to `after`: `same` says there is no difference; when the texts differ too much to
 * compare in time, `after` is shown whole under the title `whole`.
 */
export function DiffView({
  before,
  after,
  same,
  whole,
}: {
  before: string;
  after: string;
  same: string;
  whole: string;
}) {
  const diff = useMemo(() => diffRows(before, after), [before, after]);
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  if (!diff)
    return (
      <>
        <p className="muted">The texts differ too much to compare line by line. {whole}:</p>
        <pre className="diff-plain">{after}</pre>
      </>
    );
  if (diff.added === 0 && diff.removed === 0) return <p className="muted">{same}</p>;
  return (
    <>
      <p className="small diff-stats">
        <span className="diff-added-count">+{diff.added}</span>{" "}
        <span className="diff-removed-count">−{diff.removed}</span> lines
      </p>
      <table className="diff" aria-label="Changes">
        <tbody>
          {diff.rows.flatMap((row, index) => {
            if (row.kind === "fold") {
              const first = row.lines[0] as Line;
              if (!opened.has(index))
                return [
                  <tr key={`fold-${keyOf(first)}`} className="diff-fold">
                    <td colSpan={4}>
                      <button type="button" className="link" onClick={() => setOpened(new Set(opened).add(index))}>
                        Show {row.count} unchanged {row.count === 1 ? "line" : "lines"}
                      </button>
                    </td>
                  </tr>,
                ];
              return row.lines.flatMap((line) => diffLine(line));
            }
            return diffLine(row);
          })}
        </tbody>
      </table>
    </>
  );
}

/** How trailing whitespace is drawn, as git marks it: visible, so that a line differing only there shows how. */
const WHITESPACE_MARKS: Record<string, string> = { " ": "·", "\t": "→", "\r": "␍" };

/**
 * A line's rows: the line, and after a changed line that has no newline at its end, git's "\ No newline at end
 * of file". A changed line's trailing whitespace is drawn visibly (and named for screen readers).
 */
function diffLine(line: Line) {
  const rows = [<DiffLine key={keyOf(line)} line={line} />];
  if (!line.eol && line.kind !== "same")
    rows.push(
      <tr key={`${keyOf(line)}-eol`} className={`diff-${line.kind} diff-eol`}>
        <td className="diff-no" />
        <td className="diff-no" />
        <td className="diff-sign" />
        <td className="diff-text">\ No newline at end of file</td>
      </tr>,
    );
  return rows;
}

function DiffLine({ line }: { line: Line }) {
  const sign = line.kind === "add" ? "+" : line.kind === "del" ? "−" : " ";
  const changed = line.kind !== "same";
  const body = changed ? line.text.replace(/\s+$/, "") : line.text;
  const trailing = line.text.slice(body.length);
  return (
    <tr className={`diff-${line.kind}`}>
      <td className="diff-no">{line.oldNo ?? ""}</td>
      <td className="diff-no">{line.newNo ?? ""}</td>
      <td
        className="diff-sign"
        aria-label={line.kind === "add" ? "added" : line.kind === "del" ? "removed" : undefined}
      >
        {sign}
      </td>
      <td className="diff-text">
        {body || (trailing ? "" : " ")}
        {trailing && (
          <>
            <span className="diff-ws" title="Trailing whitespace" aria-hidden="true">
              {[...trailing].map((c) => WHITESPACE_MARKS[c] ?? "·").join("")}
            </span>
            <span className="sr-only"> (trailing whitespace)</span>
          </>
        )}
      </td>
    </tr>
  );
}
