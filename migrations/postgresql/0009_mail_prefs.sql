-- 0009_mail_prefs.sql (PostgreSQL): how much mail each address wants: every move (the default), a
-- daily digest at an hour of its choice (UTC), or only the essentials.
-- The counterpart of migrations/0009_mail_prefs.sql.

ALTER TABLE addresses ADD COLUMN mail_mode TEXT COLLATE "C" NOT NULL DEFAULT 'every_move'
	CHECK (mail_mode IN ('every_move', 'digest', 'essentials'));
-- The UTC hour of the digest; NULL until chosen (the default hour then, LIMIT_DIGEST_HOUR_DEFAULT).
ALTER TABLE addresses ADD COLUMN digest_hour BIGINT CHECK (digest_hour BETWEEN 0 AND 23);
-- The UTC day (unix time / 86400) of the last digest: at most one a day.
ALTER TABLE addresses ADD COLUMN digest_day BIGINT NOT NULL DEFAULT 0;
