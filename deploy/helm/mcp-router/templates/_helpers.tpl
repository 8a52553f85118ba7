{{- define "mcp-router.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The Deployment's name: fullnameOverride, else the release name. Its pods
are named <fullname>-<pod-template-hash, up to 10>-<5>, and a pod's name
is its replica name (MCP_ROUTER_REPLICA), which the router caps at 32
characters of [a-z0-9-]: so at most 15 characters here, and no dots.
*/}}
{{- define "mcp-router.fullname" -}}
{{- $name := default .Release.Name .Values.fullnameOverride }}
{{- if not (regexMatch "^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$" $name) }}
{{- fail (printf "the name %q is not 1-15 characters of [a-z0-9-]: pod names are replica names (at most 32 characters, the name plus 17); choose a shorter release name or set fullnameOverride" $name) }}
{{- end }}
{{- $name }}
{{- end }}

{{- define "mcp-router.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "mcp-router.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "mcp-router.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mcp-router.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "mcp-router.secretName" -}}
{{- default (include "mcp-router.fullname" .) .Values.existingSecret }}
{{- end }}
