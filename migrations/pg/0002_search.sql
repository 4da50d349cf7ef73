-- Hand-written: PostgreSQL's search index (src/features/search/search.store.pg.ts), the counterpart of SQLite's
-- FTS5 tables of migration 0015, which the derived schema leaves out. `search_docs` is the same table on both
-- engines; here a stored column `words` holds each row's words as a tsvector (GIN-indexed), and a trigram index
-- on the folded names of files finds any part of a name.
--
-- Words are cut where SQLite's tokenizer (`unicode61 remove_diacritics 2`) cuts them: the characters that separate
-- words are SQLite's own, listed by scripts/pg-search-words.ts, and the text between them is folded (lower case,
-- accents and their combining marks removed by `unaccent`) before PostgreSQL's `simple` configuration reads it.
-- PostgreSQL's own parser alone would read `notes.md` as a host name, `<script>` as a tag it drops and `3.14` as
-- one number, where SQLite reads words. Query words are cut and folded by the same functions, so a document and
-- a query always agree with each other.
--
-- Every function the stored column and the indexes use has a body parsed when it is created (`RETURN` /
-- `BEGIN ATOMIC`): what it calls is bound then, so a restore of `pg_dump` (which runs with an empty search_path)
-- computes the same words.
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Each run of characters that separate words (as SQLite's unicode61 tokenizer has them), as one space.
CREATE FUNCTION tandem_search_spaces(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN regexp_replace(t, '[\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u00a9\u00ab-\u00b1\u00b4\u00b6-\u00b8\u00bb\u00bf\u00d7\u00f7\u02c2-\u02c5\u02d2-\u02df\u02e5-\u02eb\u02ed\u02ef-\u02ff\u0305\u030d-\u030e\u0310\u0312-\u031a\u031c-\u0322\u0329-\u032c\u032f\u0332-\u036f\u0375\u037e\u0384-\u0385\u0387\u03f6\u0482-\u0489\u055a-\u055f\u0589-\u058a\u058f\u0591-\u05c7\u05f3-\u05f4\u0600-\u0604\u0606-\u061b\u061e-\u061f\u064b-\u065f\u066a-\u066d\u0670\u06d4\u06d6-\u06e4\u06e7-\u06ed\u06fd-\u06fe\u0700-\u070d\u070f\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07f6-\u07f9\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0830-\u083e\u0859-\u085b\u085e\u08e4-\u08fe\u0900-\u0903\u093a-\u093c\u093e-\u094f\u0951-\u0957\u0962-\u0965\u0970\u0981-\u0983\u09bc\u09be-\u09c4\u09c7-\u09c8\u09cb-\u09cd\u09d7\u09e2-\u09e3\u09f2-\u09f3\u09fa-\u09fb\u0a01-\u0a03\u0a3c\u0a3e-\u0a42\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a83\u0abc\u0abe-\u0ac5\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2-\u0ae3\u0af0-\u0af1\u0b01-\u0b03\u0b3c\u0b3e-\u0b44\u0b47-\u0b48\u0b4b-\u0b4d\u0b56-\u0b57\u0b62-\u0b63\u0b70\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcd\u0bd7\u0bf3-\u0bfa\u0c01-\u0c03\u0c3e-\u0c44\u0c46-\u0c48\u0c4a-\u0c4d\u0c55-\u0c56\u0c62-\u0c63\u0c7f\u0c82-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd\u0cd5-\u0cd6\u0ce2-\u0ce3\u0d02-\u0d03\u0d3e-\u0d44\u0d46-\u0d48\u0d4a-\u0d4d\u0d57\u0d62-\u0d63\u0d79\u0d82-\u0d83\u0dca\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf\u0df2-\u0df4\u0e31\u0e34-\u0e3a\u0e3f\u0e47-\u0e4f\u0e5a-\u0e5b\u0eb1\u0eb4-\u0eb9\u0ebb-\u0ebc\u0ec8-\u0ecd\u0f01-\u0f1f\u0f34-\u0f3f\u0f71-\u0f87\u0f8d-\u0f97\u0f99-\u0fbc\u0fbe-\u0fcc\u0fce-\u0fda\u102b-\u103e\u104a-\u104f\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d\u108f\u109a-\u109f\u10fb\u135d-\u1368\u1390-\u1399\u1400\u166d-\u166e\u1680\u169b-\u169c\u16eb-\u16ed\u1712-\u1714\u1732-\u1736\u1752-\u1753\u1772-\u1773\u17b4-\u17d6\u17d8-\u17db\u17dd\u1800-\u180e\u18a9\u1920-\u192b\u1930-\u193b\u1940\u1944-\u1945\u19b0-\u19c0\u19c8-\u19c9\u19de-\u19ff\u1a17-\u1a1b\u1a1e-\u1a1f\u1a55-\u1a5e\u1a60-\u1a7c\u1a7f\u1aa0-\u1aa6\u1aa8-\u1aad\u1b00-\u1b04\u1b34-\u1b44\u1b5a-\u1b7c\u1b80-\u1b82\u1ba1-\u1bad\u1be6-\u1bf3\u1bfc-\u1bff\u1c24-\u1c37\u1c3b-\u1c3f\u1c7e-\u1c7f\u1cc0-\u1cc7\u1cd0-\u1ce8\u1ced\u1cf2-\u1cf4\u1dc0-\u1de6\u1dfc-\u1dff\u1fbd\u1fbf-\u1fc1\u1fcd-\u1fcf\u1fdd-\u1fdf\u1fed-\u1fef\u1ffd-\u1ffe\u2000-\u2064\u206a-\u206f\u207a-\u207e\u208a-\u208e\u20a0-\u20b9\u20d0-\u20f0\u2100-\u2101\u2103-\u2106\u2108-\u2109\u2114\u2116-\u2118\u211e-\u2123\u2125\u2127\u2129\u212e\u213a-\u213b\u2140-\u2144\u214a-\u214d\u214f\u2190-\u23f3\u2400-\u2426\u2440-\u244a\u249c-\u24e9\u2500-\u26ff\u2701-\u2775\u2794-\u2b4c\u2b50-\u2b59\u2ce5-\u2cea\u2cef-\u2cf1\u2cf9-\u2cfc\u2cfe-\u2cff\u2d70\u2d7f\u2de0-\u2e2e\u2e30-\u2e3b\u2e80-\u2e99\u2e9b-\u2ef3\u2f00-\u2fd5\u2ff0-\u2ffb\u3000-\u3004\u3008-\u3020\u302a-\u3030\u3036-\u3037\u303d-\u303f\u3099-\u309c\u30a0\u30fb\u3190-\u3191\u3196-\u319f\u31c0-\u31e3\u3200-\u321e\u322a-\u3247\u3250\u3260-\u327f\u328a-\u32b0\u32c0-\u32fe\u3300-\u33ff\u4dc0-\u4dff\ua490-\ua4c6\ua4fe-\ua4ff\ua60d-\ua60f\ua66f-\ua67e\ua69f\ua6f0-\ua6f7\ua700-\ua716\ua720-\ua721\ua789-\ua78a\ua802\ua806\ua80b\ua823-\ua82b\ua836-\ua839\ua874-\ua877\ua880-\ua881\ua8b4-\ua8c4\ua8ce-\ua8cf\ua8e0-\ua8f1\ua8f8-\ua8fa\ua926-\ua92f\ua947-\ua953\ua95f\ua980-\ua983\ua9b3-\ua9cd\ua9de-\ua9df\uaa29-\uaa36\uaa43\uaa4c-\uaa4d\uaa5c-\uaa5f\uaa77-\uaa79\uaa7b\uaab0\uaab2-\uaab4\uaab7-\uaab8\uaabe-\uaabf\uaac1\uaade-\uaadf\uaaeb-\uaaf1\uaaf5-\uaaf6\uabe3-\uabed\ufb1e\ufb29\ufbb2-\ufbc1\ufd3e-\ufd3f\ufdfc-\ufdfd\ufe00-\ufe19\ufe20-\ufe26\ufe30-\ufe52\ufe54-\ufe66\ufe68-\ufe6b\ufeff\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffe6\uffe8-\uffee\ufff9-\uffff\U00010100-\U00010102\U00010137-\U0001013f\U00010179-\U00010189\U00010190-\U0001019b\U000101d0-\U000101fd\U0001039f\U000103d0\U00010857\U0001091f\U0001093f\U00010a01-\U00010a03\U00010a05-\U00010a06\U00010a0c-\U00010a0f\U00010a38-\U00010a3a\U00010a3f\U00010a50-\U00010a58\U00010a7f\U00010b39-\U00010b3f\U00011000-\U00011002\U00011038-\U0001104d\U00011080-\U00011082\U000110b0-\U000110c1\U00011100-\U00011102\U00011127-\U00011134\U00011140-\U00011143\U00011180-\U00011182\U000111b3-\U000111c0\U000111c5-\U000111c8\U000116ab-\U000116b7\U00012470-\U00012473\U00016f51-\U00016f7e\U00016f8f-\U00016f92\U0001d000-\U0001d0f5\U0001d100-\U0001d126\U0001d129-\U0001d1dd\U0001d200-\U0001d245\U0001d300-\U0001d356\U0001d6c1\U0001d6db\U0001d6fb\U0001d715\U0001d735\U0001d74f\U0001d76f\U0001d789\U0001d7a9\U0001d7c3\U0001eef0-\U0001eef1\U0001f000-\U0001f02b\U0001f030-\U0001f093\U0001f0a0-\U0001f0ae\U0001f0b1-\U0001f0be\U0001f0c1-\U0001f0cf\U0001f0d1-\U0001f0df\U0001f110-\U0001f12e\U0001f130-\U0001f16b\U0001f170-\U0001f19a\U0001f1e6-\U0001f202\U0001f210-\U0001f23a\U0001f240-\U0001f248\U0001f250-\U0001f251\U0001f300-\U0001f320\U0001f330-\U0001f335\U0001f337-\U0001f37c\U0001f380-\U0001f393\U0001f3a0-\U0001f3c4\U0001f3c6-\U0001f3ca\U0001f3e0-\U0001f3f0\U0001f400-\U0001f43e\U0001f440\U0001f442-\U0001f4f7\U0001f4f9-\U0001f4fc\U0001f500-\U0001f53d\U0001f540-\U0001f543\U0001f550-\U0001f567\U0001f5fb-\U0001f640\U0001f645-\U0001f64f\U0001f680-\U0001f6c5\U0001f700-\U0001f773\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]+', ' ', 'g');
--> statement-breakpoint
-- Text as it is compared: lower case in every script (ICU's rules; the database's own collation may be "C", which
-- lowers ASCII only), accents removed. A few letters SQLite takes for the same letter that ICU and unaccent keep
-- apart (a final sigma, Greek symbol forms, the micro sign, the long s) are made the same here too.
CREATE FUNCTION tandem_search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN (
  SELECT CASE WHEN f ~ '[åẛϐϵϑϰµϖϱςϕƞɩʀι]' THEN translate(f, 'åẛϐϵϑϰµϖϱςϕƞɩʀι', 'asβεθκμπρσφniri') ELSE f END
  FROM lower(unaccent('unaccent'::regdictionary, t) COLLATE "und-x-icu") AS f
);
--> statement-breakpoint
-- A text's words, folded, one space between them: what `simple` reads (no punctuation is left for its parser to
-- take for a host, a tag or a number). Separators are taken out before folding (unaccent would spell `©` as
-- `(C)`) and after (it spells `½` as `1/2`).
CREATE FUNCTION tandem_search_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN btrim(tandem_search_spaces(tandem_search_fold(tandem_search_spaces(t))));
--> statement-breakpoint
-- A long text's words within PostgreSQL's limit of 1 MB per tsvector: the first 300,000 characters of words with
-- their positions (positions stop at 16,383 anyway), then each other word once, without a position, for as long as
-- the limit allows. A word past that is not found (a text of hundreds of thousands of different words).
CREATE FUNCTION tandem_search_long(words text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
BEGIN ATOMIC
  WITH head AS (
    SELECT to_tsvector('simple'::regconfig, h) AS v, substr(words, char_length(h) + 2) AS rest
    FROM regexp_replace(left(words, 300000), ' [^ ]*$', '') AS h
  ),
  tail AS (
    SELECT t.w, min(t.i) AS first
    FROM head, unnest(string_to_array(head.rest, ' ')) WITH ORDINALITY AS t(w, i)
    WHERE t.w <> '' AND octet_length(t.w) < 2047
    GROUP BY t.w
  ),
  sized AS (SELECT w, sum(octet_length(w) + 8) OVER (ORDER BY first) AS size FROM tail)
  SELECT head.v || array_to_tsvector(coalesce(
    (SELECT array_agg(w) FROM sized WHERE size < 1000000 - pg_column_size(head.v)), '{}'::text[]))
  FROM head;
END;
--> statement-breakpoint
-- The words of an item: its title's weighted A (what `ts_rank` weighs ten times a body's), then its body's. The
-- lexeme `-` (which no text makes) sits between the two for a moment, so that a phrase cannot run from the last
-- word of a title into the first of the body, as an FTS5 phrase cannot run from one column into the next.
CREATE FUNCTION tandem_search_vector(title text, body text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ts_delete(
  setweight(to_tsvector('simple'::regconfig, tandem_search_words(title)), 'A') || '''-'':1'::tsvector
    || (SELECT CASE WHEN octet_length(w) <= 320000 THEN to_tsvector('simple'::regconfig, w) ELSE tandem_search_long(w) END
        FROM tandem_search_words(body) AS w),
  '-'::text
);
--> statement-breakpoint
-- A search's words (a JSON array of strings) as one query: each word a phrase of its parts (`world-wide` is
-- `world <-> wide`), every word required. A word left with no part matches nothing, so the query matches nothing.
CREATE FUNCTION tandem_search_query(words text) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
BEGIN ATOMIC
  SELECT CASE WHEN count(*) = 0 OR bool_or(numnode(q) = 0) THEN NULL
    ELSE string_agg('(' || q::text || ')', ' & ')::tsquery END
  FROM (
    SELECT phraseto_tsquery('simple'::regconfig, tandem_search_words(w)) AS q
    FROM json_array_elements_text(words::json) AS w
  ) AS parts;
END;
--> statement-breakpoint
-- How well an item matches (lower is better, as SQLite's BM25 scores go): a word in a title weighs ten times one
-- in a body (`bm25(search_text, 10.0, 1.0)`), and a long text counts for less.
CREATE FUNCTION tandem_search_score(v tsvector, q tsquery) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN -ts_rank('{0.1, 0.1, 0.1, 1.0}'::real[], v, q, 1);
--> statement-breakpoint
-- A part of a name as a LIKE pattern over folded names: anywhere, its `\`, `%` and `_` taken as themselves. A part
-- that folds to nothing (combining accents alone) matches no name, rather than every one.
CREATE FUNCTION tandem_search_like(part text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN (
  SELECT CASE WHEN f = '' THEN NULL ELSE '%' || replace(replace(replace(f, '\', '\\'), '%', '\%'), '_', '\_') || '%' END
  FROM tandem_search_fold(part) AS f
);
--> statement-breakpoint
-- A name with every place a part (a JSON array of strings) matches it, folded, between the characters 1 and 2, as
-- FTS5's highlight() marks them: places that overlap or touch are one mark. Each character is folded on its own
-- (a folded character may be longer or empty), so a place found in the folded name maps
-- back to the characters it came from.
CREATE FUNCTION tandem_search_mark(title text, parts text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  chars text[] := regexp_split_to_array(title, '');
  n int := char_length(title);
  folded text := '';
  owner int[] := '{}';
  covered bool[] := array_fill(false, ARRAY[n]);
  piece text;
  part text;
  at int;
  found int;
  marked text := '';
  inside bool := false;
BEGIN
  IF octet_length(title) = n THEN
    -- ASCII: each character folds to one.
    folded := lower(title);
    owner := ARRAY(SELECT generate_series(1, n));
  ELSE
    FOR i IN 1 .. n LOOP
      piece := CASE WHEN octet_length(chars[i]) = 1 THEN lower(chars[i]) ELSE tandem_search_fold(chars[i]) END;
      folded := folded || piece;
      owner := owner || array_fill(i, ARRAY[char_length(piece)]);
    END LOOP;
  END IF;
  FOR part IN SELECT tandem_search_fold(p) FROM json_array_elements_text(parts::json) AS p LOOP
    CONTINUE WHEN part = '';
    at := 0;
    LOOP
      found := strpos(substr(folded, at + 1), part);
      EXIT WHEN found = 0;
      at := at + found;
      FOR j IN at .. at + char_length(part) - 1 LOOP
        covered[owner[j]] := true;
      END LOOP;
    END LOOP;
  END LOOP;
  FOR i IN 1 .. n LOOP
    IF covered[i] AND NOT inside THEN
      marked := marked || chr(1);
      inside := true;
    ELSIF NOT covered[i] AND inside THEN
      marked := marked || chr(2);
      inside := false;
    END IF;
    marked := marked || chars[i];
  END LOOP;
  IF inside THEN
    marked := marked || chr(2);
  END IF;
  RETURN marked;
END $$;
--> statement-breakpoint
ALTER TABLE search_docs ADD COLUMN words tsvector GENERATED ALWAYS AS (tandem_search_vector(title, body)) STORED;
--> statement-breakpoint
-- What a database already holds (made by a build without search), oldest first, so `doc` follows creation time
-- as it does from here on; as migration 0015 does for SQLite.
INSERT INTO search_docs (kind, item_id, space_id, parent_id, created_at, title, body, version)
SELECT kind, item_id, space_id, parent_id, created_at, title, body, version FROM (
  SELECT 'message' AS kind, m.id AS item_id, m.space_id, m.room_id AS parent_id, m.created_at, '' AS title,
    replace(replace(m.content, chr(1), chr(65533)), chr(2), chr(65533)) AS body, NULL AS version
  FROM chat_messages m JOIN chat_rooms r ON r.id = m.room_id
  WHERE m.deleted_at IS NULL AND r.deleted_at IS NULL AND m.content <> ''
  UNION ALL
  SELECT 'task', t.id, t.space_id, NULL, t.created_at, replace(replace(t.title, chr(1), chr(65533)), chr(2), chr(65533)),
    replace(replace(t.description, chr(1), chr(65533)), chr(2), chr(65533)), NULL
  FROM tasks t
  UNION ALL
  SELECT 'task_message', c.id, t.space_id, c.task_id, c.created_at, '',
    replace(replace(c.content, chr(1), chr(65533)), chr(2), chr(65533)), NULL
  FROM task_messages c JOIN tasks t ON t.id = c.task_id
  UNION ALL
  -- A text is its UTF-8 bytes here (file_docs.text is bytea); one holding NUL, which no text of PostgreSQL can, is
  -- left unindexed (no version) for the start to index through the store (`SearchService.start`).
  SELECT 'file', n.id, n.space_id, NULL, n.created_at, replace(replace(n.name, chr(1), chr(65533)), chr(2), chr(65533)),
    CASE WHEN d.text IS NULL OR position('\x00'::bytea IN d.text) > 0 THEN ''
      ELSE replace(replace(convert_from(d.text, 'UTF8'), chr(1), chr(65533)), chr(2), chr(65533)) END,
    CASE WHEN d.node_id IS NULL OR position('\x00'::bytea IN d.text) > 0 THEN NULL ELSE n.checksum_sha256 END
  FROM file_nodes n LEFT JOIN file_docs d ON d.node_id = n.id
  WHERE n.deleted_at IS NULL
) AS existing ORDER BY created_at, item_id
-- A build without search still indexed some writes (those indexed in their own transaction).
ON CONFLICT (item_id) DO NOTHING;
--> statement-breakpoint
CREATE INDEX search_docs_words_idx ON search_docs USING gin (words);
--> statement-breakpoint
-- File names by any part of 3 characters or more (`LIKE '%part%'` over the folded name).
CREATE INDEX search_docs_names_idx ON search_docs USING gin (tandem_search_fold(title) gin_trgm_ops) WHERE kind = 'file';
--> statement-breakpoint
-- How far new chat messages are indexed (src/features/search/search.service.ts): from now, as in migration 0015,
-- when there are messages (indexed above). An empty database gets no row: a copy from SQLite (migrate-to-postgres,
-- restore) brings its own into it, and a new install's first start has no message to catch up.
INSERT INTO search_state (name, value)
SELECT 'messages', (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE EXISTS (SELECT 1 FROM chat_messages)
ON CONFLICT (name) DO NOTHING;
