/* smtp.c - SMTP submission through libcurl: STARTTLS or TLS, authentication from the URL. */
#include "mail_out/smtp.h"
#include "core/limits.h"
#include "xalloc.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct upload {
	const char *data;
	size_t len, off;
};

static size_t read_chunk(char *buf, size_t size, size_t nmemb, void *ctx)
{
	struct upload *u = ctx;
	size_t n = size * nmemb;

	if (n > u->len - u->off)
		n = u->len - u->off;
	memcpy(buf, u->data + u->off, n);
	u->off += n;
	return n;
}

/* SMTP wants CRLF line ends; the outbox keeps LF. */
static char *to_crlf(const char *s, size_t *len)
{
	size_t n = strlen(s), lf = 0;
	char *out, *o;

	for (size_t i = 0; i < n; i++)
		lf += s[i] == '\n' && (i == 0 || s[i - 1] != '\r');
	out = o = xmalloc(n + lf + 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			*o++ = '\r';
		*o++ = s[i];
	}
	*o = 0;
	*len = (size_t)(o - out);
	return out;
}

/* libcurl asks this now and then; non-zero aborts the transfer. */
static int keep_going(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const atomic_int *stop = ctx;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return stop && atomic_load(stop);
}

int smtp_send(const mail_config *mc, const char *recipient, const char *message, const atomic_int *stop,
	      char *why, size_t why_size)
{
	CURL *c = curl_easy_init();
	struct curl_slist *rcpt = NULL;
	struct upload up = {0};
	char *from = xasprintf("<%s>", mc->from), *to = xasprintf("<%s>", recipient);
	long code = 0;
	CURLcode rc;
	int result;

	if (!c) {
		snprintf(why, why_size, "libcurl could not start");
		free(from);
		free(to);
		return SMTP_TEMPORARY;
	}
	up.data = to_crlf(message, &up.len);
	rcpt = curl_slist_append(rcpt, to);
	curl_easy_setopt(c, CURLOPT_URL, mc->smtp_url);
	curl_easy_setopt(c, CURLOPT_USE_SSL, mc->tls == MAIL_TLS_REQUIRE ? (long)CURLUSESSL_ALL :
			 mc->tls == MAIL_TLS_NONE ? (long)CURLUSESSL_NONE : (long)CURLUSESSL_TRY);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_chunk);
	curl_easy_setopt(c, CURLOPT_READDATA, &up);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)up.len);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)LIMIT_SMTP_CONNECT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)LIMIT_SMTP_SEND_S);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, keep_going);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)stop);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK) {
		result = SMTP_SENT;
	} else if (rc == CURLE_ABORTED_BY_CALLBACK) {
		/* Stopped by shutdown. Once the whole message is out, the server may have taken it:
		 * then it is not tried again, so that no mail goes out twice. */
		result = up.off == up.len ? SMTP_PERMANENT : SMTP_TEMPORARY;
		snprintf(why, why_size, "SMTP: interrupted by shutdown %s", result == SMTP_PERMANENT ?
			 "after the message was handed over; not sent again" : "before the message was sent");
	} else {
		/* 5xx is the server's final word; anything else may pass on a later try. */
		result = code >= 500 && code < 600 ? SMTP_PERMANENT : SMTP_TEMPORARY;
		if (code)
			snprintf(why, why_size, "SMTP: %s (server said %ld)", curl_easy_strerror(rc), code);
		else
			snprintf(why, why_size, "SMTP: %s", curl_easy_strerror(rc));
	}
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	free((char *)up.data);
	free(from);
	free(to);
	return result;
}
