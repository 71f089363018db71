{{/*
Chart name, truncated to the 63 characters a label value allows.
*/}}
{{- define "hookline.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name: the release name, plus the chart name unless the release name holds it.
*/}}
{{- define "hookline.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hookline.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Standard labels.
*/}}
{{- define "hookline.labels" -}}
helm.sh/chart: {{ include "hookline.chart" . }}
{{ include "hookline.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: hookline
{{- end }}

{{/*
Selector labels shared by every workload of the release.
*/}}
{{- define "hookline.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hookline.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels of one role's workload. Call with (dict "root" $ "component" "ingest").
*/}}
{{- define "hookline.componentLabels" -}}
{{ include "hookline.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "hookline.componentSelectorLabels" -}}
{{ include "hookline.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The component that serves the HTTP APIs: "all" when roles run combined, otherwise "ingest".
*/}}
{{- define "hookline.apiComponent" -}}
{{- if .Values.roles.combined }}all{{ else }}ingest{{ end }}
{{- end }}

{{/*
Whether any Deployment serves the HTTP APIs.
*/}}
{{- define "hookline.apiEnabled" -}}
{{- if or .Values.roles.combined .Values.roles.ingest.enabled }}true{{ end }}
{{- end }}

{{- define "hookline.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hookline.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "hookline.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The chart's own Secret (admin token, and inline credentials when no existingSecret is named).
*/}}
{{- define "hookline.secretName" -}}
{{- printf "%s-secrets" (include "hookline.fullname" .) }}
{{- end }}

{{- define "hookline.adminServiceName" -}}
{{- printf "%s-admin" (include "hookline.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Name of one role's Deployment (and of its PDB, HPA, ScaledObject). Call with (dict "root" $ "component" "worker").
*/}}
{{- define "hookline.workloadName" -}}
{{- printf "%s-%s" (include "hookline.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Whether an autoscaler (an HPA, or KEDA's) owns the replica count of a workload from "hookline.workloads".
*/}}
{{- define "hookline.autoscaled" -}}
{{- if or (dig "autoscaling" "enabled" false .values) (dig "keda" "enabled" false .values) }}true{{ end }}
{{- end }}

{{- define "hookline.configMapName" -}}
{{- printf "%s-config" (include "hookline.fullname" .) }}
{{- end }}

{{/*
Secret and key of the admin token.
*/}}
{{- define "hookline.adminTokenSecretName" -}}
{{- .Values.adminToken.existingSecret | default (include "hookline.secretName" .) }}
{{- end }}

{{- define "hookline.adminTokenSecretKey" -}}
{{- if .Values.adminToken.existingSecret }}{{ .Values.adminToken.existingSecretKey }}{{ else }}admin-token{{ end }}
{{- end }}

{{/*
Secret and key of the secrets key (HOOKLINE_SECRETS_KEY): an existing Secret, or the chart's,
where a generated key is kept across upgrades.
*/}}
{{- define "hookline.secretsKeySecretName" -}}
{{- .Values.secretsKey.existingSecret | default (include "hookline.secretName" .) }}
{{- end }}

{{- define "hookline.secretsKeySecretKey" -}}
{{- if .Values.secretsKey.existingSecret }}{{ .Values.secretsKey.existingSecretKey }}{{ else }}secrets-key{{ end }}
{{- end }}

{{/*
Whether the chart's Secret holds inline Kafka SASL or schema registry credentials.
*/}}
{{- define "hookline.inlineSasl" -}}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) }}true{{ end }}
{{- end }}

{{- define "hookline.inlineRegistryAuth" -}}
{{- if and (not .Values.schemaRegistry.existingSecret) .Values.schemaRegistry.username }}true{{ end }}
{{- end }}

{{/*
Checks the values once; every template that renders a workload includes it.
*/}}
{{- define "hookline.validate" -}}
{{- if not .Values.kafka.brokers }}
{{- fail "kafka.brokers is required: comma-separated host:port bootstrap brokers" }}
{{- end }}
{{- if not .Values.schemaRegistry.url }}
{{- fail "schemaRegistry.url is required: the base URL of a Confluent-compatible schema registry" }}
{{- end }}
{{- if and .Values.kafka.sasl.mechanism (not (has .Values.kafka.sasl.mechanism (list "plain" "scram-sha-256" "scram-sha-512"))) }}
{{- fail "kafka.sasl.mechanism must be empty, plain, scram-sha-256 or scram-sha-512" }}
{{- end }}
{{- if and (include "hookline.inlineSasl" .) (or (not .Values.kafka.sasl.username) (not .Values.kafka.sasl.password)) }}
{{- fail "kafka.sasl.mechanism needs kafka.sasl.existingSecret, or kafka.sasl.username and kafka.sasl.password" }}
{{- end }}
{{- if and (include "hookline.inlineRegistryAuth" .) (not .Values.schemaRegistry.password) }}
{{- fail "schemaRegistry.username needs schemaRegistry.password" }}
{{- end }}
{{- if and .Values.secretsKey.existingSecretPreviousKey (not .Values.secretsKey.existingSecret) }}
{{- fail "secretsKey.existingSecretPreviousKey needs secretsKey.existingSecret: rotate the key in a Secret you manage" }}
{{- end }}
{{- if not (or .Values.roles.combined .Values.roles.ingest.enabled .Values.roles.router.enabled .Values.roles.worker.enabled .Values.roles.audiences.enabled) }}
{{- fail "no role enabled: set roles.combined=true or enable at least one of roles.ingest, roles.router, roles.worker, roles.audiences" }}
{{- end }}
{{- /* Settings the chart writes itself: a second value in `config` would clash with them. */}}
{{- $managed := dict
  "HOOKLINE_HTTP_HOST" "listenHost"
  "HOOKLINE_HTTP_PORT" "containerPort"
  "HOOKLINE_ADMIN_PORT" "adminApi.containerPort"
  "HOOKLINE_WORKERS" "processesPerPod"
  "HOOKLINE_ROLES" "roles"
  "HOOKLINE_ATTEMPT_INDEX" "roles.<role>.extraEnv"
  "HOOKLINE_ADVERTISED_HOST" "roles.<role>.extraEnv"
  "HOOKLINE_ADVERTISED_URL" "roles.<role>.extraEnv"
  "HOOKLINE_ALLOWED_NETWORKS" "allowedNetworks"
  "HOOKLINE_LOG_LEVEL" "logLevel"
  "KAFKA_BROKERS" "kafka.brokers"
  "KAFKA_CLIENT_ID" "kafka.clientId"
  "KAFKA_SSL" "kafka.ssl"
  "KAFKA_SASL_MECHANISM" "kafka.sasl"
  "KAFKA_SASL_USERNAME" "kafka.sasl"
  "HOOKLINE_KAFKA_ACK_TIMEOUT" "kafka.ackTimeout"
  "HOOKLINE_KAFKA_LINGER" "kafka.linger"
  "SCHEMA_REGISTRY_URL" "schemaRegistry.url"
  "SCHEMA_REGISTRY_USERNAME" "schemaRegistry"
  "HOOKLINE_TOPIC_PREFIX" "topics.prefix"
  "HOOKLINE_CREATE_TOPICS" "topics.create"
  "HOOKLINE_TOPIC_PARTITIONS" "topics.partitions"
  "HOOKLINE_TOPIC_REPLICATION_FACTOR" "topics.replicationFactor"
  "HOOKLINE_DLQ_INDEX_DIR" "dlqIndex (the chart mounts the directory)"
  "HOOKLINE_DLQ_CACHE_ENTRIES" "dlqIndex.cacheEntries"
  "HOOKLINE_AUDIENCE_STATE_DIR" "audienceState (the chart mounts the directory)"
  "HOOKLINE_AUDIENCE_CACHE_USERS" "audienceState.cacheUsers" }}
{{- range $name, $_ := .Values.config }}
{{- if hasKey $managed $name }}
{{- fail (printf "config.%s is set by the chart: use %s instead" $name (get $managed $name)) }}
{{- end }}
{{- end }}
{{- if .Values.adminToken.value }}
{{- fail "adminToken.value is no longer accepted (chart 0.3.0): the admin token comes only from a Secret. Put it in a Secret and set adminToken.existingSecret, or leave both empty for a generated token" }}
{{- end }}
{{- if and .Values.roles.combined .Values.roles.worker.keda.enabled }}
{{- fail "roles.worker.keda scales the worker Deployment: it needs roles.combined=false" }}
{{- end }}
{{- $partitions := .Values.topics.partitions | int }}
{{- /* Each pod runs processesPerPod consumers of the group. */}}
{{- $perPod := .Values.processesPerPod | int }}
{{- $times := ternary (printf " × processesPerPod (%d)" $perPod) "" (gt $perPod 1) }}
{{- range $w := (include "hookline.workloads" . | fromJson).items }}
{{- $v := $w.values }}
{{- /* Consumers of partitioned topics: more replicas than partitions sit idle. */}}
{{- $capped := ne $w.component "ingest" }}
{{- $scaled := or (dig "autoscaling" "enabled" false $v) (dig "keda" "enabled" false $v) }}
{{- if and $capped (not $scaled) (gt (mul (int $v.replicas) $perPod) $partitions) }}
{{- fail (printf "roles.%s.replicas (%d)%s exceeds topics.partitions (%d): consumers beyond the partition count sit idle" $w.key (int $v.replicas) $times $partitions) }}
{{- end }}
{{- $hpa := $v.autoscaling | default dict }}
{{- if $hpa.enabled }}
{{- if gt (int $hpa.minReplicas) (int $hpa.maxReplicas) }}
{{- fail (printf "roles.%s.autoscaling: minReplicas (%d) exceeds maxReplicas (%d)" $w.key (int $hpa.minReplicas) (int $hpa.maxReplicas)) }}
{{- end }}
{{- if and $capped (gt (mul (int $hpa.maxReplicas) $perPod) $partitions) }}
{{- fail (printf "roles.%s.autoscaling.maxReplicas (%d)%s exceeds topics.partitions (%d): replicas beyond the partition count sit idle" $w.key (int $hpa.maxReplicas) $times $partitions) }}
{{- end }}
{{- if not (dig "requests" "cpu" "" ($v.resources | default dict)) }}
{{- fail (printf "roles.%s.autoscaling scales on CPU utilisation, which needs roles.%s.resources.requests.cpu" $w.key $w.key) }}
{{- end }}
{{- end }}
{{- $keda := $v.keda | default dict }}
{{- if $keda.enabled }}
{{- if $hpa.enabled }}
{{- fail "roles.worker: keda and autoscaling are exclusive (KEDA creates an HPA of its own); enable one" }}
{{- end }}
{{- if gt (int $keda.minReplicas) (int $keda.maxReplicas) }}
{{- fail (printf "roles.worker.keda: minReplicas (%d) exceeds maxReplicas (%d)" (int $keda.minReplicas) (int $keda.maxReplicas)) }}
{{- end }}
{{- if gt (mul (int $keda.maxReplicas) $perPod) $partitions }}
{{- fail (printf "roles.worker.keda.maxReplicas (%d)%s exceeds topics.partitions (%d): replicas beyond the partition count sit idle" (int $keda.maxReplicas) $times $partitions) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The roles to deploy: a list of (dict "component" "roles" "values"), one per Deployment.
Rendered as JSON; read it with `include "hookline.workloads" . | fromJson`.
*/}}
{{- define "hookline.workloads" -}}
{{- $list := list }}
{{- if .Values.roles.combined }}
{{- $list = append $list (dict "component" "all" "key" "all" "roles" "ingest,router,worker,audiences" "values" .Values.roles.all) }}
{{- else }}
{{- range $role := list "ingest" "router" "worker" "audiences" }}
{{- $v := index $.Values.roles $role }}
{{- if $v.enabled }}
{{- $list = append $list (dict "component" $role "key" $role "roles" $role "values" $v) }}
{{- end }}
{{- end }}
{{- end }}
{{- dict "items" $list | toJson }}
{{- end }}
