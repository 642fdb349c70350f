"""Check Steward's API document and the answers a test got against it.

Usage: openapi_check.py DOCUMENT.json EXCHANGES.json

DOCUMENT is the served OpenAPI document; EXCHANGES a JSON list of answers the real router
gave ({method, template, path, status, content_type, body, raw_len}). Passes (exit 0) when
the document is valid OpenAPI (openapi-spec-validator) and every answer has a status the
document lists for its operation, a content type it lists for that status (none when it
lists none), and a JSON body valid against the schema it gives (openapi-schema-validator,
the OpenAPI 3.1 dialect of JSON Schema). Prints every failure, then "N answers checked".
"""

import json
import sys

from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate


def resolve(doc, node):
    """Follow local `$ref`s (`#/components/...`) until a non-reference object."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"non-local $ref {ref}")
        node = doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def check_exchange(doc, ex):
    where = f'{ex["method"].upper()} {ex["path"]} -> {ex["status"]}'
    item = doc["paths"].get(ex["template"])
    if item is None or ex["method"] not in item:
        return [f"{where}: {ex['method']} {ex['template']} is not in the document"]
    responses = item[ex["method"]]["responses"]
    response = responses.get(str(ex["status"])) or responses.get(f'{str(ex["status"])[0]}XX')
    if response is None:
        response = responses.get("default")
    if response is None:
        return [f"{where}: status not documented (documented: {', '.join(responses)})"]
    response = resolve(doc, response)
    content = response.get("content") or {}
    ct = (ex["content_type"] or "").split(";")[0].strip().lower()
    if not content:
        if ex["raw_len"]:
            return [f"{where}: a {ct or 'body'} the document does not give"]
        return []
    if ct not in content:
        return [f"{where}: content type {ct!r} not documented (documented: {', '.join(content)})"]
    schema = content[ct].get("schema")
    if schema is None or ct != "application/json":
        return []
    if ex["body"] is None:
        return [f"{where}: no JSON body"]
    # The schema's `$ref`s point into the document's components: give it them at its root.
    rooted = dict(schema)
    rooted["components"] = doc.get("components", {})
    errors = sorted(OAS31Validator(rooted).iter_errors(ex["body"]), key=lambda e: list(e.path))
    return [f"{where}: body at /{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]]


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    with open(sys.argv[2]) as f:
        exchanges = json.load(f)
    try:
        validate(doc)
    except Exception as e:  # the validator's own error types vary by version
        print(f"the document is not valid OpenAPI: {e}")
        return 1
    failures = []
    for ex in exchanges:
        failures.extend(check_exchange(doc, ex))
    for failure in failures:
        print(failure)
    print(f"{len(exchanges)} answers checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
