/* mail_prefs.h - how much mail an address wants: every move, a daily digest at its hour, or the essentials. */
#ifndef ROOKERY_MAIL_PREFS_H
#define ROOKERY_MAIL_PREFS_H

#include "db.h"

#include <jansson.h>

/* The UTC hour of ad's digest: the one its owner chose, else LIMIT_DIGEST_HOUR_DEFAULT. */
int mail_prefs_hour(const db_address *ad);

/*
 * A choice from a form: mode is "every_move", "digest" or "essentials", hour
 * (read for the digest only) a whole UTC hour, "0" to "23". 0 with *mode_out
 * (enum db_mail_mode) and *hour_out set, or -1 when either is not one of those.
 */
int mail_prefs_from_form(const char *mode, const char *hour, int *mode_out, int *hour_out);

/*
 * A choice sent by mail, words being the first line of the reply in lower
 * case with single spaces and no final full stop: "every move", "essentials",
 * "digest" (*hour_out -1: the hour chosen before) or "digest H" (H a UTC hour,
 * 0 to 23, also "07", "7:00", "7 utc"). 1 when words are a choice, 0 when they
 * are something else (a move), -1 when they are "digest" and then no hour.
 */
int mail_prefs_from_command(const char *words, int *mode_out, int *hour_out);

/* The name of ad's choice in forms and logs: "every_move", "digest" or "essentials". */
const char *mail_prefs_name(const db_address *ad);

/* Make ad's choice mode, with hour (-1 keeps its hour) for the digest. */
void mail_prefs_apply(db_address *ad, int mode, int hour);

/* What ad gets, as the end of a sentence ("a daily digest at 07:00 UTC ..."). Caller frees. */
char *mail_prefs_describe(const db_address *ad);

/*
 * The model of the form that changes ad's choice (templates/mail-prefs.html):
 * {"every_move", "digest", "essentials": the one chosen is true, "hours":
 * [{"value", "label", "selected"}], "describe": mail_prefs_describe}. New
 * reference.
 */
json_t *mail_prefs_model(const db_address *ad);

#endif
