-- 0002_mail.sql: the outbox of notification mails, incoming mails seen, sign-in links, rate limits.

-- A mail is composed whole when its state change commits, and sent later by the delivery worker.
CREATE TABLE outbox (
	id              INTEGER PRIMARY KEY,
	game_id         TEXT,                  -- NULL for mails about no game (sign-in links)
	kind            TEXT NOT NULL,         -- invitation, your_turn, accepted, refused, draw_offer, game_over, signin
	recipient       TEXT NOT NULL,
	message         TEXT NOT NULL,         -- the complete RFC 5322 message
	state           TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'failed')),
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_attempt_at INTEGER NOT NULL,      -- unix time
	last_error      TEXT,
	created_at      TEXT NOT NULL,
	sent_at         TEXT
) STRICT;
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);

-- Incoming mails already handled, so that a message delivered twice acts once.
CREATE TABLE mail_seen (
	message_id TEXT PRIMARY KEY,
	result     TEXT NOT NULL,
	at         TEXT NOT NULL
) STRICT;

-- Further seat links, minted for a player who signed in by email; stored hashed like seat tokens.
CREATE TABLE seat_links (
	token_hash BLOB PRIMARY KEY,
	game_id    TEXT NOT NULL REFERENCES games(id),
	seat       INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;

-- Sign-in links sent by mail ("my games").
CREATE TABLE signin_tokens (
	token_hash BLOB PRIMARY KEY,
	email      TEXT NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;

-- Fixed-window counters for rate limits, keyed by what is limited.
CREATE TABLE rate_limits (
	key          TEXT PRIMARY KEY,
	window_start INTEGER NOT NULL,
	count        INTEGER NOT NULL
) STRICT;

CREATE INDEX seats_email ON seats (email);
