-- 0005: mail that nobody can aim at a stranger. An address hears from Rookery once (the
-- invitation) until its owner acts; its owner can stop all mail or further invitations; a daily
-- cap holds back what is over it for one summary the next day. Each seat has one live reply
-- address at a time: the latest one mailed to it, usable once.

CREATE TABLE addresses (
	id          INTEGER PRIMARY KEY,
	email       TEXT NOT NULL UNIQUE COLLATE NOCASE,
	consent     TEXT NOT NULL DEFAULT 'none' CHECK (consent IN ('none', 'invited', 'confirmed')),
	stopped     INTEGER NOT NULL DEFAULT 0,    -- the owner wants no mail at all
	no_invites  INTEGER NOT NULL DEFAULT 0,    -- the owner wants no further invitations
	day         INTEGER NOT NULL DEFAULT 0,    -- the UTC day (unix time / 86400) day_count counts
	day_count   INTEGER NOT NULL DEFAULT 0     -- mails queued to the address that day
) STRICT;

-- Mails not sent because of the daily cap: only what they were about, never their text.
CREATE TABLE held_mails (
	address_id INTEGER NOT NULL REFERENCES addresses(id),
	game_id    TEXT,
	kind       TEXT NOT NULL,
	day        INTEGER NOT NULL
) STRICT;
CREATE INDEX held_mails_address ON held_mails (address_id);

-- Addresses that already had mail before this version keep getting it.
INSERT INTO addresses (email, consent)
	SELECT email, 'confirmed' FROM seats WHERE email IS NOT NULL GROUP BY email COLLATE NOCASE;

-- The reply address last mailed to a seat: play+<game>-<seat>-<reply_serial>-<mac>. It stands
-- for the game at reply_ply and acts once (reply_used); every earlier one is dead.
ALTER TABLE seats ADD COLUMN reply_serial INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN reply_ply INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN reply_used INTEGER NOT NULL DEFAULT 1;
