/**
 * The results page (`/search?q=…&types=…&space=…`): everything the words find across the spaces the user sees,
 * narrowed by kind (tabs) and space, each result with where it is, its excerpt with the words marked, and when;
 * "Show more" asks for more. The address holds the search, so reload, back and a shared link keep it.
 */
import { type FormEvent, useEffect, useState } from "react";
import { Link, navigate, useLocation } from "../../lib/router";
import { busyProps, dateTime, Empty, ErrorText, Spinner, timeAgo, usePageTitle } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { KINDS, type SearchKind } from "./api";
import { Snippet } from "./snippet";
import { KIND_NAMES, resultHref, searchPageHref } from "./targets";
import { useSearchResults } from "./use-search-results";

const isKind = (s: string): s is SearchKind => (KINDS as readonly string[]).includes(s);

export default function SearchPage() {
  const ws = useWorkspace();
  const { query } = useLocation();
  const q = (query.get("q") ?? "").trim();
  const types = (query.get("types") ?? "").split(",").filter(isKind);
  const spaceParam = query.get("space");
  const spaceId = ws.spaces.some((s) => s.id === spaceParam) ? spaceParam : null;
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  usePageTitle(q ? `“${q}” · Search` : "Search", 1);
  const found = useSearchResults(ws.base, q, types, spaceId);
  const spaceName = new Map(ws.spaces.map((s) => [s.id, s.name]));
  const typeKey = types.length === 1 ? types[0] : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const words = text.trim();
    if (words) navigate(searchPageHref(words, { types, spaceId }));
  };

  return (
    <section className="page-body narrow search-page" aria-labelledby="search-heading">
      <header className="page-head">
        <h1 id="search-heading">Search</h1>
      </header>
      <search>
        <form className="search-form" onSubmit={submit}>
          <input
            type="search"
            aria-label="Search messages, tasks, comments and files"
            placeholder="Search messages, tasks, comments and files"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <button type="submit" className="primary">
            Search
          </button>
        </form>
      </search>
      <div className="search-filters">
        <nav className="tabs" aria-label="Kind">
          {[null, ...KINDS].map((kind) => (
            <Link
              key={kind ?? "all"}
              href={searchPageHref(q, { types: kind ? [kind] : [], spaceId })}
              className={typeKey === kind || (!kind && types.length !== 1) ? "tab active" : "tab"}
              aria-current={typeKey === kind || (!kind && types.length !== 1) ? "page" : undefined}
            >
              {kind ? KIND_NAMES[kind].many : "All"}
            </Link>
          ))}
        </nav>
        <label className="search-space">
          <span className="sr-only">Space</span>
          <select
            value={spaceId ?? ""}
            onChange={(event) => navigate(searchPageHref(q, { types, spaceId: event.target.value || null }))}
          >
            <option value="">All spaces</option>
            {ws.spaces.map((s) => (
              <option key={s.id} value={s.id}>
                {s.private ? "🔒 " : ""}
                {s.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!q ? (
        <Empty>Type words to find the messages, tasks, comments and files that hold them.</Empty>
      ) : found.results === null ? (
        found.error ? (
          <ErrorText error={found.error} />
        ) : (
          <Spinner label="Searching…" />
        )
      ) : found.results.length === 0 ? (
        <Empty>Nothing found for “{q}”.</Empty>
      ) : (
        <>
          <p className="muted small" role="status">
            {found.results.length}
            {found.hasMore ? "+" : ""} {found.results.length === 1 ? "result" : "results"}
          </p>
          <ol className="search-results-list" aria-label="Results">
            {found.results.map((r) => (
              <li key={`${r.type}:${r.id}`} className="search-result">
                <div className="search-result-head">
                  <span className="palette-kind">{KIND_NAMES[r.type].one}</span>
                  <Link href={resultHref(r)} className="search-result-title">
                    {r.type === "message"
                      ? `#${r.title}`
                      : r.type === "task_message"
                        ? `Comment on “${r.title}”`
                        : r.title}
                  </Link>
                  <span className="muted small">{spaceName.get(r.space_id) ?? ""}</span>
                  <time className="muted small" dateTime={r.created_at} title={dateTime(r.created_at)}>
                    {timeAgo(r.created_at)}
                  </time>
                </div>
                <Snippet snippet={r.snippet} className="search-result-snippet" />
              </li>
            ))}
          </ol>
          <ErrorText error={found.error} />
          {found.hasMore && (
            <button type="button" className="search-more" {...busyProps(found.loading)} onClick={found.more}>
              {found.loading ? "Loading more…" : "Show more"}
            </button>
          )}
        </>
      )}
    </section>
  );
}
