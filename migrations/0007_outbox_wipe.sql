-- 0007_outbox_wipe.sql: mails already sent or given up keep their headers but not their bodies,
-- whose seat links and reply addresses act for the recipient. New ones are wiped as they are
-- marked (db_mail.c); rookery_outbox_kept is registered by the daemon on its connection.
UPDATE outbox SET message = rookery_outbox_kept(message) WHERE state IN ('sent', 'failed');
