"""What every operation of the API's OpenAPI schema says about input and errors, in one place.

A drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``)
that makes the generated schema state the rules that hold for every endpoint alike, so that
a client (or schemathesis, ``tests/fido/test_api_schemathesis.py``) generating requests from the
schema meets no surprise (issue 16, item 10):

- **Text.** Every string a request carries (query, path and header parameters, and every
  string of a request body, keys aside) is refused when it holds a control character or a
  bidirectional override (:mod:`fido.text`); the schema says so with
  :data:`fido.text.TEXT_PATTERN` on every such string that has no pattern, enum or format of
  its own.
- **Errors every endpoint can answer**, each as ``ApiErrors``: ``400`` when the operation
  takes any parameter or a body (a malformed one); ``401`` when it accepts credentials (a
  wrong or expired token); ``404`` when its path has parameters or it is paged (an unknown
  id, a page past the last); ``413`` and ``415`` when it takes a body (too large; not
  ``application/json``); ``429`` everywhere (every endpoint is throttled). An operation
  that documents one of these itself keeps its own description.

In: the schema dict drf-spectacular generated. Out: the same dict, changed in place.
"""

from __future__ import annotations

from typing import Any

from .text import TEXT_PATTERN

_ERRORS_REF = {"$ref": "#/components/schemas/ApiErrors"}
_COMMON = {
    "400": "a parameter or the body is malformed, or breaks a rule (errors name each)",
    "401": "the credentials are wrong, expired or revoked",
    "404": "not found (an unknown id, or a page past the last)",
    "413": "the body is larger than the server accepts",
    "415": "the body is not JSON (send Content-Type: application/json, UTF-8)",
    "429": "too many requests: wait the seconds Retry-After says",
}


def schema_truths(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    components = result.get("components", {}).get("schemas", {})
    seen: set[int] = set()
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            parameters = operation.get("parameters", [])
            for parameter in parameters:
                _text_rule(parameter.get("schema", {}), components, seen)
            body = operation.get("requestBody")
            for media in (body or {}).get("content", {}).values():
                _text_rule(media.get("schema", {}), components, seen)
            _common_errors(operation, parameters, body is not None)
    return result


def _common_errors(operation: dict[str, Any], parameters: list[Any], has_body: bool) -> None:
    where = {parameter["in"] for parameter in parameters}
    paged = any(parameter["name"] == "page" for parameter in parameters)
    authenticated = any(requirement for requirement in operation.get("security", []))
    wanted = ["429"]
    if where or has_body:
        wanted.append("400")
    if authenticated:
        wanted.append("401")
    if "path" in where or paged:
        wanted.append("404")
    if has_body:
        wanted += ["413", "415"]
    responses = operation.setdefault("responses", {})
    for code in wanted:
        responses.setdefault(
            code,
            {
                "description": _COMMON[code],
                "content": {"application/json": {"schema": dict(_ERRORS_REF)}},
            },
        )


def _text_rule(schema: dict[str, Any], components: dict[str, Any], seen: set[int]) -> None:
    """Add the text pattern to every plain string in ``schema`` (iterative; $refs followed
    once each)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        ref = node.get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            stack.append(components.get(ref.rsplit("/", 1)[1], {}))
            continue
        if node.get("type") == "string" and not {"pattern", "enum", "format"} & set(node):
            node["pattern"] = TEXT_PATTERN
        stack.extend(node.get("properties", {}).values())
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                stack.append(node[key])
        for key in ("allOf", "anyOf", "oneOf"):
            stack.extend(node.get(key, []))
