package gate

import (
	"sort"
	"strings"
)

// Synonyms bridge the words an assistant picks and the words a library uses, without an LLM: a
// tag (or a word of an intercepted call) also searches for its synonyms, at synonymWeight of a
// direct hit. Keys and values are phrases; lookups are by phraseKey (the stems of the phrase,
// its particles kept), so "observability" and "Observable" share an entry. The relation is used
// both ways: a library that writes "observability" is found by the tag "tracing" too.
type synonymTable map[string][]string // phraseKey → phrases

const synonymWeight = 0.6

// builtinSynonyms is a small, reviewable table of common engineering terms. A project adds its
// own with `synonyms:` in its file (Project.Synonyms).
var builtinSynonyms = map[string][]string{
	"observability":  {"tracing", "metrics", "logging", "telemetry", "opentelemetry"},
	"monitoring":     {"metrics", "alerting", "dashboards"},
	"pii":            {"personal data", "phone number", "email address", "gdpr", "privacy"},
	"personal data":  {"pii", "gdpr", "privacy"},
	"gdpr":           {"personal data", "privacy", "data retention"},
	"s3":             {"object storage", "bucket"},
	"object storage": {"s3", "bucket", "blob"},
	"ci":             {"continuous integration", "pipeline", "build"},
	"cd":             {"continuous delivery", "deployment", "release"},
	"k8s":            {"kubernetes"},
	"kubernetes":     {"k8s", "cluster", "helm"},
	"db":             {"database", "sql"},
	"sql":            {"database", "query", "postgres"},
	"postgres":       {"postgresql", "database", "sql"},
	"auth":           {"authentication", "authorization", "login", "oauth"},
	"authn":          {"authentication", "login"},
	"authz":          {"authorization", "permission", "access control", "rbac"},
	"login":          {"authentication", "session", "sign in"},
	"secrets":        {"credentials", "api key", "vault", "token"},
	"credentials":    {"secrets", "password", "api key"},
	"xss":            {"cross site scripting", "escaping", "sanitize"},
	"csrf":           {"cross site request forgery", "token"},
	"sqli":           {"sql injection", "parameterized query"},
	"perf":           {"performance", "latency"},
	"latency":        {"performance", "slow", "timeout"},
	"outage":         {"incident", "postmortem", "on call"},
	"incident":       {"outage", "postmortem", "on call"},
	"oncall":         {"on call", "incident", "paging"},
	"deploy":         {"deployment", "release", "rollout"},
	"rollback":       {"revert", "release", "rollout"},
	"feature flag":   {"feature toggle", "rollout"},
	"a11y":           {"accessibility", "aria", "screen reader"},
	"i18n":           {"internationalization", "localization", "translation"},
	"l10n":           {"localization", "translation"},
	"ui":             {"frontend", "component", "css"},
	"frontend":       {"ui", "react", "component", "css"},
	"api":            {"endpoint", "rest api", "http"}, // not "rest" alone: data is encrypted "at rest"
	"endpoint":       {"api", "route", "handler"},
	"schema change":  {"migration", "alter table"},
	"migration":      {"schema change", "alter table"},
	"retry":          {"backoff", "idempotency"},
	"payment":        {"billing", "checkout", "charge", "refund"},
	"billing":        {"payment", "invoice", "subscription"},
	"card":           {"pci", "payment", "cardholder"},
	"pci":            {"cardholder data", "card", "payment"},
	"test":           {"testing", "unit test", "integration test"},
	"flaky":          {"flaky test", "nondeterministic", "retry"},
	"cache":          {"caching", "invalidation", "redis", "ttl"},
	"queue":          {"message queue", "kafka", "consumer"},
	"cost":           {"budget", "spend", "finops"},
	"dependency":     {"dependencies", "library", "upgrade", "vulnerability"},
	"vulnerability":  {"cve", "security", "patch"},
	"encryption":     {"encrypt", "tls", "kms"},
	"backup":         {"restore", "disaster recovery"},
	"docs":           {"documentation", "readme"},
	"error handling": {"errors", "exception", "retry"},
	"logging":        {"logs", "log level", "structured logging"},
}

// phraseKey is how a table phrase (a synonym's, an implied topic's) is keyed and looked up: its
// words stemmed, particles and prepositions kept, articles and other determiners dropped.
// Without the particles "on call" would be "call" and "sign in" "sign": a task that "calls" a
// service would reach the on-call topics, and one that signs webhooks the login's synonyms;
// "the monolith" is still "monolith". A tag is looked up by this key, by its stems alone
// (Index.query: "in production" finds "production") and, when it is longer, by the runs of its
// words that hold a particle ("on-call rotation" finds "on call"). A value is still searched in
// the index by its stems alone (the index keeps no function words), so the value "on call"
// also finds a prompt about internal "calls": weakly, at the table's weight.
func phraseKey(s string) string {
	var out []string
	words(s, func(w string) {
		switch {
		case determiners[w]:
		case indexStop[w]:
			out = append(out, w)
		default:
			out = append(out, stem(w))
		}
	})
	return strings.Join(out, " ")
}

// determiners say which thing, not what it is: a phrase's key leaves them out.
var determiners = setOf(`a an the this that these those my our your their its his her some any each every all no`)

// newSynonyms merges the built-in table with a project's, both directions, keyed by phraseKey.
// A project's entries come first, so they are tried before the built-in ones.
func newSynonyms(project map[string][]string) synonymTable {
	t := synonymTable{}
	add := func(from, to string) {
		k, v := phraseKey(from), strings.TrimSpace(to)
		if k == "" || v == "" || phraseKey(v) == k {
			return
		}
		for _, have := range t[k] {
			if phraseKey(have) == phraseKey(v) {
				return
			}
		}
		t[k] = append(t[k], v)
	}
	for _, tab := range []map[string][]string{project, builtinSynonyms} {
		for _, from := range sortedKeys(tab) {
			for _, to := range tab[from] {
				add(from, to)
			}
		}
	}
	for _, tab := range []map[string][]string{project, builtinSynonyms} {
		for _, from := range sortedKeys(tab) {
			for _, to := range tab[from] {
				add(to, from)
			}
		}
	}
	return t
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
