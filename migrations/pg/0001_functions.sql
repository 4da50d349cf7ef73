-- Hand-written: the SQLite functions the stores use, with SQLite's answers, under the names the statements'
-- translation gives them (src/db/pg/translate.ts).
-- json_each over a JSON array: one row per element, `value` its text (ids, here), `key` its index.
CREATE FUNCTION tandem_json_each(doc text) RETURNS TABLE (key bigint, value text) LANGUAGE sql IMMUTABLE AS $$
  SELECT t.o - 1, t.e FROM json_array_elements_text(coalesce(doc, '[]')::json) WITH ORDINALITY AS t(e, o)
$$;
--> statement-breakpoint
-- json_extract(doc, '$.a.b'): the value at the path, as text.
CREATE FUNCTION tandem_json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT doc::jsonb #>> string_to_array(substr(path, 3), '.')
$$;
--> statement-breakpoint
-- json_group_array(x): the values of a group as a JSON array's text ('[]' for none).
CREATE FUNCTION tandem_json_agg_step(state jsonb, value anyelement) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(state, '[]'::jsonb) || jsonb_build_array(value)
$$;
--> statement-breakpoint
CREATE FUNCTION tandem_json_agg_final(state jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(state, '[]'::jsonb)::text
$$;
--> statement-breakpoint
CREATE AGGREGATE tandem_json_agg(anyelement) (
  SFUNC = tandem_json_agg_step,
  STYPE = jsonb,
  FINALFUNC = tandem_json_agg_final
);
