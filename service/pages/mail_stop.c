/* mail_stop.c - the owner of an address decides what mail it gets: the unsubscribe page and RFC 8058's one click. */
#include "core/errors.h"
#include "core/log.h"
#include "core/token.h"
#include "mail_out/consent.h"
#include "mail_out/mail_prefs.h"
#include "pages/pages.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The address of an unsubscribe token, or NULL with err filled. */
static int stop_address(http_request *req, db_address *ad, app_error *err)
{
	long long id;
	db_error de;
	int r;

	if (!req->app->mail || mail_stop_token_check(req->app->mail_key, req->params[0], &id))
		return app_fail(err, E_NOT_FOUND, "this unsubscribe link is not valid");
	r = db_address_by_id(app_db(req->app), id, ad, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_NOT_FOUND, "this unsubscribe link is not valid");
	if (r)
		return app_fail(err, E_INTERNAL, "the server could not do this; try again later");
	return 0;
}

json_t *page_mail_prefs(app *a, const db_address *ad)
{
	char token[MAIL_TOKEN_TEXT], csrf[FORM_TOKEN_TEXT];
	json_t *model = mail_prefs_model(ad);

	/* The form posts to the address's own page, with that page's form token. */
	mail_stop_token_make(a->mail_key, ad->id, token);
	token_form(a->form_key, token, csrf);
	json_object_set_new(model, "token", json_string(token));
	json_object_set_new(model, "csrf", json_string(csrf));
	return model;
}

static void render(http_request *req, http_response *res, const db_address *ad, const char *done)
{
	char csrf[FORM_TOKEN_TEXT];

	token_form(req->app->form_key, req->params[0], csrf);
	page_render(req, res, 200, "mail-stop.html", json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:s?, s:o}",
		"title", "Mail from Rookery", "email", ad->email, "token", req->params[0], "csrf", csrf,
		"stopped", ad->stopped, "no_invites", ad->no_invites, "paused", ad->stopped || ad->no_invites,
		"done", done, "prefs", page_mail_prefs(req->app, ad)));
}

/* The choice of the form's fields mode and hour made ad's; a sentence saying so, or NULL when not a choice. */
static const char *choose_mode(http_request *req, db_address *ad)
{
	char *mode = http_form_field(req, "mode"), *hour = http_form_field(req, "hour");
	int m, h, bad = mail_prefs_from_form(mode, hour, &m, &h);

	free(mode);
	free(hour);
	if (bad)
		return NULL;
	mail_prefs_apply(ad, m, h);
	return m == DB_MAIL_DIGEST ? "Done: mail about your games comes as one digest a day." :
		m == DB_MAIL_ESSENTIALS ? "Done: only the essentials from now on." :
		"Done: a mail at every move from now on.";
}

/* GET: only shows what the address gets, with buttons; mail scanners follow links. */
void page_mail_stop(http_request *req, http_response *res)
{
	db_address ad;
	app_error err = {0};

	if (stop_address(req, &ad, &err))
		return http_reply_error(req, res, err.code, err.message);
	render(req, res, &ad, NULL);
	db_address_clear(&ad);
}

/*
 * POST: a mail provider's one click (RFC 8058: the body is
 * "List-Unsubscribe=One-Click", in any form encoding, and the link itself is
 * the credential) stops all mail; the page's own form says what to do.
 */
void page_mail_stop_post(http_request *req, http_response *res)
{
	db_address ad = {0};
	app_error err = {0};
	db_error de;
	const char *done = NULL;
	char *action = NULL, *csrf = NULL;

	/* A mail provider's POST has no Origin; a browser's from elsewhere (or from nowhere) is refused. */
	if (!page_same_origin(req)) {
		app_fail(&err, E_FORBIDDEN, "this form was sent from another site");
		goto out;
	}
	if (stop_address(req, &ad, &err))
		goto out;
	if (req->body && strstr(req->body, "List-Unsubscribe=One-Click")) {
		ad.stopped = 1;
		done = "Done: this server sends no more mail to this address.";
	} else {
		action = http_form_field(req, "action");
		csrf = http_form_field(req, "csrf");
		if (!token_form_ok(req->app->form_key, req->params[0], csrf)) {
			app_fail(&err, E_FORBIDDEN, "the form has expired; reload the page and try again");
			goto out;
		}
		if (action && !strcmp(action, "stop")) {
			ad.stopped = 1;
			done = "Done: this server sends no more mail to this address.";
		} else if (action && !strcmp(action, "invitations")) {
			ad.no_invites = 1;
			done = "Done: no more invitations to new games; mail about your games goes on.";
		} else if (action && !strcmp(action, "resume")) {
			ad.stopped = ad.no_invites = 0;
			done = "Done: mail about your games goes to this address again.";
		} else if (action && !strcmp(action, "mail_mode")) {
			if (!(done = choose_mode(req, &ad))) {
				app_fail(&err, E_BAD_REQUEST, "choose every move, a daily digest at a whole hour "
					 "(0 to 23, UTC), or only the essentials");
				goto out;
			}
		} else {
			app_fail(&err, E_BAD_REQUEST, "choose one of the buttons");
			goto out;
		}
	}
	if (db_begin(app_db(req->app), &de) || db_address_save(app_db(req->app), &ad, &de) || db_commit(app_db(req->app), &de)) {
		db_rollback(app_db(req->app));
		log_event("cannot record a mail preference: %s", de.message);
		app_fail(&err, E_INTERNAL, "the server could not store this; nothing was changed");
		goto out;
	}
	log_event("mail preference of address %lld: %s, %s, digest hour %d", ad.id, ad.stopped ? "no mail" :
		  ad.no_invites ? "no invitations" : "all mail", mail_prefs_name(&ad), mail_prefs_hour(&ad));
	render(req, res, &ad, done);
out:
	if (err.code)
		http_reply_error(req, res, err.code, err.message);
	db_address_clear(&ad);
	free(action);
	free(csrf);
}
