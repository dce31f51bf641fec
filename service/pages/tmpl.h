/* tmpl.h - context-escaping HTML template engine over embedded template files. */
#ifndef ROOKERY_TMPL_H
#define ROOKERY_TMPL_H

#include <stddef.h>

#include <jansson.h>

#define TMPL_MESSAGE_MAX 256

/*
 * One file compiled into the binary. data is NUL-terminated (data[len] is
 * '\0') so that text files can be used as C strings.
 */
struct tmpl_file {
	const char *name;  /* basename, e.g. "home.html" */
	const char *data;
	size_t len;
};

/*
 * The embedded files, ended by an entry whose name is NULL. Generated from
 * templates/ by scripts/embed.py at build time (tests may define their own).
 */
extern const struct tmpl_file tmpl_files[];

/* Error codes stored in tmpl_error.code. */
enum tmpl_status {
	TMPL_OK = 0,
	TMPL_E_UNKNOWN = -1,  /* no such template, or not an .html template */
	TMPL_E_SYNTAX = -2,   /* the template is malformed or unsafe to render */
	TMPL_E_PARTIAL = -3,  /* a {{>partial}} names a missing template */
	TMPL_E_DEPTH = -4,    /* partials nest too deeply (runaway recursion) */
	TMPL_E_SIZE = -5,     /* the page would exceed LIMIT_PAGE_SIZE (runaway sections) */
};

/* Why rendering failed; message names the file and, for syntax, line:col. */
typedef struct tmpl_error {
	int code;                         /* one of enum tmpl_status */
	char message[TMPL_MESSAGE_MAX];   /* one sentence, no trailing newline */
} tmpl_error;

/*
 * Render the embedded .html template name with data (usually a JSON object;
 * borrowed, not modified). Returns a NUL-terminated string the caller
 * frees, or NULL with err (which may be NULL) filled in. Every value is
 * escaped for the HTML context its tag stands in; there is no way to
 * output unescaped data. A template is parsed on first use and cached.
 * Safe to call from several threads at once.
 */
char *tmpl_render(const char *name, json_t *data, tmpl_error *err);

/*
 * The raw bytes of the embedded file name (any file, e.g. "style.css"),
 * with its length in *len (len may be NULL). Returns NULL if there is no
 * such file. The bytes are static: do not free them.
 */
const char *tmpl_file_get(const char *name, size_t *len);

/*
 * Parse every embedded .html template and check that no other file
 * contains "{{", so mistakes show up at startup rather than on first
 * render. Returns 0, or -1 with err filled in for the first problem.
 */
int tmpl_check(tmpl_error *err);

/*
 * Free the cache of parsed templates (for leak checkers at exit). Must not
 * run concurrently with tmpl_render; rendering afterwards parses again.
 */
void tmpl_cleanup(void);

#endif
