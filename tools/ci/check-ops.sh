#!/usr/bin/env bash
# Checks the Helm chart and the Prometheus rules (issue 13): `npm run check:ops`.
#
#   helm lint + helm template of every helm/hookline/ci/*.yaml, each output validated strictly and
#   offline (kubernetes-validate for built-in kinds; the KEDA ScaledObject and Prometheus Operator
#   ServiceMonitor CRD schemas, taken from their Go modules, for those kinds); values files in
#   tools/ci/chart-invalid/ must fail to render with the message on their `# expect:` line; every
#   value in values.schema.json typed and documented; NOTES.txt renders.
#   promtool check rules + promtool test rules on ops/prometheus/.
#
# Tools, installed once and cached under $HOOKLINE_CACHE_DIR/ops-tools (default ~/.cache/hookline/ops-tools, as the test stack):
#   helm     `go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION` (Go module proxy; needs Go)
#   python   a venv with kubernetes-validate==$KUBERNETES_VALIDATE_VERSION (PyPI; needs python3)
#   promtool Debian's `prometheus` package (apt-get; needs root). Without apt this fails, loudly.
# `check-ops.sh --tools` only installs them (CI does it before the tests, which use prometheus).
set -euo pipefail
cd "$(dirname "$0")/../.."

HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
# The chart's minimum (Chart.yaml kubeVersion) and a recent release.
KUBE_VERSIONS=(1.25.0 1.34.0)
KEDA_MODULE=github.com/kedacore/keda/v2@v2.16.1
PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator@v0.77.1
CACHE="${HOOKLINE_CACHE_DIR:-$HOME/.cache/hookline}/ops-tools"
CHART=helm/hookline

started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }
die() {
  printf 'check-ops: %s\n' "$*" >&2
  exit 1
}

ensure_helm() {
  HELM="$CACHE/helm-$HELM_VERSION/helm"
  [[ -x "$HELM" ]] && return
  command -v go >/dev/null || die "Go is needed to install helm $HELM_VERSION (go install from the module proxy)"
  GOBIN="$(dirname "$HELM")" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

ensure_python() {
  local venv="$CACHE/venv-kubernetes-validate-$KUBERNETES_VALIDATE_VERSION"
  PYTHON="$venv/bin/python"
  [[ -x "$PYTHON" ]] && "$PYTHON" -c 'import kubernetes_validate' 2>/dev/null && return
  command -v python3 >/dev/null || die "python3 is needed for kubernetes-validate (PyPI)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
}

ensure_promtool() {
  command -v promtool >/dev/null && return
  if ! command -v apt-get >/dev/null; then
    die "promtool is missing and apt-get is not available: install Debian's 'prometheus' package (or put promtool on PATH)"
  fi
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
  "${sudo[@]}" apt-get update -qq || die "apt-get update failed: cannot install promtool (Debian package 'prometheus')"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends prometheus >/dev/null ||
    die "apt-get install prometheus failed: promtool is required"
  command -v promtool >/dev/null || die "the prometheus package installed no promtool"
}

# The Dir of a Go module, downloaded once into the module cache.
module_dir() {
  go mod download -json "$1" | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}

step "tools"
mkdir -p "$CACHE"
ensure_helm
ensure_python
ensure_promtool
echo "helm $("$HELM" version --short), kubernetes-validate $KUBERNETES_VALIDATE_VERSION, $(promtool --version 2>&1 | head -1)"
[[ "${1:-}" == "--tools" ]] && exit 0

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

step "values.schema.json: every value typed and documented"
"$PYTHON" tools/ci/check-values-schema.py "$CHART/values.schema.json"

step "helm lint and helm template of $CHART/ci/*.yaml"
manifests=()
for values in "$CHART"/ci/*.yaml; do
  name="$(basename "$values" .yaml)"
  "$HELM" lint --quiet --strict "$CHART" -f "$values" >/dev/null || die "helm lint failed with $values"
  for kube in "${KUBE_VERSIONS[@]}"; do
    "$HELM" template hookline "$CHART" -f "$values" --namespace hookline --kube-version "$kube" \
      >"$out/$name-$kube.yaml" || die "helm template failed with $values (Kubernetes $kube)"
  done
  manifests+=("$name")
  echo "rendered $values"
done

step "strict, offline validation (kubernetes-validate; KEDA and Prometheus Operator CRD schemas)"
keda="$(module_dir "$KEDA_MODULE")/config/crd/bases/keda.sh_scaledobjects.yaml"
operator="$(module_dir "$PROMETHEUS_OPERATOR_MODULE")/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
for kube in "${KUBE_VERSIONS[@]}"; do
  files=()
  for name in "${manifests[@]}"; do files+=("$out/$name-$kube.yaml"); done
  "$PYTHON" tools/ci/validate-manifests.py --kube-version "$kube" --crd "$keda" --crd "$operator" "${files[@]}"
done

step "the attempt index shared by the Services' pods, none elsewhere"
for name in combined-values split-hpa-values full-values; do
  "$PYTHON" - "$out/$name-${KUBE_VERSIONS[-1]}.yaml" <<'PY'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if not doc or doc.get("kind") != "Deployment":
        continue
    container = doc["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in container.get("env", [])}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    api = doc["metadata"]["labels"]["app.kubernetes.io/component"] in ("all", "ingest")
    index = env.get("HOOKLINE_ATTEMPT_INDEX", {}).get("value", "true")
    name = doc["metadata"]["name"]
    if index != ("shared" if api else "false"):
        sys.exit(f"{name}: HOOKLINE_ATTEMPT_INDEX is {index}")
    if api:
        # Hookline makes http://<host>:<the admin API's bound port> of it, bracketing an IPv6 address.
        host = env["HOOKLINE_ADVERTISED_HOST"]["value"]
        if host != "$(POD_IP)" or env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] != "status.podIP":
            sys.exit(f"{name}: HOOKLINE_ADVERTISED_HOST {host} is not the pod's IP")
        if list(env).index("POD_IP") > list(env).index("HOOKLINE_ADVERTISED_HOST"):
            sys.exit(f"{name}: POD_IP must come before HOOKLINE_ADVERTISED_HOST, which refers to it")
        if "HOOKLINE_ADVERTISED_URL" in env:
            sys.exit(f"{name}: HOOKLINE_ADVERTISED_URL would override the advertised host")
    print(f"{name}: attempt index {index}")
PY
done

step "node flags: the image's CMD, but 8 MB semi-spaces on split ingest pods"
for name in combined-values split-hpa-values full-values; do
  "$PYTHON" - "$out/$name-${KUBE_VERSIONS[-1]}.yaml" <<'PY'
import json, sys, yaml
cmd = next(l for l in reversed(open("Dockerfile").read().splitlines()) if l.startswith("CMD "))
image = json.loads(cmd[len("CMD "):])
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if not doc or doc.get("kind") != "Deployment":
        continue
    container = doc["spec"]["template"]["spec"]["containers"][0]
    name = doc["metadata"]["name"]
    command = container.get("command")
    if doc["metadata"]["labels"]["app.kubernetes.io/component"] == "ingest":
        expected = ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", image[-1]]
        if command != expected:
            sys.exit(f"{name}: command {command}, expected {expected}")
    elif command is not None:
        sys.exit(f"{name}: overrides the image's command: {command}")
    print(f"{name}: {' '.join(command or image)}")
PY
done

step "values that must be refused (tools/ci/chart-invalid/)"
for values in tools/ci/chart-invalid/*.yaml; do
  expected="$(sed -n 's/^# expect: //p' "$values")"
  [[ -n "$expected" ]] || die "$values has no '# expect: <message>' line"
  if error="$("$HELM" template hookline "$CHART" -f "$values" --kube-version "${KUBE_VERSIONS[0]}" 2>&1 >/dev/null)"; then
    die "$values rendered, but should fail with: $expected"
  fi
  [[ "$error" == *"$expected"* ]] || die "$values failed, but not with '$expected': $error"
  echo "refused $values"
done

step "NOTES.txt renders with every values file"
cp -r "$CHART" "$out/chart"
{
  echo 'notes: |'
  sed 's/^/  /' "$CHART/templates/NOTES.txt"
} >"$out/chart/templates/notes-check.yaml"
rm "$out/chart/templates/NOTES.txt"
for values in "$CHART"/ci/*.yaml; do
  "$HELM" template hookline "$out/chart" -f "$values" --kube-version "${KUBE_VERSIONS[0]}" \
    --show-only templates/notes-check.yaml >/dev/null || die "NOTES.txt does not render with $values"
done
echo "ok"

step "promtool check rules / test rules (ops/prometheus)"
promtool check rules ops/prometheus/alerts.yml
promtool test rules ops/prometheus/alerts.test.yml

step "done"
