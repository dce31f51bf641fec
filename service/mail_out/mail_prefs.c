/* mail_prefs.c - how much mail an address wants: every move, a daily digest at its hour, or the essentials. */
#include "mail_out/mail_prefs.h"
#include "core/limits.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of enum db_mail_mode in forms, in its order. */
static const char *const mode_names[] = {"every_move", "digest", "essentials"};

int mail_prefs_hour(const db_address *ad)
{
	return ad->digest_hour >= 0 && ad->digest_hour < CLOCK_DAY_HOURS ? ad->digest_hour : LIMIT_DIGEST_HOUR_DEFAULT;
}

/* A whole hour of the day: one or two digits, then nothing, ":00", or " utc" after either. */
static int parse_hour(const char *s, int *hour)
{
	int h = 0, n = 0;

	while (n < 2 && s[n] >= '0' && s[n] <= '9')
		h = h * 10 + (s[n++] - '0');
	if (n == 0 || h >= CLOCK_DAY_HOURS)
		return -1;
	s += n;
	if (!strncmp(s, ":00", 3))
		s += 3;
	if (*s && strcmp(s, " utc"))
		return -1;
	*hour = h;
	return 0;
}

int mail_prefs_from_form(const char *mode, const char *hour, int *mode_out, int *hour_out)
{
	*hour_out = -1;
	for (int i = 0; i < (int)(sizeof mode_names / sizeof *mode_names); i++)
		if (mode && !strcmp(mode, mode_names[i])) {
			*mode_out = i;
			return i == DB_MAIL_DIGEST && (!hour || parse_hour(hour, hour_out)) ? -1 : 0;
		}
	return -1;
}

int mail_prefs_from_command(const char *words, int *mode_out, int *hour_out)
{
	*hour_out = -1;
	if (!strcmp(words, "every move")) {
		*mode_out = DB_MAIL_EVERY_MOVE;
		return 1;
	}
	if (!strcmp(words, "essentials")) {
		*mode_out = DB_MAIL_ESSENTIALS;
		return 1;
	}
	if (strncmp(words, "digest", 6) || (words[6] && words[6] != ' '))
		return 0;
	*mode_out = DB_MAIL_DIGEST;
	return !words[6] || !parse_hour(words + 7, hour_out) ? 1 : -1;
}

const char *mail_prefs_name(const db_address *ad)
{
	return mode_names[ad->mail_mode];
}

void mail_prefs_apply(db_address *ad, int mode, int hour)
{
	ad->mail_mode = mode;
	if (hour >= 0)
		ad->digest_hour = hour;
}

char *mail_prefs_describe(const db_address *ad)
{
	switch (ad->mail_mode) {
	case DB_MAIL_DIGEST:
		return xasprintf("one digest a day at %02d:00 UTC listing the games that wait for you, and the "
				 "essentials (invitations, reminders, results) as they happen", mail_prefs_hour(ad));
	case DB_MAIL_ESSENTIALS:
		return xstrdup("only the essentials: invitations, reminders, results, and the answers to what you "
			       "do by mail");
	default:
		return xstrdup("a mail at every move: whenever it is your move or a draw is offered, and the "
			       "essentials (invitations, reminders, results)");
	}
}

json_t *mail_prefs_model(const db_address *ad)
{
	json_t *hours = json_array();
	int chosen = mail_prefs_hour(ad);
	char label[8], *describe = mail_prefs_describe(ad);
	json_t *model;

	for (int h = 0; h < CLOCK_DAY_HOURS; h++) {
		snprintf(label, sizeof label, "%02d:00", h);
		json_array_append_new(hours, json_pack("{s:i, s:s, s:b}", "value", h, "label", label,
						       "selected", h == chosen));
	}
	model = json_pack("{s:b, s:b, s:b, s:o, s:s}", "every_move", ad->mail_mode == DB_MAIL_EVERY_MOVE,
			 "digest", ad->mail_mode == DB_MAIL_DIGEST, "essentials", ad->mail_mode == DB_MAIL_ESSENTIALS,
			 "hours", hours, "describe", describe);
	free(describe);
	return model;
}
