/* page.c - what every page shares: rendering, the error page, form tokens, same-origin checks, static files. */
#include "pages/pages.h"
#include "core/errors.h"
#include "core/token.h"
#include "pages/tmpl.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct page_later {
	int status;
	char *name;
	json_t *model;
};

static void page_later_render(void *arg, http_response *res)
{
	struct page_later *p = arg;
	tmpl_error te;
	char *html = tmpl_render(p->name, p->model, &te);

	if (!html) {
		/* A broken template is our bug; say so plainly without recursing into templates. */
		char *msg = xasprintf("internal error: template %s: %s\n", p->name, te.message);
		http_reply(res, 500, "text/plain; charset=utf-8", msg, strlen(msg));
		return;
	}
	http_reply(res, p->status, "text/html; charset=utf-8", html, strlen(html));
}

static void page_later_drop(void *arg)
{
	struct page_later *p = arg;

	json_decref(p->model);
	free(p->name);
	free(p);
}

void page_render(http_request *req, http_response *res, int status, const char *name, json_t *model)
{
	struct page_later *p = xmalloc(sizeof *p);

	(void)req;
	json_object_set_new(model, "version", json_string(ROOKERY_VERSION));
	/* Rendering needs no database: it waits until a change is durable and the writer is free. */
	p->status = status;
	p->name = xstrdup(name);   /* the caller's name may be on its stack */
	p->model = model;
	http_reply_later(res, status, page_later_render, page_later_drop, p);
}

void page_error(http_request *req, http_response *res, int code, const char *message)
{
	page_render(req, res, app_code_status(code), "error.html", json_pack("{s:s, s:s, s:i}",
		"title", "Error", "message", message, "status", app_code_status(code)));
	res->code = code;
}

/*
 * Forms that need no seat (the home page's, /me's) are tied to a random
 * cookie instead: the page sets it when the browser has none and carries its
 * HMAC under the form key; a post must bring both. A cross-site page can
 * neither read the cookie nor make the HMAC. The cookie is __Host- prefixed
 * behind https, so that no sibling host can plant one.
 */
static const char *form_cookie_name(const app *a)
{
	return strncmp(a->base_url, "https://", 8) ? "rookery_form" : "__Host-rookery_form";
}

json_t *page_form_csrf(http_request *req, http_response *res)
{
	const char *cookie = http_cookie(req, form_cookie_name(req->app));
	char fresh[TOKEN_TEXT], csrf[FORM_TOKEN_TEXT];

	if (!token_well_formed(cookie)) {
		int secure = !strncmp(req->app->base_url, "https://", 8);
		token_new(fresh);
		free(res->set_cookie);
		res->set_cookie = xasprintf("%s=%s; Path=/; HttpOnly; SameSite=Strict%s",
					    form_cookie_name(req->app), fresh, secure ? "; Secure" : "");
		cookie = fresh;
	}
	token_form(req->app->form_key, cookie, csrf);
	return json_string(csrf);
}

int page_form_ok(http_request *req)
{
	const char *cookie = http_cookie(req, form_cookie_name(req->app));
	char *csrf = http_form_field(req, "csrf");
	int ok = token_well_formed(cookie) && token_form_ok(req->app->form_key, cookie, csrf);

	free(csrf);
	return ok;
}

/*
 * Cross-site check. Browsers say where a form came from in Sec-Fetch-Site
 * and Origin. Our pages' Referrer-Policy (strict-origin) lets browsers name
 * our origin in the Origin of our own forms, so "Origin: null" (a sandboxed
 * frame, a data: page, a redirect from elsewhere) is always refused. The
 * Origin must be the scheme://host[:port] of the base URL, or match the Host
 * the request came to. A request without Origin is no browser's form post;
 * the per-form tokens guard every form all the same.
 */
int page_same_origin(http_request *req)
{
	const char *origin = http_header(req, "Origin"), *host = http_header(req, "Host");
	const char *site = http_header(req, "Sec-Fetch-Site");
	const char *base = req->app->base_url, *scheme_end = strstr(base, "://");
	size_t base_len;

	if (site && strcasecmp(site, "same-origin") && strcasecmp(site, "none"))
		return 0;
	if (!origin)
		return 1;
	if (!strcmp(origin, "null"))
		return 0;
	if (scheme_end) {
		const char *path = strchr(scheme_end + 3, '/');
		base_len = path ? (size_t)(path - base) : strlen(base);
		if (strlen(origin) == base_len && !strncasecmp(origin, base, base_len))
			return 1;
	}
	if (host) {
		const char *rest = strstr(origin, "://");
		if (rest && !strcasecmp(rest + 3, host))
			return 1;
	}
	return 0;
}

void page_asset(http_request *req, http_response *res)
{
	static const struct { const char *path, *file, *type; } assets[] = {
		{"/style.css", "style.css", "text/css; charset=utf-8"},
		{"/play.js", "play.js", "text/javascript; charset=utf-8"},
		{"/favicon.svg", "favicon.svg", "image/svg+xml"},
		{"/setup.js", "setup.js", "text/javascript; charset=utf-8"},
	};
	size_t len;

	for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
		const char *data;
		if (strcmp(req->path, assets[i].path) || !(data = tmpl_file_get(assets[i].file, &len)))
			continue;
		char *copy = xmalloc(len + 1);
		memcpy(copy, data, len + 1);
		return http_reply(res, 200, assets[i].type, copy, len);
	}
	http_reply_error(req, res, E_NOT_FOUND, "no such file");
}
