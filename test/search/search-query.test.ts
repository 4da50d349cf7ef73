/** What a search's text becomes (FTS5 strings, never syntax) and how excerpts are cut, marked and escaped. */
import { describe, expect, it } from "bun:test";
import { excerpt, markup, parseQuery, termsOf } from "../../src/features/search/search.query";

const shown = (marked: string | null) => (marked === null ? null : markup(marked));

describe("parseQuery", () => {
  it("quotes every word, so operators and quotes stay text", () => {
    expect(parseQuery('say "hi" OR NEAR(x)').wordsMatch).toBe('"say" """hi""" "OR" "NEAR(x)"');
  });

  it("leaves words without a letter or digit out of the whole words, and short words out of name parts", () => {
    const parsed = parseQuery("notes - md");
    expect(parsed.wholeWords).toEqual(["notes", "md"]);
    expect(parsed.namePartsMatch).toBeNull();
    expect(parseQuery("aunch .md").namePartsMatch).toBe('"aunch" ".md"');
  });
});

describe("excerpt", () => {
  it("marks every word of the search, ignoring case and accents", () => {
    expect(shown(excerpt("Le Café de Zürich", termsOf(["cafe", "ZURICH"])))).toBe(
      "Le <mark>Café</mark> de <mark>Zürich</mark>",
    );
  });

  it("keeps a short text whole, punctuation included, escaped", () => {
    expect(shown(excerpt("<b>bold</b> & done!", termsOf(["done"])))).toBe(
      "&lt;b&gt;bold&lt;/b&gt; &amp; <mark>done</mark>!",
    );
  });

  it("cuts a long text around where the words are densest, with … where it goes on", () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    words[60] = "target";
    words[62] = "target";
    const cut = excerpt(words.join(" "), termsOf(["target"]), 10) ?? "";
    expect(markup(cut)).toBe("…w57 w58 w59 <mark>target</mark> w61 <mark>target</mark> w63 w64 w65 w66…");
  });

  it("answers null when no word of the text is searched for", () => {
    expect(excerpt("nothing here", termsOf(["else"]))).toBeNull();
  });
});
