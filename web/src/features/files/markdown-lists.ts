/**
 * Lists in the markdown editor, as every markdown editor types them. Enter continues a list (numbers go on) and,
 * on an empty item, leaves it (or goes up one level); Backspace after a marker removes it; Tab makes an item a
 * child of the one above it and Shift-Tab gives it back to its parent's level, with what is below it; `## `
 * typed on an empty item makes the line a heading rather than a list item holding one.
 *
 * `@codemirror/lang-markdown`'s own Enter (`insertNewlineContinueMarkup`) turns a list loose instead of leaving
 * it when the empty item is the second one (so that a loose list can be typed): `nonTightLists: false` makes
 * Enter on any empty item leave the list. Every command here is an ordinary transaction, so the Yjs binding
 * sends it like typing.
 */
import { indentLess, indentMore } from "@codemirror/commands";
import { deleteMarkupBackward, insertNewlineContinueMarkupCommand } from "@codemirror/lang-markdown";
import { syntaxTree } from "@codemirror/language";
import type { ChangeSpec, EditorState, Line, StateCommand, TransactionSpec } from "@codemirror/state";
import { EditorView, type KeyBinding } from "@codemirror/view";

/** A list item's line: its indentation, marker (`-`, `*`, `+`, or a number with `.` or `)`) and where its text starts. */
interface Item {
  line: Line;
  indent: number;
  bullet: string | null;
  number: number | null;
  delimiter: string;
  /** Where the item's text starts, from the line's start: its children are indented this far. */
  content: number;
}

const ITEM = /^( *)(?:([-+*])|(\d{1,9})([.)]))( *)/;

function itemOf(line: Line): Item | null {
  const match = ITEM.exec(line.text);
  if (!match) return null;
  const spaces = (match[5] as string).length;
  // A marker must be followed by a space, or end the line (an item just begun).
  if (spaces === 0 && match[0].length < line.length) return null;
  const indent = (match[1] as string).length;
  const markerEnd = match[0].length - spaces;
  return {
    line,
    indent,
    bullet: match[2] ?? null,
    number: match[3] === undefined ? null : Number(match[3]),
    delimiter: match[4] ?? "",
    // Five spaces or more after a marker start an indented code block: the text starts one space in.
    content: spaces >= 1 && spaces <= 4 ? markerEnd + spaces : markerEnd + 1,
  };
}

const indentOf = (line: Line) => /^ */.exec(line.text)?.[0].length ?? 0;
const blank = (line: Line) => line.text.trim() === "";
const markerOf = (item: Item) => item.bullet ?? `${item.number}${item.delimiter}`;

/**
 * The nearest item above line `from` that `wanted` accepts, within the list: lines of items' text (indented) and
 * blank lines are passed over; an unindented line of text ends the list, and so does an item `stop` refuses.
 */
function itemAbove(
  state: EditorState,
  from: number,
  wanted: (item: Item) => boolean,
  stop: (item: Item) => boolean,
): Item | null {
  for (let n = from - 1; n >= 1; n--) {
    const line = state.doc.line(n);
    if (blank(line)) continue;
    const item = itemOf(line);
    if (!item) {
      if (indentOf(line) === 0) return null;
      continue;
    }
    if (wanted(item)) return item;
    if (stop(item)) return null;
  }
  return null;
}

/** The item above at exactly `indent`, before the list goes back out past it. */
const previousAt = (state: EditorState, from: number, indent: number) =>
  itemAbove(
    state,
    from,
    (item) => item.indent === indent,
    (item) => item.indent < indent,
  );

/** The item that `item` is a child of. */
const parentOf = (state: EditorState, item: Item) =>
  itemAbove(
    state,
    item.line.number,
    (above) => above.indent < item.indent,
    () => false,
  );

/** The lines of text below an item that belong to it: those more indented, up to the next line that is not. */
function childrenOf(state: EditorState, item: Item): Line[] {
  const lines: Line[] = [];
  for (let n = item.line.number + 1; n <= state.doc.lines; n++) {
    const line = state.doc.line(n);
    if (blank(line)) continue;
    if (indentOf(line) <= item.indent) break;
    lines.push(line);
  }
  return lines;
}

/** The list items of the selection's lines, in order; null when a selected line is no item. */
function selectedItems(state: EditorState): Item[] | null {
  const items = new Map<number, Item>();
  for (const range of state.selection.ranges) {
    for (let pos = range.from; pos <= range.to; ) {
      const line = state.doc.lineAt(pos);
      const item = itemOf(line);
      if (!item) return null;
      items.set(line.number, item);
      pos = line.to + 1;
    }
  }
  return [...items.values()].sort((a, b) => a.line.number - b.line.number);
}

/**
 * Moves the items, with the text below each, so that the first starts at `target`: bullets stay, numbers
 * follow the item above at their new level (or start at 1).
 */
function shift(state: EditorState, items: Item[], target: number): ChangeSpec[] {
  const delta = target - (items[0] as Item).indent;
  const selected = new Set(items.map((item) => item.line.number));
  const changes = new Map<number, ChangeSpec>();
  const next = new Map<number, number>();
  for (const item of items) {
    const indent = Math.max(0, item.indent + delta);
    let marker = item.bullet;
    if (marker === null) {
      const previous = previousAt(state, item.line.number, indent);
      const number =
        next.get(indent) ??
        (previous?.number != null && previous.delimiter === item.delimiter ? previous.number + 1 : 1);
      next.set(indent, number + 1);
      marker = `${number}${item.delimiter}`;
    }
    const from = item.line.from;
    changes.set(item.line.number, {
      from,
      to: from + item.indent + markerOf(item).length,
      insert: " ".repeat(indent) + marker,
    });
    for (const child of childrenOf(state, item)) {
      if (selected.has(child.number) || changes.has(child.number)) continue;
      changes.set(
        child.number,
        delta > 0
          ? { from: child.from, insert: " ".repeat(delta) }
          : { from: child.from, to: child.from + Math.min(-delta, indentOf(child)) },
      );
    }
  }
  return [...changes.entries()].sort(([a], [b]) => a - b).map(([, change]) => change);
}

/** Tab on list items: they become children of the item above them (the first item of a list has none). */
export const indentListItem: StateCommand = ({ state, dispatch }) => {
  const items = selectedItems(state);
  const first = items?.[0];
  if (!items || !first) return false;
  const sibling = previousAt(state, first.line.number, first.indent);
  if (!sibling) return false;
  dispatch(
    state.update({ changes: shift(state, items, sibling.content), scrollIntoView: true, userEvent: "input.indent" }),
  );
  return true;
};

/** Shift-Tab on list items: they go back to their parent's level, numbered after it. */
export const outdentListItem: StateCommand = ({ state, dispatch }) => {
  const items = selectedItems(state);
  const first = items?.[0];
  if (!items || !first || first.indent === 0) return false;
  const parent = parentOf(state, first);
  dispatch(
    state.update({
      changes: shift(state, items, parent ? parent.indent : 0),
      scrollIntoView: true,
      userEvent: "delete.dedent",
    }),
  );
  return true;
};

/** Enter: continues the list (or the quote); on an empty item, leaves the list or goes up one level. */
export const continueList = insertNewlineContinueMarkupCommand({ nonTightLists: false });

/** The keys of a markdown file's lists, ahead of the editor's defaults (which they fall back to). */
export const listKeymap: readonly KeyBinding[] = [
  { key: "Enter", run: continueList },
  { key: "Backspace", run: deleteMarkupBackward },
  {
    key: "Tab",
    run: (view) => indentListItem(view) || indentMore(view),
    shift: (view) => outdentListItem(view) || indentLess(view),
  },
];

/**
 * `#`s and a space typed on an item that holds nothing else: the line becomes that heading, as a heading
 * typed after a list means to (outside code blocks). Null when the typing is no such thing.
 */
export function headingFromItem(state: EditorState, from: number, to: number, text: string): TransactionSpec | null {
  if (text !== " " || from !== to) return null;
  const line = state.doc.lineAt(from);
  if (from !== line.to) return null;
  const match = /^ *(?:[-+*]|\d{1,9}[.)]) +(#{1,6})$/.exec(line.text);
  if (!match) return null;
  for (
    let node: ReturnType<typeof syntaxTree>["topNode"] | null = syntaxTree(state).resolveInner(from, -1);
    node;
    node = node.parent
  ) {
    if (node.name === "FencedCode" || node.name === "CodeBlock") return null;
  }
  const heading = `${match[1]} `;
  return {
    changes: { from: line.from, to: line.to, insert: heading },
    selection: { anchor: line.from + heading.length },
    userEvent: "input.type",
  };
}

/** Typing a heading on an empty list item (see `headingFromItem`). */
export const headingInList = EditorView.inputHandler.of((view, from, to, text) => {
  const spec = headingFromItem(view.state, from, to, text);
  if (!spec) return false;
  view.dispatch(spec);
  return true;
});
