/* test_tmpl.c - tests of the template engine: escaping by context, sections, partials, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pages/tmpl.h"

#define T(name, text) { name, text, sizeof text - 1 }

/* The engine looks templates up here instead of in the generated table. */
const struct tmpl_file tmpl_files[] = {
	T("text.html", "<p>{{v}}</p>"),
	T("attrs.html", "<input value=\"{{v}}\" title='{{v}}'>"),
	T("types.html", "{{s}}|{{i}}|{{neg}}|{{r}}|{{tenth}}|{{big}}|{{t}}|{{f}}|{{n}}|{{missing}}|{{a}}|{{o}}"),
	T("href.html", "<a href=\"{{u}}\">x</a>"),
	T("urlattrs.html", "<img src=\"{{u}}\"><form action=\"{{u}}\"><button formaction='{{u}}'>"
		"</button></form><a HREF='{{u}}'></a><p title=\"{{u}}\"></p>"),
	T("urlparts.html", "<a href=\"/games/{{id}}?q={{q}}\">{{q}}</a>"),
	T("urlspace.html", "<a href=\" {{u}}\"></a>"),
	T("urlsection.html", "<a href=\"{{#u}}{{u}}{{/u}}{{^u}}/home{{/u}}{{rest}}\"></a>"),
	T("attrsection.html", "<p class=\"btn{{#on}} on{{/on}}\">"),
	T("list.html", "<ul>{{#items}}<li>{{name}} of {{owner}}</li>{{/items}}</ul>"),
	T("scalars.html", "{{#xs}}[{{.}}]{{/xs}}"),
	T("section.html", "{{#v}}yes({{.}}){{/v}}"),
	T("object.html", "{{#player}}{{name}} {{rating}} {{title}}{{/player}}"),
	T("inverted.html", "{{^v}}none{{/v}}"),
	T("dotted.html", "{{a.b.c}}|{{a.x}}|{{s.len}}|{{#a}}{{b.c}}/{{b.z}}{{/a}}"),
	T("partial.html", "<div>{{>item.html}}</div>{{#kids}}{{>item.html}}{{/kids}}"),
	T("item.html", "<b>{{name}}</b>"),
	T("tree.html", "<li>{{name}}{{#kids}}<ul>{{>tree.html}}</ul>{{/kids}}</li>"),
	T("loop.html", "x{{>loop.html}}"),
	T("blowup.html", "{{#xs}}{{#xs}}{{#xs}}{{#xs}}{{#xs}}{{#xs}}{{#xs}}"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		"{{/xs}}{{/xs}}{{/xs}}{{/xs}}{{/xs}}{{/xs}}{{/xs}}"),
	T("missing.html", "a\n{{>nope.html}}"),
	T("notpartial.html", "{{>style.css}}"),
	T("comment.html", "a{{! a comment with \"quotes\" and <b> }}b<div {{! in a tag }}class=\"c\">"
		"<script>{{! in a script }}</script>"),
	T("tokenizer.html", "<!DOCTYPE html><!-- <a href=\" -->"
		"<p title=\"a>b\">1 < 2 {{v}}</p><script>if (a < b) x = '</scr' + 'ipt>';</script >{{v}}"
		"<STYLE>p > b {}</style>{{v}}"),
	T("rcdata.html", "<title>{{v}}</title><textarea><a href=\"{{v}}\"></textarea>"),
	T("unclosed.html", "<p>{{#a}}\nx</p>"),
	T("mismatch.html", "{{#a}}{{/b}}"),
	T("stray.html", "x{{/a}}"),
	T("intag.html", "<p>ok</p>\n<div {{x}}>"),
	T("attrname.html", "<div data-{{x}}=\"1\">"),
	T("tagname.html", "<{{x}}>"),
	T("unquoted.html", "<a href={{x}}>"),
	T("unquoted2.html", "<a class=big{{x}}>"),
	T("script.html", "<script>var a = \"{{x}}\";</script>"),
	T("scriptsrc.html", "<SCRIPT type=\"module\">{{x}}</SCRIPT>"),
	T("style.html", "<style>p { color: {{x}} }</style>"),
	T("onclick.html", "<button onclick=\"go('{{x}}')\">"),
	T("styleattr.html", "<p style=\"color: {{x}}\">"),
	T("srcdoc.html", "<iframe srcdoc=\"{{x}}\"></iframe>"),
	T("animate.html", "<svg><animate attributeName=\"href\" to=\"{{x}}\"/></svg>"),
	T("htmlcomment.html", "<!-- {{x}} -->"),
	T("scriptcomment.html", "<script><!--\n</script>"),
	T("triple.html", "{{{x}}}"),
	T("amp.html", "{{&x}}"),
	T("delims.html", "{{=<% %>=}}"),
	T("open.html", "{{x"),
	T("context.html", "{{#a}}<b title=\"{{/a}}\">"),
	T("endsintag.html", "<a href=\"/x"),
	T("partialattr.html", "<p title=\"{{>item.html}}\">"),
	T("badname.html", "{{a..b}}"),
	T("badname2.html", "{{a b}}"),
	T("empty.html", "{{ }}"),
	T("style.css", "body { color: red; }\n"),
	{ NULL, NULL, 0 },
};

static char *render(const char *name, const char *json)
{
	json_error_t jerr;
	json_t *data = json_loads(json, 0, &jerr);
	tmpl_error err;
	char *out;

	assert_non_null(data);
	out = tmpl_render(name, data, &err);
	if (!out)
		fail_msg("%s: %s", name, err.message);
	assert_int_equal(err.code, TMPL_OK);
	json_decref(data);
	return out;
}

static void expect(const char *name, const char *json, const char *want)
{
	char *got = render(name, json);

	assert_string_equal(got, want);
	free(got);
}

/* Render with {"u": url} (a C string, so control characters are easy). */
static void expect_url(const char *name, const char *url, const char *want)
{
	json_t *data = json_pack("{s:s}", "u", url);
	tmpl_error err;
	char *got;

	assert_non_null(data);
	got = tmpl_render(name, data, &err);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	json_decref(data);
}

static void expect_error(const char *name, int code, const char *part)
{
	json_t *data = json_pack("{s:s, s:b}", "x", "1", "a", 1);
	tmpl_error err = { 0 };
	char *out = tmpl_render(name, data, &err);

	if (out)
		fail_msg("%s rendered as \"%s\" but should fail", name, out);
	assert_int_equal(err.code, code);
	if (!strstr(err.message, part))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, err.message, part);
	json_decref(data);
}

static void test_text_escaping(void **state)
{
	(void)state;
	expect("text.html", "{\"v\": \"\\\"><script>alert('x')</script>&amp;\"}",
		"<p>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;</p>");
	expect("text.html", "{\"v\": \"plain text, ok\"}", "<p>plain text, ok</p>");
	expect("text.html", "{\"v\": \"caf\\u00e9 \\u265e\"}", "<p>caf\xc3\xa9 \xe2\x99\x9e</p>");
}

static void test_nul_byte(void **state)
{
	json_t *data = json_pack("{s:s%}", "v", "a\0b", (size_t)3);
	char *out = tmpl_render("text.html", data, NULL);

	(void)state;
	/* A NUL would cut the C string short; browsers show it as U+FFFD. */
	assert_string_equal(out, "<p>a\xef\xbf\xbd" "b</p>");
	free(out);
	json_decref(data);
}

static void test_attribute_escaping(void **state)
{
	(void)state;
	expect("attrs.html", "{\"v\": \"\\\"><script>alert(1)</script>\"}",
		"<input value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\" "
		"title='&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'>");
	expect("attrs.html", "{\"v\": \"' onmouseover='alert(1)\"}",
		"<input value=\"&#39; onmouseover=&#39;alert(1)\" "
		"title='&#39; onmouseover=&#39;alert(1)'>");
}

static void test_value_types(void **state)
{
	(void)state;
	expect("types.html",
		"{\"s\": \"str\", \"i\": 42, \"neg\": -7, \"r\": 1.5, \"tenth\": 0.1, \"big\": 1e300,"
		" \"t\": true, \"f\": false, \"n\": null, \"a\": [1], \"o\": {\"k\": 1}}",
		"str|42|-7|1.5|0.1|1e+300|true|false||||");
}

static void test_url_rejects_scripts(void **state)
{
	(void)state;
	expect_url("href.html", "javascript:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "JaVaScRiPt:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "  JaVaScRiPt:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "\x01\t\njavascript:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "java\tscript:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "java\nscript:alert(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "vbscript:msgbox(1)", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "data:text/html,<script>alert(1)</script>", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "ftp://example.com/", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", "httpx:y", "<a href=\"#unsafe\">x</a>");
	expect_url("href.html", ":nothing", "<a href=\"#unsafe\">x</a>");
	/* Every URL attribute is checked, whatever its case or quotes. */
	expect_url("urlattrs.html", "javascript:alert(1)",
		"<img src=\"#unsafe\"><form action=\"#unsafe\"><button formaction='#unsafe'>"
		"</button></form><a HREF='#unsafe'></a><p title=\"javascript:alert(1)\"></p>");
}

static void test_url_allows_safe(void **state)
{
	(void)state;
	expect_url("href.html", "/games/1?x=<y>&z=1", "<a href=\"/games/1?x=&lt;y&gt;&amp;z=1\">x</a>");
	expect_url("href.html", "https://example.com/a?b=1&c='2'",
		"<a href=\"https://example.com/a?b=1&amp;c=&#39;2&#39;\">x</a>");
	expect_url("href.html", "HTTP://EXAMPLE.COM", "<a href=\"HTTP://EXAMPLE.COM\">x</a>");
	expect_url("href.html", " https://example.com", "<a href=\" https://example.com\">x</a>");
	expect_url("href.html", "mailto:a@example.com", "<a href=\"mailto:a@example.com\">x</a>");
	expect_url("href.html", "games/1", "<a href=\"games/1\">x</a>");
	expect_url("href.html", "games/1:2", "<a href=\"games/1:2\">x</a>");
	expect_url("href.html", "#top", "<a href=\"#top\">x</a>");
	expect_url("href.html", "?page=2", "<a href=\"?page=2\">x</a>");
	expect_url("href.html", "", "<a href=\"\">x</a>");
	/* Relative, but quotes still cannot break out of the attribute. */
	expect_url("href.html", "\"><script>alert(1)</script>",
		"<a href=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\">x</a>");
	expect_url("urlattrs.html", "/img.png",
		"<img src=\"/img.png\"><form action=\"/img.png\"><button formaction='/img.png'>"
		"</button></form><a HREF='/img.png'></a><p title=\"/img.png\"></p>");
}

static void test_url_parts_encoded(void **state)
{
	(void)state;
	expect("urlparts.html", "{\"id\": \"a b/c?d#e&f\", \"q\": \"javascript:alert(1)\"}",
		"<a href=\"/games/a%20b%2Fc%3Fd%23e%26f?q=javascript%3Aalert%281%29\">"
		"javascript:alert(1)</a>");
	expect("urlparts.html", "{\"id\": 12, \"q\": \"\\\"><caf\\u00e9-._~\"}",
		"<a href=\"/games/12?q=%22%3E%3Ccaf%C3%A9-._~\">&quot;&gt;&lt;caf\xc3\xa9-._~</a>");
	/* Even a space before the tag means the tag is not at the start. */
	expect_url("urlspace.html", "javascript:alert(1)", "<a href=\" javascript%3Aalert%281%29\"></a>");
}

static void test_url_sections(void **state)
{
	(void)state;
	expect("urlsection.html", "{\"u\": \"javascript:x\", \"rest\": \"/a b\"}",
		"<a href=\"#unsafe%2Fa%20b\"></a>");
	expect("urlsection.html", "{\"u\": \"https://e.com/\", \"rest\": \"x\"}",
		"<a href=\"https://e.com/x\"></a>");
	expect("urlsection.html", "{\"rest\": \"javascript:x\"}",
		"<a href=\"/homejavascript%3Ax\"></a>");
	expect("attrsection.html", "{\"on\": true}", "<p class=\"btn on\">");
	expect("attrsection.html", "{\"on\": false}", "<p class=\"btn\">");
}

static void test_section_array(void **state)
{
	(void)state;
	expect("list.html",
		"{\"owner\": \"Bo<b>\", \"items\": [{\"name\": \"rook\"}, {\"name\": \"king\", \"owner\": \"Al\"}]}",
		"<ul><li>rook of Bo&lt;b&gt;</li><li>king of Al</li></ul>");
	expect("list.html", "{\"items\": []}", "<ul></ul>");
	expect("scalars.html", "{\"xs\": [1, \"<a>\", true, null, 2.5]}", "[1][&lt;a&gt;][true][][2.5]");
}

static void test_section_values(void **state)
{
	(void)state;
	expect("section.html", "{\"v\": true}", "yes(true)");
	expect("section.html", "{\"v\": \"s<\"}", "yes(s&lt;)");
	expect("section.html", "{\"v\": 3}", "yes(3)");
	expect("section.html", "{\"v\": -0.5}", "yes(-0.5)");
	expect("section.html", "{\"v\": {}}", "yes()");
	expect("section.html", "{\"v\": false}", "");
	expect("section.html", "{\"v\": null}", "");
	expect("section.html", "{}", "");
	expect("section.html", "{\"v\": \"\"}", "");
	expect("section.html", "{\"v\": 0}", "");
	expect("section.html", "{\"v\": 0.0}", "");
	expect("section.html", "{\"v\": []}", "");
}

static void test_section_object(void **state)
{
	(void)state;
	expect("object.html", "{\"title\": \"GM\", \"player\": {\"name\": \"Ann\", \"rating\": 2100}}",
		"Ann 2100 GM");
	/* A key that is present with null stops the lookup: no fallback. */
	expect("object.html", "{\"title\": \"GM\", \"player\": {\"name\": \"Ann\", \"title\": null}}",
		"Ann  ");
}

static void test_inverted(void **state)
{
	(void)state;
	expect("inverted.html", "{}", "none");
	expect("inverted.html", "{\"v\": false}", "none");
	expect("inverted.html", "{\"v\": null}", "none");
	expect("inverted.html", "{\"v\": []}", "none");
	expect("inverted.html", "{\"v\": \"\"}", "none");
	expect("inverted.html", "{\"v\": 0}", "none");
	expect("inverted.html", "{\"v\": true}", "");
	expect("inverted.html", "{\"v\": [0]}", "");
	expect("inverted.html", "{\"v\": {}}", "");
	expect("inverted.html", "{\"v\": \"x\"}", "");
}

static void test_dotted(void **state)
{
	(void)state;
	expect("dotted.html",
		"{\"a\": {\"b\": {\"c\": \"deep<\"}}, \"s\": \"str\", \"b\": {\"z\": \"outer\"}}",
		"deep&lt;|||deep&lt;/");
}

static void test_partials(void **state)
{
	(void)state;
	expect("partial.html", "{\"name\": \"<top>\", \"kids\": [{\"name\": \"k1\"}, {}]}",
		"<div><b>&lt;top&gt;</b></div><b>k1</b><b>&lt;top&gt;</b>");
	expect("tree.html", "{\"name\": \"a\", \"kids\": [{\"name\": \"b\", \"kids\": [{\"name\": \"c\", \"kids\": []}]}]}",
		"<li>a<ul><li>b<ul><li>c</li></ul></li></ul></li>");
}

static void test_partial_errors(void **state)
{
	(void)state;
	expect_error("missing.html", TMPL_E_PARTIAL, "missing.html:2:1: no HTML template named nope.html");
	expect_error("notpartial.html", TMPL_E_PARTIAL, "style.css");
	expect_error("loop.html", TMPL_E_DEPTH, "loop.html");
	expect_error("partialattr.html", TMPL_E_SYNTAX, "may only stand in text");
}

/* Seven sections nested over a list of eight would make 128 MiB: refused at the page limit. */
static void test_runaway_size(void **state)
{
	json_t *data = json_loads("{\"xs\": [1, 2, 3, 4, 5, 6, 7, 8]}", 0, NULL);
	tmpl_error err = { 0 };
	(void)state;

	assert_null(tmpl_render("blowup.html", data, &err));
	assert_int_equal(err.code, TMPL_E_SIZE);
	assert_non_null(strstr(err.message, "larger than"));
	json_decref(data);
}

static void test_comments(void **state)
{
	(void)state;
	expect("comment.html", "{}", "ab<div class=\"c\"><script></script>");
}

static void test_tokenizer(void **state)
{
	(void)state;
	/* '>' in a quoted value, '<' before a space and a "</scr" inside the
	 * script must not confuse where the tags stand. */
	expect("tokenizer.html", "{\"v\": \"<i>\"}",
		"<!DOCTYPE html><!-- <a href=\" --><p title=\"a>b\">1 < 2 &lt;i&gt;</p>"
		"<script>if (a < b) x = '</scr' + 'ipt>';</script >&lt;i&gt;<STYLE>p > b {}</style>&lt;i&gt;");
	/* In <title> and <textarea> markup is text: no URL check, but escaped. */
	expect("rcdata.html", "{\"v\": \"javascript:</textarea>\"}",
		"<title>javascript:&lt;/textarea&gt;</title>"
		"<textarea><a href=\"javascript:&lt;/textarea&gt;\"></textarea>");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	expect_error("unclosed.html", TMPL_E_SYNTAX, "unclosed.html:1:4: {{#a}} is never closed");
	expect_error("mismatch.html", TMPL_E_SYNTAX, "{{/b}} does not match {{#a}}");
	expect_error("stray.html", TMPL_E_SYNTAX, "{{/a}} closes no section");
	expect_error("intag.html", TMPL_E_SYNTAX, "intag.html:2:6: tag inside an HTML tag");
	expect_error("attrname.html", TMPL_E_SYNTAX, "inside an HTML tag");
	expect_error("tagname.html", TMPL_E_SYNTAX, "inside an HTML tag");
	expect_error("unquoted.html", TMPL_E_SYNTAX, "unquoted attribute value");
	expect_error("unquoted2.html", TMPL_E_SYNTAX, "unquoted attribute value");
	expect_error("script.html", TMPL_E_SYNTAX, "tag inside <script>");
	expect_error("scriptsrc.html", TMPL_E_SYNTAX, "tag inside <script>");
	expect_error("style.html", TMPL_E_SYNTAX, "tag inside <style>");
	expect_error("onclick.html", TMPL_E_SYNTAX, "value of onclick");
	expect_error("styleattr.html", TMPL_E_SYNTAX, "value of style");
	expect_error("srcdoc.html", TMPL_E_SYNTAX, "value of srcdoc");
	expect_error("animate.html", TMPL_E_SYNTAX, "value of to on <animate>");
	expect_error("htmlcomment.html", TMPL_E_SYNTAX, "inside an HTML comment");
	expect_error("scriptcomment.html", TMPL_E_SYNTAX, "\"<!--\" inside <script>");
	expect_error("triple.html", TMPL_E_SYNTAX, "unescaped output is not supported");
	expect_error("amp.html", TMPL_E_SYNTAX, "unescaped output is not supported");
	expect_error("delims.html", TMPL_E_SYNTAX, "delimiters");
	expect_error("open.html", TMPL_E_SYNTAX, "without");
	expect_error("context.html", TMPL_E_SYNTAX, "ends in an attribute value but the section starts in text");
	expect_error("endsintag.html", TMPL_E_SYNTAX, "template ends inside an attribute value");
	expect_error("badname.html", TMPL_E_SYNTAX, "empty part in name");
	expect_error("badname2.html", TMPL_E_SYNTAX, "bad character in name");
	expect_error("empty.html", TMPL_E_SYNTAX, "empty tag");
}

static void test_unknown(void **state)
{
	tmpl_error err = { 0 };

	(void)state;
	assert_null(tmpl_render("nope.html", NULL, &err));
	assert_int_equal(err.code, TMPL_E_UNKNOWN);
	assert_non_null(strstr(err.message, "nope.html"));
	assert_null(tmpl_render("style.css", NULL, &err));
	assert_int_equal(err.code, TMPL_E_UNKNOWN);
	assert_null(tmpl_render(NULL, NULL, &err));
	assert_int_equal(err.code, TMPL_E_UNKNOWN);
	/* err may be NULL. */
	assert_null(tmpl_render("nope.html", NULL, NULL));
	assert_null(tmpl_render("triple.html", NULL, NULL));
}

static void test_file_get(void **state)
{
	size_t len = 0;
	const char *css = tmpl_file_get("style.css", &len);

	(void)state;
	assert_non_null(css);
	assert_int_equal(len, strlen("body { color: red; }\n"));
	assert_string_equal(css, "body { color: red; }\n");
	assert_non_null(tmpl_file_get("text.html", NULL));
	assert_null(tmpl_file_get("nope.css", &len));
	assert_null(tmpl_file_get(NULL, &len));
}

static void test_null_data_and_cache(void **state)
{
	char *a, *b;

	(void)state;
	a = tmpl_render("text.html", NULL, NULL);
	tmpl_cleanup();
	b = tmpl_render("text.html", NULL, NULL);
	assert_string_equal(a, "<p></p>");
	assert_string_equal(b, "<p></p>");
	free(a);
	free(b);
}

static void test_check(void **state)
{
	tmpl_error err = { 0 };

	(void)state;
	/* This table holds broken templates on purpose. */
	assert_int_equal(tmpl_check(&err), -1);
	assert_int_not_equal(err.code, TMPL_OK);
	assert_true(strlen(err.message) > 0);
}

static int teardown(void **state)
{
	(void)state;
	tmpl_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_escaping),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_attribute_escaping),
		cmocka_unit_test(test_value_types),
		cmocka_unit_test(test_url_rejects_scripts),
		cmocka_unit_test(test_url_allows_safe),
		cmocka_unit_test(test_url_parts_encoded),
		cmocka_unit_test(test_url_sections),
		cmocka_unit_test(test_section_array),
		cmocka_unit_test(test_section_values),
		cmocka_unit_test(test_section_object),
		cmocka_unit_test(test_inverted),
		cmocka_unit_test(test_dotted),
		cmocka_unit_test(test_partials),
		cmocka_unit_test(test_partial_errors),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_tokenizer),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_file_get),
		cmocka_unit_test(test_null_data_and_cache),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_runaway_size),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
