"""Validates rendered Kubernetes manifests strictly and offline.

Usage: validate-manifests.py --kube-version 1.30.0 [--crd FILE ...] MANIFEST...

Built-in kinds are checked with kubernetes-validate (its bundled, strict OpenAPI schemas: unknown
fields are errors). Kinds defined by a CRD given with --crd (KEDA's ScaledObject, the Prometheus
Operator's ServiceMonitor) are checked against that CRD's openAPIV3Schema, made strict the way the API
server's field validation is (an unknown field is an error unless the schema preserves unknown
fields). A kind that is neither fails: nothing is skipped silently.
"""

import argparse
import copy
import sys

import jsonschema
import kubernetes_validate
import yaml


def strict(schema):
    """The CRD schema with additionalProperties false wherever it lists properties."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (
                "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
            ):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    # The API server adds and checks metadata itself; the CRD leaves it open.
    schema.setdefault("properties", {})["metadata"] = {"type": "object"}
    return schema


def crd_schemas(paths):
    """(apiVersion, kind) -> strict JSON schema, from CRD manifests."""
    found = {}
    for path in paths:
        with open(path) as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
                for version in crd["spec"]["versions"]:
                    schema = version["schema"]["openAPIV3Schema"]
                    found[(f"{group}/{version['name']}", kind)] = strict(schema)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kube-version", required=True)
    parser.add_argument("--crd", action="append", default=[])
    parser.add_argument("manifests", nargs="+")
    args = parser.parse_args()
    crds = crd_schemas(args.crd)
    failures = 0
    for path in args.manifests:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        before = failures
        for doc in docs:
            name = f"{path}: {doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
            key = (doc.get("apiVersion"), doc.get("kind"))
            try:
                if key in crds:
                    jsonschema.validate(doc, crds[key])
                else:
                    kubernetes_validate.validate(doc, args.kube_version, strict=True)
            except jsonschema.ValidationError as err:
                failures += 1
                where = "/".join(str(p) for p in err.absolute_path)
                print(f"FAIL {name} (Kubernetes {args.kube_version}) at {where}: {err.message}")
            except kubernetes_validate.SchemaNotFoundError:
                failures += 1
                print(f"FAIL {name}: no schema for {key[0]} {key[1]} (Kubernetes {args.kube_version}, nor a CRD given)")
        if failures == before:
            print(f"ok   {path}: {len(docs)} resources (Kubernetes {args.kube_version})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
