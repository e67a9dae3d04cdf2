-- Release views a steward watches (docs/watch.md): re-checked against a risk
-- profile by privrisk.recheck_watched(), with the last verdict. A view that is
-- dropped (its release_view row goes) is forgotten with it.
CREATE TABLE privrisk.watched_view (
    view regclass NOT NULL,
    profile text NOT NULL,
    fail_closed boolean DEFAULT false NOT NULL,
    watched_by name NOT NULL,
    watched_at timestamp with time zone DEFAULT now() NOT NULL,
    passed boolean,
    failed jsonb,
    summary text,
    checked_at timestamp with time zone,
    checked_by name,
    audit_id bigint
);

ALTER TABLE ONLY privrisk.watched_view ADD CONSTRAINT watched_view_pkey PRIMARY KEY (view);

ALTER TABLE ONLY privrisk.watched_view ADD CONSTRAINT watched_view_view_fkey FOREIGN KEY (view) REFERENCES privrisk.release_view(view) ON DELETE CASCADE;

GRANT SELECT ON TABLE privrisk.watched_view TO PUBLIC;

-- Catalog rows are the user's data: pg_dump dumps them.
SELECT pg_catalog.pg_extension_config_dump('privrisk.watched_view', '');
