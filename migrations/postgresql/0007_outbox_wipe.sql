-- 0007_outbox_wipe.sql (PostgreSQL): mails already sent or given up keep their headers but not
-- their bodies, whose seat links and reply addresses act for the recipient. The counterpart of
-- migrations/0007_outbox_wipe.sql.
--
-- SQLite's rookery_outbox_kept is C registered on each connection (db/db_mail.c); here it is a
-- function of the schema doing the same, so that the statements that mark a mail sent or failed
-- wipe it in the same way: the header lines Date, From, To, Subject, Message-ID, In-Reply-To and
-- References (names in any case, with their continuation lines) up to the first empty line, each
-- ending in a line feed, then an empty line and DB_OUTBOX_WIPED (db/db.h) with a line feed.
CREATE FUNCTION rookery_outbox_kept(message TEXT) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	line TEXT;
	keep BOOLEAN := false;
	kept TEXT := '';
BEGIN
	FOREACH line IN ARRAY string_to_array(message, E'\n') LOOP
		EXIT WHEN line = '' OR line = E'\r';
		IF left(line, 1) NOT IN (' ', E'\t') THEN
			keep := strpos(line, ':') > 0 AND lower(split_part(line, ':', 1)) IN
				('date', 'from', 'to', 'subject', 'message-id', 'in-reply-to', 'references');
		END IF;
		IF keep THEN
			kept := kept || line || E'\n';
		END IF;
	END LOOP;
	RETURN kept || E'\n' || '[Body removed once the mail was sent or given up: its links acted for the recipient.]' || E'\n';
END
$$;

UPDATE outbox SET message = rookery_outbox_kept(message) WHERE state IN ('sent', 'failed');
