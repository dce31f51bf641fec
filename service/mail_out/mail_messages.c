/* mail_messages.c - the messages a seat has not had by mail yet, in the text of its next mail. */
#include "mail_out/mail_messages.h"
#include "core/limits.h"

#include <string.h>

int mail_messages_append(app *a, const game_loaded *g, int seat, GString *t, long long *upto, db_error *err)
{
	long long mailed;
	db_message *v;
	size_t n;
	int r;

	if ((r = db_messages_mailed_get(app_db(a), g->rec->id, seat, &mailed, err)) ||
	    (r = db_messages_for(app_db(a), g->rec->id, seat, mailed + 1, LIMIT_MESSAGES_PER_MAIL + 1, 1, &v, &n, err)))
		return r;
	*upto = 0;
	if (!n)
		return 0;
	size_t shown = n > LIMIT_MESSAGES_PER_MAIL ? LIMIT_MESSAGES_PER_MAIL : n;
	g_string_append_printf(t, "\n%s for you since Rookery last wrote:\n", shown == 1 ? "A message" : "Messages");
	for (size_t i = 0; i < shown; i++) {
		const db_message *m = &v[i];
		g_string_append_printf(t, "\n%s (%s) to %s, %.10s %.5s UTC:\n", g->rules->seat_names[m->from_seat],
				       g->rec->seats[m->from_seat].name, m->to_seat >= 0 ? "you only" : "everyone",
				       m->at, m->at + 11);
		/* Indented, so that no line of it reads as Rookery's own. */
		for (const char *line = m->text; line;) {
			const char *nl = strchr(line, '\n');
			int len = nl ? (int)(nl - line) : (int)strlen(line);
			g_string_append_printf(t, "    %.*s\n", len, line);
			line = nl ? nl + 1 : NULL;
		}
	}
	if (n > shown)
		g_string_append(t, "\nMore messages wait on the game page, and come with the next mail.\n");
	*upto = v[shown - 1].seq;
	db_messages_free(v, n);
	return 0;
}
