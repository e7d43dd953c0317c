{{/* Chart name, overridable. */}}
{{- define "aztenant.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-<chart> unless the release name already holds it. */}}
{{- define "aztenant.fullname" -}}
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

{{- define "aztenant.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "aztenant.labels" -}}
helm.sh/chart: {{ include "aztenant.chart" . }}
{{ include "aztenant.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: aztenant
{{- end }}

{{/* Labels selecting the operator pods. */}}
{{- define "aztenant.selectorLabels" -}}
app.kubernetes.io/name: {{ include "aztenant.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* The operator's ServiceAccount name. */}}
{{- define "aztenant.serviceAccountName" -}}
{{- default (include "aztenant.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* The image reference: repository@digest, else repository:tag (tag defaults to appVersion). */}}
{{- define "aztenant.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Where the CA bundle is mounted. */}}
{{- define "aztenant.caBundleDir" -}}/etc/aztenant/azure-ca{{- end }}

{{/*
crds.pattern as a JSON list of Go regular expressions: a glob list, or one
string separated by ";". "*" matches any run of characters, "?" one; matching
is case-insensitive and anchored.
*/}}
{{- define "aztenant.crdRegexps" -}}
{{- $raw := .Values.crds.pattern }}
{{- $globs := list }}
{{- if kindIs "string" $raw }}
{{- $globs = splitList ";" $raw }}
{{- else }}
{{- $globs = $raw }}
{{- end }}
{{- $res := list }}
{{- range $globs }}
{{- $g := trim . }}
{{- if $g }}
{{- $re := regexQuoteMeta $g | replace "\\*" ".*" | replace "\\?" "." }}
{{- $res = append $res (printf "(?i)^%s$" $re) }}
{{- end }}
{{- end }}
{{- toJson $res }}
{{- end }}

{{/* Groups whose CRDs are always installed: the operator cannot start without them. */}}
{{- define "aztenant.coreGroups" -}}
["identity.aztenant.io", "tenancy.aztenant.io", "plan.aztenant.io"]
{{- end }}

{{/*
crds.pattern applied to crds-src/, as JSON: "install", the CRD files
selected (the identity and tenancy groups always are); "omit", the kinds
(group/Kind) left out, for NOTES.txt; "resources", the selected CRDs'
resources (plural names) by group, which the user roles grant.
*/}}
{{- define "aztenant.crdSelection" -}}
{{- $regexps := include "aztenant.crdRegexps" . | fromJsonArray }}
{{- $core := include "aztenant.coreGroups" . | fromJsonArray }}
{{- $in := list }}
{{- $out := list }}
{{- $resources := dict }}
{{- range $path, $_ := .Files.Glob "crds-src/*.yaml" }}
{{- $crd := $.Files.Get $path | fromYaml }}
{{- if hasKey $crd "Error" }}
{{- fail (printf "%s: %s" $path $crd.Error) }}
{{- end }}
{{- $group := $crd.spec.group }}
{{- $gk := printf "%s/%s" $group $crd.spec.names.kind }}
{{- $want := has $group $core }}
{{- range $regexps }}
{{- if or (regexMatch . $gk) (regexMatch . $crd.metadata.name) (regexMatch . $group) }}
{{- $want = true }}
{{- end }}
{{- end }}
{{- if $want }}
{{- $in = append $in $path }}
{{- $_ := set $resources $group (append (get $resources $group | default list) $crd.spec.names.plural) }}
{{- else }}
{{- $out = append $out $gk }}
{{- end }}
{{- end }}
{{- toJson (dict "install" $in "omit" $out "resources" $resources) }}
{{- end }}
