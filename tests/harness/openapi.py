"""harness.openapi - the API contract, docs/openapi.yaml, held against every answer the tests receive.

Daemon.request hands each answer to an address under /api/ to check_answer(): the operation is found
by method and path template, and the answer must be one it declares: its status, its content type,
the headers the document marks required, and a JSON body valid against the declared schema (JSON
Schema 2020-12, references resolved inside the document). An address no path template matches may
only answer 404 not_found or 414 uri_too_long; a path whose method the document does not declare,
405 method_not_allowed with an Allow header listing exactly the declared methods. HEAD is checked as
GET without its body. Refusals the HTTP library makes itself (LIBRARY_REFUSALS, without a
Content-Type) are not the API's and pass.

ROOKERY_CONTRACT=0 in the environment turns the check off (for benchmarks only); ROOKERY_CONTRACT_SEEN=FILE
appends "METHOD template status" for each answer checked, to see which declared answers the tests reach.

Debian's python3-yaml and python3-jsonschema.
"""
import json
import os
import re
import threading

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENT = os.path.normpath(os.path.join(HERE, "..", "..", "docs", "openapi.yaml"))
# What the HTTP library answers by itself, before the server reads the request (a request line or
# headers over its memory): never with a Content-Type, which every answer of the server has.
LIBRARY_REFUSALS = (413, 414, 431)
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def enabled():
    return os.environ.get("ROOKERY_CONTRACT", "1") != "0"


def media_type(value):
    """A Content-Type as compared: lower case, no blanks around its parameters."""
    return ";".join(part.strip() for part in (value or "").lower().split(";") if part.strip())


class Contract:
    """docs/openapi.yaml (or the document at path, or the dict doc), ready to check answers."""

    def __init__(self, path=DOCUMENT, doc=None):
        if doc is None:
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        self.doc = doc
        self.templates = []      # (regex, template, path item), the literal templates first
        for template, item in doc.get("paths", {}).items():
            regex = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
            self.templates.append((re.compile(regex), template, item))
        self.templates.sort(key=lambda t: t[1].count("{"))
        self.local = threading.local()
        self.lock = threading.Lock()

    def resolve(self, node):
        """node, or what its $ref names inside the document."""
        while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/components/") \
                and set(node) == {"$ref"}:
            node = self.pointer(node["$ref"])
        return node

    def pointer(self, ref):
        node = self.doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def validator(self, key, schema):
        """A Draft 2020-12 validator of schema whose references reach into the whole document; one per
        thread (a validator's reference resolver keeps a stack of scopes while it works)."""
        validators = getattr(self.local, "validators", None)
        if validators is None:
            validators = self.local.validators = {}
        v = validators.get(key)
        if v is None:
            root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "allOf": [schema],
                    "components": self.doc.get("components", {})}
            v = validators[key] = jsonschema.Draft202012Validator(root)
        return v

    def operation(self, method, path):
        """(template, path item, operation or None) for a request; (None, None, None) when no template matches."""
        path = path.split("?", 1)[0]
        for regex, template, item in self.templates:
            if regex.match(path):
                m = "get" if method.lower() == "head" else method.lower()
                return template, item, item.get(m)
        return None, None, None

    def check(self, method, path, status, headers, body):
        """The problems of one answer (status, headers: a mapping with .get, body: bytes), as a list of
        strings; empty when the document declares this answer."""
        if status in LIBRARY_REFUSALS and headers.get("Content-Type") is None:
            return []
        template, item, op = self.operation(method, path)
        shown = path.split("?", 1)[0]
        where = f"{method} {shown if len(shown) <= 120 else shown[:100] + '...(%d bytes)' % len(shown)}"
        if template is None:
            # No operation: only the answers of any address that is not one.
            allowed = {404: "NotFound", 414: "UriTooLong"}
            if status not in allowed:
                return [f"{where}: no path of the document matches, yet the answer is {status}, "
                        f"not 404 or 414"]
            return self.check_response(where, f"components/responses/{allowed[status]}",
                                       self.pointer(f"#/components/responses/{allowed[status]}"),
                                       method, status, headers, body)
        if op is None:
            declared = sorted(m.upper() for m in item if m in METHODS)
            if status == 405:
                problems = self.check_response(where, "components/responses/MethodNotAllowed",
                                               self.pointer("#/components/responses/MethodNotAllowed"),
                                               method, status, headers, body)
                allow = sorted(a.strip() for a in (headers.get("Allow") or "").split(",") if a.strip())
                if allow != declared:
                    problems.append(f"{where}: Allow lists {allow}, the document declares {declared} for {template}")
                return problems
            if status in (404, 414):
                return self.check_response(where, "components/responses", self.pointer(
                    "#/components/responses/" + ("NotFound" if status == 404 else "UriTooLong")),
                    method, status, headers, body)
            return [f"{where}: the document declares no {method.upper()} for {template} "
                    f"(only {', '.join(declared)}), yet the answer is {status}, not 405"]
        responses = op.get("responses", {})
        declared = responses.get(str(status))
        opname = f"{method.upper()} {template}"
        seen = os.environ.get("ROOKERY_CONTRACT_SEEN")
        if seen:
            with self.lock, open(seen, "a", encoding="utf-8") as f:
                f.write(f"{opname} {status}\n")
        if declared is None:
            return [f"{where}: status {status} is not declared for {opname} "
                    f"(declared: {', '.join(sorted(responses))}); body: {body[:300]!r}"]
        return self.check_response(where, f"{opname} {status}", self.resolve(declared),
                                   method, status, headers, body)

    def check_response(self, where, name, response, method, status, headers, body):
        problems = []
        for header, spec in (response.get("headers") or {}).items():
            spec = self.resolve(spec)
            if spec.get("required") and headers.get(header) is None:
                problems.append(f"{where}: {status} lacks the header {header} that {name} requires")
            value = headers.get(header)
            if value is not None and "schema" in spec:
                for e in self.validator(("header", name, header), spec["schema"]).iter_errors(value):
                    problems.append(f"{where}: header {header}: {value!r}: {e.message}")
        content = response.get("content")
        if not content:
            if body and method.upper() != "HEAD":
                problems.append(f"{where}: {name} declares no body, yet one came: {body[:200]!r}")
            return problems
        got = media_type(headers.get("Content-Type"))
        types = {media_type(k): v for k, v in content.items()}
        if got not in types:
            problems.append(f"{where}: Content-Type {headers.get('Content-Type')!r} is not one that {name} "
                            f"declares ({', '.join(content)})")
            return problems
        if method.upper() == "HEAD":
            return problems
        schema = types[got].get("schema")
        if schema is None:
            return problems
        if got.startswith("application/json"):
            try:
                value = json.loads(body)
            except ValueError as e:
                return problems + [f"{where}: {status} is not JSON ({e}): {body[:200]!r}"]
        else:
            try:
                value = body.decode("utf-8")
            except UnicodeDecodeError as e:
                return problems + [f"{where}: {status} is not UTF-8 text ({e})"]
        errors = sorted(self.validator(("body", name, got), schema).iter_errors(value),
                        key=lambda e: list(e.absolute_path))
        for e in errors[:3]:
            problems.append(f"{where}: {status} body does not match {name}: {best_message(e)} "
                            f"at {'/'.join(str(p) for p in e.absolute_path) or '(the body)'}")
        if errors:
            problems.append(f"  the body: {body[:600]!r}")
        return problems


def best_message(error):
    """The deepest reason of a validation error (oneOf and anyOf say little by themselves)."""
    if error.context:
        deepest = max(error.context, key=lambda e: (len(e.absolute_path), -len(e.message)))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return best_message(deepest)
    return error.message


_contract = None
_contract_lock = threading.Lock()


def contract():
    """The document, read once per process."""
    global _contract
    with _contract_lock:
        if _contract is None:
            _contract = Contract()
        return _contract


def check_answer(method, path, status, headers, body):
    """The problems of one answer to a request under /api/ (none for other paths, or when turned off)."""
    if not enabled() or not path.startswith("/api/"):
        return []
    return contract().check(method, path, status, headers, body)
