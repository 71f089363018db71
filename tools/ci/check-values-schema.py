"""Fails unless every value in the chart's values.schema.json is typed and documented.

Every property (at any depth, and in definitions) needs a `description` and a `type` (or a `$ref`
to a definition that has both); objects that list properties must say whether others are allowed.
"""

import json
import sys


def check(schema, definitions, path, problems, documented=True):
    """documented=False for the schema of an array's items, described by the array itself."""
    if "$ref" in schema:
        target = definitions[schema["$ref"].split("/")[-1]]
        if documented and "description" not in schema and "description" not in target:
            problems.append(f"{path}: no description")
        return
    if "type" not in schema:
        problems.append(f"{path}: no type")
    if documented and "description" not in schema:
        problems.append(f"{path}: no description")
    if "properties" in schema and "additionalProperties" not in schema:
        problems.append(f"{path}: additionalProperties not stated")
    for name, sub in schema.get("properties", {}).items():
        check(sub, definitions, f"{path}.{name}", problems)
    if isinstance(schema.get("items"), dict):
        check(schema["items"], definitions, f"{path}[]", problems, documented=False)


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    definitions = schema.get("definitions", {})
    problems = []
    for name, sub in definitions.items():
        check(sub, definitions, f"#/definitions/{name}", problems)
    check(schema, definitions, "(root)", problems)
    for problem in problems:
        print(f"values.schema.json {problem}")
    if problems:
        sys.exit(1)
    print("ok: every value typed and documented")


if __name__ == "__main__":
    main()
