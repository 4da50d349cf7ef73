-- Hand-written: `search_docs.words` is kept by a trigger rather than as a stored generated column. A generated
-- column's expression is made ready again by every statement that writes the table (its SQL functions inlined
-- and folded: about half a millisecond here), which a batch of many rows pays once but a statement of one row
-- (a new message indexed in its post's transaction) pays each time; a PL/pgSQL trigger keeps its plan for the
-- connection's life. The words stay the same: `tandem_search_vector(title, body)` of every row, new or changed.
ALTER TABLE search_docs ALTER COLUMN words DROP EXPRESSION;
--> statement-breakpoint
CREATE FUNCTION tandem_search_docs_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.words := tandem_search_vector(NEW.title, NEW.body);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_docs_words BEFORE INSERT OR UPDATE OF title, body ON search_docs
FOR EACH ROW EXECUTE FUNCTION tandem_search_docs_words();
