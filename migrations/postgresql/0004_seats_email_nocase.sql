-- 0004_seats_email_nocase.sql (PostgreSQL): a player's seats are looked up by email address
-- case-insensitively ("my games"). The counterpart of migrations/0004_seats_email_nocase.sql,
-- whose index is on email COLLATE NOCASE: here it is on lower(email), which only a query that
-- says lower(email) = lower($1) can use (SQLite's says email = ?1 COLLATE NOCASE). The column is
-- COLLATE "C", so lower() folds ASCII letters only, as NOCASE does.
CREATE INDEX seats_email_nocase ON seats (lower(email));
