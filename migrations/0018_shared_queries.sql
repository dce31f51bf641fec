-- 0018: the queries of db/ are the same for SQLite and PostgreSQL, so the lookups by email
-- address say lower(email) = lower(?1), which PostgreSQL's indexes serve (it has no NOCASE), and
-- these indexes let SQLite serve them too. lower() of SQLite folds ASCII letters only, as NOCASE
-- did. The names are PostgreSQL's (migrations/postgresql/0004 and 0005).
DROP INDEX seats_email_nocase;
CREATE INDEX seats_email_nocase ON seats (lower(email));
-- The key an address's upsert names (ON CONFLICT (lower(email))); the NOCASE unique constraint of
-- the column says the same.
CREATE UNIQUE INDEX addresses_email_key ON addresses (lower(email));

-- When a mail was claimed for sending: a daemon that starts while another one still sends treats
-- only the claims older than any sending takes as interrupted (db_outbox_interrupted).
ALTER TABLE outbox ADD COLUMN sending_since INTEGER;
