-- Hand-written (search_docs is declared in 0015, not in the drizzle schema): each space's newest indexed item, so a
-- search of a few quiet spaces starts at their own newest item instead of walking every newer match of busier
-- spaces (src/features/search/).
CREATE INDEX `search_docs_space_idx` ON `search_docs` (`space_id`, `doc`);
