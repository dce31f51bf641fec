-- 0009: how much mail each address wants. Every move (the default), a daily digest at an hour
-- of its choice (UTC) of the games waiting for it, or only the essentials (invitations,
-- reminders, results, and the answers to what its owner did).

ALTER TABLE addresses ADD COLUMN mail_mode TEXT NOT NULL DEFAULT 'every_move'
	CHECK (mail_mode IN ('every_move', 'digest', 'essentials'));
-- The UTC hour of the digest; NULL until chosen (the default hour then, LIMIT_DIGEST_HOUR_DEFAULT).
ALTER TABLE addresses ADD COLUMN digest_hour INTEGER CHECK (digest_hour BETWEEN 0 AND 23);
-- The UTC day (unix time / 86400) of the last digest: at most one a day.
ALTER TABLE addresses ADD COLUMN digest_day INTEGER NOT NULL DEFAULT 0;
