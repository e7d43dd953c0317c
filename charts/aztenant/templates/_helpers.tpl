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
crds.pattern applied to files/crds.yaml (the index of the CRDs the operator
embeds and applies), as JSON: "names", the CRD names selected (the identity,
tenancy and plan groups always are), which the operator may update; "omit",
the kinds (group/Kind) left out, for NOTES.txt; "resources", the selected
CRDs' resources (plural names) by group, which the user roles grant. The
operator applies the same selection from its --crd-pattern
(internal/crdinstall), and a test keeps the two alike.
*/}}
{{- define "aztenant.crdSelection" -}}
{{- $regexps := include "aztenant.crdRegexps" . | fromJsonArray }}
{{- $core := include "aztenant.coreGroups" . | fromJsonArray }}
{{- $in := list }}
{{- $azure := list }}
{{- $out := list }}
{{- $resources := dict }}
{{- range (.Files.Get "files/crds.yaml" | fromYamlArray) }}
{{- $gk := printf "%s/%s" .group .kind }}
{{- $want := has .group $core }}
{{- $crd := . }}
{{- range $regexps }}
{{- if or (regexMatch . $gk) (regexMatch . $crd.name) (regexMatch . $crd.group) }}
{{- $want = true }}
{{- end }}
{{- end }}
{{- if $want }}
{{- $in = append $in .name }}
{{- if not (has .group $core) }}
{{- $azure = append $azure .name }}
{{- end }}
{{- $_ := set $resources .group (append (get $resources .group | default list) .plural) }}
{{- else }}
{{- $out = append $out $gk }}
{{- end }}
{{- end }}
{{- toJson (dict "names" $in "azure" $azure "omit" $out "resources" $resources) }}
{{- end }}

{{/* crds.pattern as the operator's --crd-pattern: globs joined by ";". */}}
{{- define "aztenant.crdPatternArg" -}}
{{- $raw := .Values.crds.pattern }}
{{- if kindIs "string" $raw }}{{ $raw }}{{ else }}{{ join ";" $raw }}{{ end }}
{{- end }}

{{/*
The chart's one requirement of the cluster, Kubernetes 1.30 or later, checked
against the API server helm talks to: its discovery lists kinds (v1/Namespace
is always served), an offline render lists only Helm's built-in group
versions and is not checked. ValidatingAdmissionPolicy v1 (GA in 1.30) is
what the chart needs: the provisioner accounts' reservation and the CRD guard.
*/}}
{{- define "aztenant.requireServer" -}}
{{- $api := .Capabilities.APIVersions }}
{{- if and ($api.Has "v1/Namespace") (not ($api.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")) }}
{{- fail (printf "the aztenant chart needs Kubernetes 1.30 or later (admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy); the API server is %s" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- end }}
