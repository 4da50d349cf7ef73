/**
 * The markdown editor's lists (web/src/features/files/markdown-lists.ts), on CodeMirror's own state with the
 * markdown parser the editor uses: a `|` in a text is the cursor (`[` `]` a selection), before and after.
 */
import { describe, expect, it } from "bun:test";
import { markdownLanguage } from "@codemirror/lang-markdown";
import { ensureSyntaxTree, LanguageSupport } from "@codemirror/language";
import { EditorSelection, EditorState, type StateCommand } from "@codemirror/state";
import {
  continueList,
  headingFromItem,
  indentListItem,
  outdentListItem,
} from "../../web/src/features/files/markdown-lists";

const markdown = new LanguageSupport(markdownLanguage);

function stateOf(marked: string): EditorState {
  const cursor = marked.indexOf("|");
  const text = marked.replace("|", "").replace("[", "").replace("]", "");
  const selection =
    cursor >= 0 ? EditorSelection.cursor(cursor) : EditorSelection.range(marked.indexOf("["), marked.indexOf("]") - 1);
  const state = EditorState.create({ doc: text, selection, extensions: [markdown] });
  ensureSyntaxTree(state, state.doc.length, 5000);
  return state;
}

function shown(state: EditorState): string {
  const text = state.doc.toString();
  const at = state.selection.main.head;
  return `${text.slice(0, at)}|${text.slice(at)}`;
}

/** The text after `command` runs on `marked`; null when the command did nothing. */
function run(command: StateCommand, marked: string): string | null {
  let after: EditorState | null = null;
  const done = command({
    state: stateOf(marked),
    dispatch: (tr) => {
      after = tr.state;
    },
  });
  return done && after ? shown(after) : null;
}

describe("Enter in a list", () => {
  it("continues a bullet list with a new marker", () => {
    expect(run(continueList, "- one|")).toBe("- one\n- |");
  });

  it("on an empty bullet leaves the list, even on its second item (no loose list)", () => {
    expect(run(continueList, "- one\n- |")).toBe("- one\n|");
    expect(run(continueList, "- one\n- two\n- |")).toBe("- one\n- two\n|");
    expect(run(continueList, "Intro\n- one\n- |")).toBe("Intro\n- one\n|");
  });

  it("continues the numbers of a numbered list, and renumbers the items after", () => {
    expect(run(continueList, "1. one|")).toBe("1. one\n2. |");
    expect(run(continueList, "1. one|\n2. two")).toBe("1. one\n2. |\n3. two");
    expect(run(continueList, "1. one\n2. |")).toBe("1. one\n|");
  });

  it("on an empty nested item goes up one level", () => {
    expect(run(continueList, "- one\n  - two\n  - |")).toBe("- one\n  - two\n- |");
  });

  it("is left to the default outside lists and after a heading", () => {
    expect(run(continueList, "plain|")).toBeNull();
    expect(run(continueList, "- one\n\n## Next|")).toBeNull();
  });
});

describe("a heading typed on an empty item", () => {
  const typeSpace = (marked: string) => {
    const state = stateOf(marked);
    const at = state.selection.main.head;
    const spec = headingFromItem(state, at, at, " ");
    return spec ? shown(state.update(spec).state) : null;
  };

  it("makes the line the heading, not a list item holding one", () => {
    expect(typeSpace("- one\n- ##|")).toBe("- one\n## |");
    expect(typeSpace("1. one\n2. #|")).toBe("1. one\n# |");
    expect(typeSpace("- one\n  - ###|")).toBe("- one\n### |");
  });

  it("leaves an item with text, a non-heading, and code blocks alone", () => {
    expect(typeSpace("- one ##|")).toBeNull();
    expect(typeSpace("- #######|")).toBeNull();
    expect(typeSpace("```\n- ##|\n```")).toBeNull();
  });
});

describe("Tab and Shift-Tab on list items", () => {
  it("Tab makes an item a child of the one above; Shift-Tab brings it back", () => {
    expect(run(indentListItem, "- one\n- two|")).toBe("- one\n  - two|");
    expect(run(outdentListItem, "- one\n  - two|")).toBe("- one\n- two|");
  });

  it("an empty item just made by Enter can be indented at once", () => {
    expect(run(indentListItem, "- one\n- |")).toBe("- one\n  - |");
  });

  it("numbered items indent under the item's text and number at their new level", () => {
    expect(run(indentListItem, "1. one\n2. two|")).toBe("1. one\n   1. two|");
    expect(run(indentListItem, "1. one\n   1. sub\n2. two|")).toBe("1. one\n   1. sub\n   2. two|");
    expect(run(outdentListItem, "1. one\n   1. sub\n   2. two|")).toBe("1. one\n   1. sub\n2. two|");
  });

  it("moves the item's own children with it", () => {
    expect(run(indentListItem, "- one\n- two|\n  - child\n- three")).toBe("- one\n  - two|\n    - child\n- three");
    expect(run(outdentListItem, "- one\n  - two|\n    - child")).toBe("- one\n- two|\n  - child");
  });

  it("indents every selected item by one level", () => {
    expect(run(indentListItem, "- one\n[- two\n- three]")).toBe("- one\n  - two\n  - three|");
  });

  it("is left to plain indenting on the first item and outside lists", () => {
    expect(run(indentListItem, "- one|")).toBeNull();
    expect(run(indentListItem, "text|")).toBeNull();
    expect(run(outdentListItem, "- top|")).toBeNull();
  });
});
