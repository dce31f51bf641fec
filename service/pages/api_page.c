/* api_page.c - the API contract: docs/openapi.yaml served as JSON, and the page /api that summarises it. */
#include "pages/pages.h"
#include "core/errors.h"
#include "pages/tmpl.h"
#include "xalloc.h"

#include <ctype.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* The contract as the build made it from docs/openapi.yaml (scripts/yaml2json.py), embedded with the templates. */
#define CONTRACT_FILE "openapi.json"

static const char *const methods[] = {"get", "put", "post", "delete", "options", "head", "patch", "trace"};

/* The contract never changes while the server runs: its tag is made once. */
static char contract_tag[2 * crypto_generichash_BYTES_MIN + 3];
static pthread_once_t contract_tag_once = PTHREAD_ONCE_INIT;

static void make_contract_tag(void)
{
	unsigned char hash[crypto_generichash_BYTES_MIN];
	char hex[2 * sizeof hash + 1];
	size_t len = 0;
	const char *doc = tmpl_file_get(CONTRACT_FILE, &len);

	crypto_generichash(hash, sizeof hash, (const unsigned char *)(doc ? doc : ""), len, NULL, 0);
	sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
	snprintf(contract_tag, sizeof contract_tag, "\"%s\"", hex);
}

void page_api_contract(http_request *req, http_response *res)
{
	size_t len;
	const char *doc = tmpl_file_get(CONTRACT_FILE, &len);

	if (!doc)
		return http_reply_error(req, res, E_INTERNAL, "the contract is not built in");
	pthread_once(&contract_tag_once, make_contract_tag);
	http_validated(res, contract_tag, 0);
	if (http_etag_held(req, contract_tag))
		return http_reply_not_modified(res);
	char *copy = xmalloc(len + 1);
	memcpy(copy, doc, len + 1);
	http_reply(res, 200, "application/json", copy, len);
}

/* ---- the page: the document read into the model of templates/api.html ---- */

/*
 * Text of the document for the page: {"parts": [{"text", "code"}...]}, the
 * spans between backquotes marked as code; JSON null for no text.
 */
static json_t *prose(const char *text)
{
	json_t *parts;
	int code = 0;

	if (!text || !*text)
		return json_null();
	parts = json_array();
	for (const char *p = text; *p; code = !code) {
		size_t n = strcspn(p, "`");
		if (n)
			json_array_append_new(parts, json_pack("{s:s%, s:b}", "text", p, n, "code", code));
		p += n + (p[n] == '`');
	}
	return json_pack("{s:o}", "parts", parts);
}

/* What node means: node itself, or the part of doc its local "$ref" names. */
static json_t *resolved(json_t *doc, json_t *node)
{
	for (int hops = 0; hops < 8; hops++) {
		const char *ref = json_string_value(json_object_get(node, "$ref"));
		if (!ref || strncmp(ref, "#/", 2) != 0 || json_object_size(node) != 1)
			return node;
		json_t *at = doc;
		char part[128];
		for (const char *p = ref + 2; at && *p;) {
			size_t n = strcspn(p, "/");
			snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
			at = json_object_get(at, part);
			p += n + (p[n] == '/');
		}
		if (!at)
			return node;
		node = at;
	}
	return node;
}

/* The last part of a "$ref" ("#/components/schemas/Game" names "Game"), or NULL. */
static const char *ref_name(const json_t *schema)
{
	const char *ref = json_string_value(json_object_get(schema, "$ref"));
	const char *slash = ref ? strrchr(ref, '/') : NULL;

	return slash ? slash + 1 : ref;
}

static void append(char *out, size_t size, const char *s)
{
	size_t n = strlen(out);

	if (n + 1 < size)
		snprintf(out + n, size - n, "%s", s);
}

/* A schema in a few words: its object's name, its type, "array of ...", "A or B", a constant. */
static void schema_words(const json_t *schema, char *out, size_t size, int depth)
{
	const json_t *t = json_object_get(schema, "type"), *alt = json_object_get(schema, "oneOf"), *v;
	const char *name = ref_name(schema);
	size_t i;

	if (depth > 4) {
		append(out, size, "...");
	} else if (name) {
		append(out, size, name);
	} else if (json_object_get(schema, "const")) {
		char *c = json_dumps(json_object_get(schema, "const"), JSON_ENCODE_ANY);
		append(out, size, c ? c : "?");
		free(c);
	} else if (json_is_array(alt)) {
		json_array_foreach(alt, i, v) {
			if (i)
				append(out, size, " or ");
			schema_words(v, out, size, depth + 1);
		}
	} else if (json_is_array(t)) {
		json_array_foreach(t, i, v) {
			if (i)
				append(out, size, " or ");
			append(out, size, json_string_value(v));
		}
	} else if (json_is_string(t) && !strcmp(json_string_value(t), "array")) {
		append(out, size, "array of ");
		schema_words(json_object_get(schema, "items"), out, size, depth + 1);
	} else if (json_is_string(t)) {
		append(out, size, json_string_value(t));
	} else {
		append(out, size, "any");
	}
	if (json_is_array(json_object_get(schema, "enum"))) {
		append(out, size, ": ");
		json_array_foreach(json_object_get(schema, "enum"), i, v) {
			char *e = json_dumps(v, JSON_ENCODE_ANY);
			append(out, size, i ? ", " : "");
			append(out, size, e ? e : "?");
			free(e);
		}
	}
}

static json_t *words_of(const json_t *schema)
{
	char text[256] = "";

	schema_words(schema, text, sizeof text, 0);
	return json_string(text);
}

/* Who may call an operation, from its security list. */
static const char *auth_words(const json_t *security)
{
	int none = 0, seat = 0, player = 0;
	size_t i;
	json_t *req;

	if (!json_is_array(security) || !json_array_size(security))
		return "none";
	json_array_foreach(security, i, req) {
		none |= json_object_size(req) == 0;
		seat |= json_object_get(req, "seatToken") != NULL;
		player |= json_object_get(req, "playerToken") != NULL;
	}
	if (player)
		return "a seat token or the player's token (Authorization: Bearer)";
	if (seat)
		return none ? "optional, a seat token (Authorization: Bearer)" : "a seat token (Authorization: Bearer)";
	return "none";
}

/* The error codes an answer's schema allows (its error.code's const or enum), as "a, b"; "" for none. */
static json_t *codes_of(json_t *doc, json_t *schema)
{
	json_t *code = json_object_get(json_object_get(json_object_get(json_object_get(
		schema, "properties"), "error"), "properties"), "code"), *list, *v;
	char text[512] = "";
	size_t i;

	if (!code)
		return json_string("");
	code = resolved(doc, code);
	if (json_is_string(json_object_get(code, "const")))
		return json_string(json_string_value(json_object_get(code, "const")));
	list = json_object_get(code, "enum");
	json_array_foreach(list, i, v) {
		append(text, sizeof text, i ? ", " : "");
		append(text, sizeof text, json_string_value(v));
	}
	return json_string(text);
}

/* The answers of an operation as rows: status, content type, schema, when, codes. */
static json_t *answers_of(json_t *doc, json_t *responses)
{
	json_t *rows = json_array(), *r;
	const char *status;

	json_object_foreach(responses, status, r) {
		json_t *resp = resolved(doc, r), *content = json_object_get(resp, "content"), *media;
		json_t *row = json_pack("{s:s, s:o}", "status", status, "description",
					prose(json_string_value(json_object_get(resp, "description"))));
		const char *type, *header;
		char headers[128] = "";
		json_t *h;

		json_object_foreach(json_object_get(resp, "headers"), header, h) {
			append(headers, sizeof headers, headers[0] ? ", " : "");
			append(headers, sizeof headers, header);
		}
		json_object_set_new(row, "headers", json_string(headers));
		json_object_foreach(content, type, media) {
			json_t *schema = json_object_get(media, "schema");
			json_object_set_new(row, "type", json_string(type));
			json_object_set_new(row, "schema", words_of(schema));
			json_object_set_new(row, "ref", ref_name(schema) ? json_string(ref_name(schema)) : json_null());
			json_object_set_new(row, "codes", codes_of(doc, schema));
			break;     /* every answer here has one content type */
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

/* The parameters of an operation (its path's, then its own) as rows. */
static json_t *params_of(json_t *doc, json_t *item, json_t *op)
{
	json_t *rows = json_array(), *lists[2] = {json_object_get(item, "parameters"), json_object_get(op, "parameters")};

	for (int l = 0; l < 2; l++) {
		size_t i;
		json_t *p;
		json_array_foreach(lists[l], i, p) {
			p = resolved(doc, p);
			json_array_append_new(rows, json_pack("{s:s?, s:s?, s:o, s:s, s:o}",
				"name", json_string_value(json_object_get(p, "name")),
				"in", json_string_value(json_object_get(p, "in")),
				"type", words_of(json_object_get(p, "schema")),
				"required", json_is_true(json_object_get(p, "required")) ? "yes" : "no",
				"description", prose(json_string_value(json_object_get(p, "description")))));
		}
	}
	return rows;
}

/* An anchor for an operation: "get-api-games-id-moves". */
static json_t *anchor_of(const char *method, const char *path)
{
	char a[160];
	size_t n = 0;
	int dash = 0;

	n += (size_t)snprintf(a, sizeof a, "%s", method);
	for (const char *p = path; *p && n + 2 < sizeof a; p++) {
		if (isalnum((unsigned char)*p)) {
			if (dash)
				a[n++] = '-';
			a[n++] = (char)tolower((unsigned char)*p);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	a[n] = 0;
	return json_string(a);
}

static json_t *endpoints_of(json_t *doc)
{
	json_t *list = json_array(), *item;
	const char *path;

	json_object_foreach(json_object_get(doc, "paths"), path, item) {
		for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
			json_t *op = json_object_get(item, methods[m]);
			if (!op)
				continue;
			char upper[8];
			size_t k;
			for (k = 0; methods[m][k] && k + 1 < sizeof upper; k++)
				upper[k] = (char)toupper((unsigned char)methods[m][k]);
			upper[k] = 0;
			const char *summary = json_string_value(json_object_get(op, "summary"));
			json_t *params = params_of(doc, item, op);
			json_t *e = json_pack("{s:s, s:s, s:o, s:s, s:o, s:s, s:b, s:o}", "method", upper, "path", path,
				"anchor", anchor_of(methods[m], path), "summary", summary ? summary : "",
				"description", prose(json_string_value(json_object_get(op, "description"))),
				"auth", auth_words(json_object_get(op, "security")),
				"has_params", json_array_size(params) > 0, "params", params);
			json_t *body = json_object_get(op, "requestBody"), *media;
			const char *type;
			json_object_foreach(json_object_get(body, "content"), type, media) {
				const json_t *schema = json_object_get(media, "schema");
				json_object_set_new(e, "body", json_pack("{s:s, s:o, s:s?, s:b}", "type", type, "schema",
					words_of(schema), "ref", ref_name(schema),
					"optional", !json_is_true(json_object_get(body, "required"))));
				break;
			}
			json_object_set_new(e, "answers", answers_of(doc, json_object_get(op, "responses")));
			json_array_append_new(list, e);
		}
	}
	return list;
}

/* The objects of components.schemas, each with its fields. */
static json_t *schemas_of(json_t *doc)
{
	json_t *list = json_array(), *s;
	const char *name;

	json_object_foreach(json_object_get(json_object_get(doc, "components"), "schemas"), name, s) {
		json_t *props = json_array(), *p, *required = json_object_get(s, "required");
		const char *field;

		json_object_foreach(json_object_get(s, "properties"), field, p) {
			int always = 0;
			size_t i;
			json_t *r;
			json_array_foreach(required, i, r)
				always |= !strcmp(json_string_value(r) ? json_string_value(r) : "", field);
			json_array_append_new(props, json_pack("{s:s, s:o, s:s}", "name", field, "type", words_of(p),
							       "required", always ? "yes" : "no"));
		}
		json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:b, s:o}", "name", name,
			"description", prose(json_string_value(json_object_get(s, "description"))),
			"type", words_of(s), "has_props", json_array_size(props) > 0, "props", props));
	}
	return list;
}

/* The error codes of ErrorCode, each with its status (its x-status). */
static json_t *errors_of(json_t *doc)
{
	json_t *list = json_array(), *code;
	json_t *ec = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "ErrorCode");
	size_t i;

	json_array_foreach(json_object_get(ec, "enum"), i, code) {
		json_t *status = json_object_get(json_object_get(ec, "x-status"), json_string_value(code));
		json_array_append_new(list, json_pack("{s:O, s:I}", "code", code, "status",
						      (json_int_t)json_integer_value(status)));
	}
	return list;
}

/* The paragraphs of a description (split at blank lines), each as prose. */
static json_t *paragraphs(const char *text)
{
	json_t *list = json_array();

	while (text && *text) {
		const char *end = strstr(text, "\n\n");
		size_t n = end ? (size_t)(end - text) : strlen(text);
		if (n) {
			char *one = xstrndup(text, n);
			json_array_append_new(list, prose(one));
			free(one);
		}
		text += n;
		text += strspn(text, "\n");
	}
	return list;
}

/*
 * The page's model, made once from the contract (which never changes while
 * the server runs) and shared: each page gets a shallow copy of it.
 */
static json_t *api_model;
static pthread_once_t api_model_once = PTHREAD_ONCE_INIT;

static void make_api_model(void)
{
	size_t len;
	const char *text = tmpl_file_get(CONTRACT_FILE, &len);
	json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL, *info;

	if (!doc)
		return;
	info = json_object_get(doc, "info");
	api_model = json_pack("{s:s, s:s?, s:s?, s:s?, s:o, s:o, s:o, s:o}", "title", "API",
		"info_title", json_string_value(json_object_get(info, "title")),
		"info_version", json_string_value(json_object_get(info, "version")),
		"openapi", json_string_value(json_object_get(doc, "openapi")),
		"intro", paragraphs(json_string_value(json_object_get(info, "description"))),
		"endpoints", endpoints_of(doc), "errors", errors_of(doc), "schemas", schemas_of(doc));
	json_decref(doc);
}

void page_api(http_request *req, http_response *res)
{
	pthread_once(&api_model_once, make_api_model);
	if (!api_model)
		return http_reply_error(req, res, E_INTERNAL, "the contract is not built in");
	page_render(req, res, 200, "api.html", json_copy(api_model));
}
