package gate

import (
	"strings"
	"sync"
)

// Implied topics are what a task brings with it that its words do not say: a senior engineer
// asked to "deploy the service" also thinks of health checks and rollback, one adding "an
// endpoint" of authorization, validation and the error format, one storing "a comment" from a
// user of input validation and escaping. Synonyms (synonyms.go) are other ways of saying the
// same thing; implied topics are other things, so they weigh less (impliedWeight of a tag, below
// synonymWeight) and go one way only: "deploy" implies "health checks", not the reverse. An
// implied topic is found only where a prompt names its topics (title, headings, summary: a body
// that mentions "ordering" in passing is not about it), and only whole ("rate limiting", not
// "limiting" alone); it is one alternative of the tag's concept (rank.go), so a prompt that
// matches the tag itself never gains from it, and one that matches only implied topics of
// several tags ("Health Checks" for kubernetes, deployment and helm) adds them up.
//
// How the table was written: from general software-engineering practice — the checklists of
// code review, production readiness, API design, secure coding (OWASP), data migration and
// incident handling that most teams share — before looking at which prompts any benchmark task
// is labelled with, and without reading the benchmark's library (testdata/gate), whose
// misses were known only by three examples (a deploy wanting health checks, a comment feature
// wanting input validation, a datastore decision wanting JSONB columns; the last is not here:
// no general practice ties choosing a datastore to one column type). It was not changed after
// looking at the benchmark. It was extended once, by a session that was given only this file
// and synonyms.go and wrote blind to the benchmark (no testdata, no tests, no eval runs), from
// how tickets are phrased ("list", "rename", "move", "theme", "leak", "sprint"): the groups
// "Networks and hosts", "Frontend", "Mobile", "Testing" and "Delivery and process" and the
// later keys of the other groups. Of what it wrote, the new keys were kept; the topics it
// added to existing keys were left out, because on the tuning half they cost precision
// (42.1 → 41.1 %) without adding recall; and of its keys, those this comment's rule below
// leaves out were dropped on review ("move": a cutover or a button; "requirements", whose stem
// is that of "required"; "leak", "backlog", "ownership", "sync", "stream", "cleanup",
// "moderation"). Its values were then pruned by another session, given only this file and
// synonyms.go, of what breaks the rule below: generic topics ("monitoring", "performance",
// "testing", "documentation" under most keys), bare words of another sense ("state" under
// terraform matches state management, "flags" under cli feature flags, "scope" under prototype
// OAuth scopes), one vendor's tool ("bcrypt", "vault") and topics only sometimes related
// ("pagination" under endpoint); 123 values, removed whole, as the tuning half showed no loss
// (begin_session unchanged, intercept precision +0.5). Keys are ~320 of the most common
// nouns and verbs engineering tasks are phrased with; each value lists only topics that practice
// ties to the key whatever the team or library. Like the synonyms, keys are phrases looked up
// by phraseKey ("deploying" and "deployment" find "deploy"; "on call" is not "call"). Words that name
// different things in different trades are left out as keys ("page": a web page or a pager,
// "model": a data model or an ML one, "message", "client", "load", "feature"): what they imply
// depends on which. A project's own same-meaning words go in `synonyms:` (Project.Synonyms).
type impliedTable map[string][]string // phraseKey → phrases

// impliedWeight is what an implied topic's match is worth next to a match of the tag itself.
var impliedWeight = 0.3

var builtinImplied = map[string][]string{
	// Shipping and running software.
	"deploy":             {"health checks", "rollback", "zero downtime"},
	"release":            {"changelog", "versioning", "rollback", "feature flags", "release notes"},
	"rollout":            {"feature flags", "canary", "rollback", "monitoring"},
	"hotfix":             {"rollback", "regression test", "release"},
	"service":            {"health checks", "graceful shutdown", "observability"},
	"microservice":       {"health checks", "graceful shutdown", "observability", "service discovery", "timeouts"},
	"container":          {"base image", "resource limits", "non root", "health checks", "image scanning"},
	"docker":             {"base image", "non root", "image size", "image scanning"},
	"kubernetes":         {"health checks", "readiness probe", "liveness probe", "resource limits", "autoscaling", "secrets"},
	"helm":               {"health checks", "resource limits", "configuration", "secrets"},
	"terraform":          {"plan review", "least privilege", "tagging"},
	"infrastructure":     {"infrastructure as code", "least privilege", "cost", "tagging", "disaster recovery"},
	"cloud":              {"iam", "least privilege", "cost", "encryption"},
	"pipeline":           {"caching", "secrets", "artifacts"},
	"build":              {"reproducible builds", "artifacts"},
	"config":             {"environment variables", "secrets", "defaults"},
	"environment":        {"configuration", "secrets", "staging", "parity"},
	"scale":              {"load testing", "autoscaling", "capacity planning", "caching"},
	"rollback":           {"database migrations", "backward compatibility", "feature flags", "runbook", "data loss"},
	"revert":             {"regression test", "root cause"},
	"canary":             {"traffic splitting", "automated rollback", "error rate", "monitoring", "health checks"},
	"blue green":         {"traffic switching", "backward compatibility", "health checks", "rollback", "connection draining"},
	"zero downtime":      {"expand and contract", "backward compatibility", "connection draining", "rolling update", "health checks"},
	"downtime":           {"maintenance window", "status page", "communication", "zero downtime", "rollback plan"},
	"maintenance window": {"status page", "communication", "rollback plan", "runbook"},
	"cutover":            {"rollback plan", "data sync", "runbook", "maintenance window", "communication"},
	"decommission":       {"dependency inventory", "data retention", "dns cleanup", "communication", "backups"},
	"sunset":             {"deprecation", "communication", "data export", "migration guide", "usage metrics"},
	"launch":             {"launch checklist", "rollback", "feature flags", "load testing", "communication"},
	"ci":                 {"caching", "flaky tests", "secrets", "parallelism", "artifacts", "branch protection"},
	"git":                {"branch protection", "commit messages", "code review"},
	"lint":               {"style guide", "static analysis", "autofix", "ci"},
	"serverless":         {"cold start", "timeouts", "concurrency limits", "iam", "cost"},
	"autoscaling":        {"scaling metrics", "resource limits", "load testing", "cost", "cooldown"},
	"aws":                {"iam", "least privilege", "cost", "tagging", "encryption"},

	// Networks and hosts.
	"server":            {"graceful shutdown", "timeouts", "tls", "health checks"},
	"dns":               {"ttl", "propagation", "tls certificates"},
	"certificate":       {"tls", "expiry", "automatic renewal", "key management"},
	"tls":               {"certificates", "hsts", "cipher suites", "certificate renewal"},
	"load balancer":     {"health checks", "tls termination", "connection draining", "timeouts"},
	"cdn":               {"cache invalidation", "cache headers", "tls certificates", "cost"},
	"region":            {"data residency", "failover", "replication", "latency"},
	"failover":          {"health checks", "replication", "disaster recovery", "runbook", "dns"},
	"disaster recovery": {"restore testing", "rto", "rpo", "runbook", "failover"},
	"high availability": {"redundancy", "failover", "health checks", "load balancing", "replication"},
	"traffic":           {"rate limiting", "autoscaling", "load balancing", "capacity planning"},
	"throttle":          {"rate limiting", "backoff", "quotas", "retry after"},

	// APIs and integrations.
	"endpoint":        {"authorization", "input validation", "error format", "rate limiting", "api versioning"},
	"api":             {"authentication", "authorization", "input validation", "error format", "rate limiting", "pagination", "versioning"},
	"route":           {"authorization", "input validation", "error handling"},
	"handler":         {"input validation", "error handling", "authorization", "timeouts"},
	"graphql":         {"query complexity", "authorization", "pagination"},
	"grpc":            {"deadlines", "schema evolution", "backward compatibility", "retries"},
	"protobuf":        {"schema evolution", "backward compatibility"},
	"webhook":         {"signature verification", "retries", "idempotency", "timeouts"},
	"integration":     {"timeouts", "retries", "rate limiting", "secrets"},
	"third party":     {"timeouts", "retries", "circuit breaker", "secrets"},
	"sdk":             {"versioning", "backward compatibility", "documentation", "changelog"},
	"websocket":       {"authentication", "reconnection", "backpressure", "heartbeat"},
	"pagination":      {"cursor", "sorting"},
	"versioning":      {"backward compatibility", "deprecation", "changelog"},
	"deprecate":       {"versioning", "migration guide", "backward compatibility", "communication"},
	"breaking change": {"versioning", "changelog", "migration guide", "deprecation"},
	"cli":             {"help text", "exit codes", "configuration"},
	"list":            {"pagination", "sorting", "filtering", "empty state"},
	"filter":          {"indexes", "input validation", "query parameters", "pagination"},
	"sort":            {"indexes", "stable ordering", "pagination", "collation"},
	"crud":            {"authorization", "input validation", "pagination"},
	"bulk":            {"batch size", "partial failure", "idempotency", "rate limiting", "transactions", "background job"},
	"rate limit":      {"quotas", "retry after", "backoff", "abuse", "api keys"},
	"quota":           {"rate limiting", "usage metering", "alerting"},
	"partner":         {"api keys", "scopes", "rate limiting", "sandbox", "api documentation", "sla"},
	"public api":      {"api versioning", "rate limiting", "api keys", "documentation", "deprecation policy", "backward compatibility"},
	"openapi":         {"api documentation", "code generation", "versioning"},
	"idempotency":     {"idempotency keys", "deduplication", "unique constraints", "transactions"},
	"cors":            {"allowed origins", "preflight requests", "csrf"},
	"redirect":        {"open redirect", "allowlist", "status codes"},
	"url":             {"input validation", "ssrf", "open redirect"},
	"http client":     {"timeouts", "retries", "connection pooling", "circuit breaker"},
	"real time":       {"websockets", "server sent events", "reconnection", "backpressure"},
	"chat":            {"moderation", "rate limiting", "message ordering", "websockets"},

	// User input and the web.
	"comment":      {"input validation", "xss", "escaping", "sanitize", "moderation", "spam", "rate limiting"},
	"user input":   {"input validation", "xss", "escaping", "sanitize"},
	"form":         {"input validation", "accessibility", "error messages", "csrf"},
	"upload":       {"file size limit", "content type", "input validation", "malware scanning", "object storage"},
	"file":         {"file size limit", "content type"},
	"download":     {"authorization", "signed urls", "streaming"},
	"search":       {"indexing", "pagination", "relevance", "input validation"},
	"markdown":     {"sanitize", "xss", "escaping"},
	"html":         {"xss", "escaping", "sanitize"},
	"rich text":    {"xss", "sanitize", "escaping"},
	"profile":      {"pii", "privacy", "input validation", "authorization"},
	"component":    {"accessibility", "design system", "responsive"},
	"frontend":     {"accessibility", "design system"},
	"ui":           {"accessibility", "design system", "responsive"},
	"mobile":       {"offline", "accessibility", "app store release"},
	"email":        {"templates", "unsubscribe", "retries", "queue", "spam"},
	"notification": {"templates", "preferences", "unsubscribe", "rate limiting"},
	"sms":          {"phone number", "opt out", "rate limiting", "pii"},
	"translation":  {"i18n", "pluralization", "date formats", "rtl"},
	"localization": {"i18n", "pluralization", "date formats", "rtl"},
	"date":         {"time zones", "utc", "date formats"},
	"timezone":     {"utc", "daylight saving", "date formats"},

	// Frontend.
	"theme":             {"design tokens", "css variables", "color contrast", "accessibility"},
	"dark mode":         {"design tokens", "color contrast", "prefers color scheme", "css variables"},
	"dashboard":         {"query performance", "data freshness", "loading states"},
	"blank page":        {"error boundaries", "error monitoring", "source maps", "browser compatibility"},
	"white screen":      {"error boundaries", "error monitoring", "source maps", "browser compatibility"},
	"button":            {"accessibility", "loading state", "double submit", "keyboard navigation"},
	"modal":             {"accessibility", "focus management", "keyboard navigation", "focus trap"},
	"autocomplete":      {"debouncing", "rate limiting", "accessibility", "caching", "relevance"},
	"responsive design": {"breakpoints", "mobile first", "touch targets", "viewport"},
	"css":               {"design tokens", "specificity", "responsive design", "css variables"},
	"design system":     {"design tokens", "accessibility", "versioning", "documentation", "theming"},
	"i18n":              {"pluralization", "date formats", "rtl", "currency formats", "string externalization"},
	"seo":               {"meta tags", "sitemap", "server side rendering", "canonical urls", "structured data"},
	"bundle size":       {"code splitting", "tree shaking", "lazy loading", "performance budget"},
	"cookie":            {"consent", "secure flag", "samesite", "httponly", "expiry"},

	// Mobile.
	"offline":           {"local storage", "sync", "conflict resolution", "idempotency", "retries", "queueing"},
	"push notification": {"device tokens", "opt in", "rate limiting", "deep linking"},
	"deep link":         {"universal links", "url schemes", "input validation", "routing"},
	"android":           {"play store release", "runtime permissions", "device fragmentation", "code signing"},
	"app store":         {"review guidelines", "staged rollout", "versioning", "release notes", "privacy labels"},
	"crash":             {"crash reporting", "stack traces", "regression test", "root cause"},

	// Identity and security.
	"login":            {"authentication", "password hashing", "rate limiting", "session", "mfa", "brute force", "audit log"},
	"signin":           {"authentication", "password hashing", "rate limiting", "session", "mfa"},
	"signup":           {"email verification", "input validation", "password policy", "rate limiting", "spam"},
	"registration":     {"email verification", "input validation", "password policy", "rate limiting"},
	"password":         {"hashing", "password reset", "rate limiting", "password policy"},
	"session":          {"cookies", "expiry", "csrf", "logout"},
	"token":            {"expiry", "rotation", "secrets", "revocation"},
	"oauth":            {"scopes", "refresh token", "redirect uri", "pkce"},
	"sso":              {"saml", "oidc", "authentication"},
	"permission":       {"least privilege", "rbac", "authorization", "audit log"},
	"role":             {"rbac", "least privilege", "authorization"},
	"admin":            {"authorization", "audit log", "rbac", "mfa"},
	"secret":           {"rotation", "encryption", "logging"},
	"api key":          {"rotation", "secrets", "scopes", "revocation"},
	"security":         {"threat model", "owasp", "input validation", "authentication", "secrets", "dependency scanning"},
	"vulnerability":    {"patching", "dependency upgrade", "disclosure", "severity"},
	"encryption":       {"key management", "key rotation", "tls", "kms"},
	"spam":             {"rate limiting", "captcha", "moderation"},
	"abuse":            {"rate limiting", "captcha", "moderation", "audit log"},
	"mfa":              {"totp", "backup codes", "account recovery", "webauthn", "rate limiting"},
	"2fa":              {"totp", "backup codes", "account recovery", "webauthn", "rate limiting"},
	"password reset":   {"token expiry", "rate limiting", "account enumeration", "email verification", "session invalidation"},
	"jwt":              {"signature verification", "expiry", "key rotation", "revocation", "algorithm confusion"},
	"invite":           {"token expiry", "email verification", "authorization", "rate limiting", "spam"},
	"tenant":           {"tenant isolation", "noisy neighbor", "authorization", "data partitioning"},
	"access control":   {"least privilege", "rbac", "audit log", "access reviews", "deny by default"},
	"audit log":        {"immutability", "retention", "pii", "access control", "tamper evidence"},
	"captcha":          {"accessibility", "bot detection", "privacy", "rate limiting"},
	"xss":              {"content security policy", "output encoding", "httponly cookies"},
	"csrf":             {"samesite cookies", "origin check", "double submit cookie"},
	"sql injection":    {"parameterized queries", "input validation", "least privilege"},
	"ssrf":             {"allowlist", "url validation", "network egress", "metadata endpoint"},
	"security headers": {"hsts", "content security policy", "frame options", "referrer policy"},
	"cve":              {"patching", "severity", "dependency upgrade", "sbom"},
	"data breach":      {"incident response", "breach notification", "secret rotation", "forensics", "communication"},
	"secret leak":      {"secret rotation", "revocation", "incident response", "secret scanning"},
	"privacy":          {"consent", "data minimization", "data retention", "anonymization", "privacy policy"},
	"pii":              {"encryption", "masking", "access control", "data retention", "logging"},
	"gdpr":             {"consent", "data subject requests", "right to erasure", "data processing agreement", "lawful basis"},
	"pci":              {"tokenization", "network segmentation", "scope reduction", "encryption"},
	"hipaa":            {"phi", "encryption", "audit log", "business associate agreement", "access control"},
	"compliance":       {"audit log", "access control", "data retention", "evidence collection"},
	"consent":          {"cookie banner", "audit trail", "withdrawal", "gdpr"},

	// Money.
	"payment":      {"idempotency", "pci", "audit log", "retries", "webhooks", "currency", "fraud"},
	"charge":       {"idempotency", "pci", "audit log", "currency"},
	"checkout":     {"idempotency", "payment", "pci", "fraud", "tax"},
	"refund":       {"idempotency", "audit log", "payment", "reconciliation", "authorization"},
	"invoice":      {"billing", "tax", "currency", "rounding"},
	"subscription": {"billing", "proration", "cancellation"},
	"price":        {"currency", "rounding", "decimal", "tax"},
	"money":        {"currency", "rounding", "decimal"},
	"currency":     {"rounding", "decimal", "exchange rates"},
	"billing":      {"idempotency", "proration", "dunning", "audit log", "reconciliation"},
	"cart":         {"session", "inventory", "concurrency", "price changes"},
	"discount":     {"rounding", "abuse", "expiry", "stacking rules", "tax"},
	"tax":          {"rounding", "tax jurisdiction", "tax rates", "audit log", "exemptions"},
	"ledger":       {"double entry", "immutability", "reconciliation", "audit log", "decimal"},
	"fraud":        {"risk scoring", "velocity checks", "manual review", "audit log"},

	// Data.
	"database":         {"migrations", "indexes", "transactions", "backups", "connection pooling"},
	"datastore":        {"data modeling", "schema", "indexes", "backups", "transactions", "consistency"},
	"migration":        {"backward compatibility", "rollback", "backfill", "locking", "zero downtime", "backup"},
	"schema":           {"migrations", "backward compatibility", "versioning", "indexes"},
	"table":            {"migrations", "indexes", "constraints"},
	"column":           {"migrations", "indexes", "backfill", "nullability"},
	"query":            {"indexes", "sql injection", "query plan"},
	"sql":              {"sql injection", "parameterized queries", "indexes", "transactions"},
	"transaction":      {"isolation", "locking", "deadlock"},
	"index":            {"query plan", "migrations", "locking"},
	"cache":            {"invalidation", "ttl", "consistency", "stampede", "eviction"},
	"backup":           {"restore", "retention", "disaster recovery", "encryption"},
	"personal data":    {"pii", "gdpr", "data retention", "encryption", "consent"},
	"user data":        {"pii", "privacy", "gdpr", "data retention", "encryption"},
	"delete":           {"soft delete", "data retention", "audit log"},
	"account deletion": {"gdpr", "data retention", "soft delete", "audit log"},
	"export":           {"pii", "authorization", "csv injection", "background job"},
	"import":           {"input validation", "encoding", "idempotency"},
	"csv":              {"csv injection", "encoding", "input validation"},
	"report":           {"pii", "authorization"},
	"analytics":        {"pii", "consent", "privacy", "event schema"},
	"tracking":         {"consent", "privacy", "pii"},
	"etl":              {"idempotency", "data quality", "backfill", "schema"},
	"data pipeline":    {"idempotency", "data quality", "backfill", "schema"},
	"storage":          {"encryption", "access control", "backups"},
	"bucket":           {"access control", "encryption", "public access"},
	"rename":           {"backward compatibility", "expand and contract", "deprecation", "migrations"},
	"field":            {"input validation", "backward compatibility", "defaults", "nullability"},
	"backfill":         {"idempotency", "batching", "rate limiting", "resumability"},
	"replication":      {"replication lag", "failover", "consistency"},
	"shard":            {"shard key", "rebalancing", "cross shard queries", "hot spots"},
	"postgres":         {"connection pooling", "vacuum", "indexes", "migrations", "backups", "locking"},
	"redis":            {"eviction", "ttl", "persistence", "memory limits", "high availability"},
	"kafka":            {"partitioning", "consumer groups", "ordering", "retention", "schema registry", "idempotency"},
	"s3":               {"bucket policy", "presigned urls", "encryption", "lifecycle rules", "public access"},
	"data warehouse":   {"data modeling", "partitioning", "cost", "data quality", "access control", "pii"},
	"orm":              {"eager loading", "migrations", "transactions", "query performance", "raw sql"},
	"soft delete":      {"data retention", "unique constraints", "query filters", "gdpr", "restore"},
	"data retention":   {"legal hold", "automated deletion", "storage cost", "backups", "anonymization"},
	"deduplication":    {"idempotency", "unique constraints", "race conditions", "merge rules"},
	"stale data":       {"cache invalidation", "ttl", "replication lag", "data freshness"},
	"inventory":        {"race conditions", "overselling", "reservations", "reconciliation", "locking"},

	// Asynchronous work.
	"job":            {"idempotency", "retries", "timeouts", "locking", "dead letter queue"},
	"background job": {"idempotency", "retries", "timeouts", "dead letter queue"},
	"cron":           {"idempotency", "locking", "time zones", "alerting"},
	"worker":         {"idempotency", "retries", "graceful shutdown", "concurrency", "dead letter queue"},
	"queue":          {"idempotency", "retries", "dead letter queue", "ordering", "backpressure"},
	"consumer":       {"idempotency", "retries", "dead letter queue", "ordering", "backpressure"},
	"event":          {"event schema", "versioning", "idempotency", "ordering"},
	"batch":          {"idempotency", "retries", "chunking"},
	"retry":          {"idempotency", "backoff", "jitter", "timeouts"},
	"timeout":        {"retries", "backoff", "circuit breaker", "deadlines"},
	"concurrency":    {"locking", "race conditions", "deadlock"},
	"lock":           {"deadlock", "timeouts", "contention"},

	// Operating it.
	"alert":             {"runbook", "on call", "thresholds", "paging", "slo", "dashboards"},
	"incident":          {"postmortem", "runbook", "communication", "status page", "on call", "severity"},
	"outage":            {"postmortem", "runbook", "communication", "status page", "on call", "severity"},
	"postmortem":        {"blameless", "timeline", "action items", "root cause"},
	"on call":           {"runbook", "escalation", "alerting", "paging"},
	"monitoring":        {"alerting", "dashboards", "slo", "metrics"},
	"slo":               {"error budget", "alerting", "sli"},
	"logging":           {"pii", "structured logging", "log levels", "retention"},
	"metrics":           {"cardinality", "dashboards", "labels", "alerting"},
	"tracing":           {"context propagation", "sampling", "spans"},
	"error":             {"error handling", "logging", "error format"},
	"performance":       {"profiling", "benchmarks", "caching", "indexes", "load testing"},
	"slow":              {"profiling", "indexes", "caching", "query plan"},
	"latency":           {"profiling", "caching", "timeouts", "percentiles"},
	"cost":              {"budgets", "tagging", "rightsizing"},
	"memory leak":       {"heap profiling", "resource cleanup", "memory limits"},
	"goroutine":         {"context cancellation", "goroutine leaks", "race conditions", "worker pools", "graceful shutdown"},
	"race condition":    {"locking", "atomic operations", "race detector", "idempotency", "transactions"},
	"deadlock":          {"lock ordering", "timeouts", "transactions", "thread dumps"},
	"exception":         {"stack traces", "error monitoring", "logging", "error format"},
	"5xx":               {"error monitoring", "logging", "alerting", "root cause", "rollback"},
	"health check":      {"readiness probe", "liveness probe", "dependency checks", "timeouts"},
	"graceful shutdown": {"signal handling", "connection draining", "in flight requests", "timeouts"},
	"sla":               {"slo", "error budget", "service credits", "status page"},
	"runbook":           {"alerting", "on call", "escalation"},
	"capacity":          {"load testing", "forecasting", "autoscaling", "headroom"},
	"circuit breaker":   {"timeouts", "fallbacks", "retries", "health checks", "half open"},
	"observability":     {"structured logging", "context propagation", "cardinality", "sampling", "dashboards", "alerting"},
	"debug":             {"reproduction", "logging", "root cause", "bisect"},
	"connection pool":   {"pool sizing", "timeouts", "connection leaks", "health checks"},

	// Changing code.
	"dependency":   {"vulnerability scanning", "license", "pinning", "lockfile", "changelog", "breaking changes"},
	"upgrade":      {"changelog", "breaking changes", "rollback", "vulnerability"},
	"library":      {"license", "vulnerability", "pinning"},
	"package":      {"license", "versioning", "lockfile", "vulnerability"},
	"test":         {"unit tests", "integration tests", "fixtures", "mocking", "coverage", "flaky tests"},
	"bug":          {"regression test", "root cause", "reproduction"},
	"fix":          {"regression test", "root cause"},
	"refactor":     {"tests", "backward compatibility", "small changes"},
	"pull request": {"code review", "tests", "small changes"},
	"code review":  {"review checklist", "tests", "style guide"},
	"feature flag": {"rollout", "cleanup", "kill switch"},
	"prototype":    {"spike", "throwaway"},

	// Testing.
	"unit test":        {"mocking", "test isolation", "coverage", "test naming"},
	"integration test": {"fixtures", "test data", "cleanup", "ci"},
	"e2e":              {"flaky tests", "test data", "selectors", "ci", "page objects"},
	"end to end test":  {"flaky tests", "test data", "selectors", "ci", "page objects"},
	"flaky":            {"test isolation", "race conditions", "quarantine", "time dependence"},
	"mock":             {"test doubles", "contract testing", "fakes"},
	"fixture":          {"test data", "factories", "cleanup", "test isolation"},
	"coverage":         {"critical paths", "mutation testing", "ci gates"},
	"load test":        {"realistic traffic", "baselines", "percentiles", "production safety", "capacity planning"},
	"benchmark":        {"profiling", "baselines", "statistical noise", "regression detection"},
	"qa":               {"test plan", "regression testing", "acceptance criteria", "staging"},
	"regression":       {"regression test", "bisect", "root cause", "rollback"},
	"test data":        {"anonymization", "factories", "seed data", "pii"},

	// Delivery and process.
	"sprint":         {"backlog", "estimation", "acceptance criteria", "definition of done", "retrospective"},
	"tech debt":      {"prioritization", "refactoring", "tests", "dead code"},
	"technical debt": {"prioritization", "refactoring", "tests", "dead code"},
	"dead code":      {"static analysis", "coverage", "feature flag removal", "deprecation"},
	"estimate":       {"assumptions", "risk assessment", "unknowns", "spike", "task breakdown"},
	"roadmap":        {"prioritization", "milestones", "stakeholders"},
	"user story":     {"acceptance criteria", "definition of done", "edge cases", "estimation"},
	"handoff":        {"documentation", "runbook", "ownership", "knowledge transfer", "access transfer"},
	"beta":           {"feature flags", "feedback", "opt in", "known issues", "rollout"},
	"changelog":      {"semantic versioning", "release notes", "breaking changes"},

	// Deciding and writing down.
	"design":            {"trade offs", "alternatives", "design review"},
	"architecture":      {"architecture decision record", "trade offs", "alternatives", "design review"},
	"adr":               {"architecture decision record", "trade offs", "alternatives", "consequences"},
	"decision":          {"architecture decision record", "trade offs", "alternatives"},
	"rfc":               {"design doc", "alternatives"},
	"proposal":          {"design doc", "alternatives"},
	"documentation":     {"examples", "readme", "style guide"},
	"readme":            {"setup", "examples", "documentation"},
	"onboarding":        {"documentation", "setup", "mentoring"},
	"ml":                {"evaluation", "data privacy", "bias"},
	"llm":               {"prompt injection", "evaluation", "cost", "pii"},
	"docs":              {"examples", "style guide", "docs as code", "broken links"},
	"api documentation": {"openapi", "examples", "error codes", "authentication", "changelog"},
	"release notes":     {"breaking changes", "upgrade guide", "known issues"},
	"migration guide":   {"breaking changes", "examples", "deprecation timeline"},
	"ai":                {"evaluation", "prompt injection", "pii", "cost", "human review"},
	"chatbot":           {"prompt injection", "moderation", "evaluation", "pii", "fallbacks"},
	"rag":               {"chunking", "retrieval evaluation", "access control", "citations", "freshness"},
}

// impliedTopics is builtinImplied keyed by phraseKey, built on first use: it does not depend on
// the project, so every index shares it.
var impliedTopics = sync.OnceValue(func() impliedTable {
	t := impliedTable{}
	for _, from := range sortedKeys(builtinImplied) {
		k := phraseKey(from)
		for _, to := range builtinImplied[from] {
			to = strings.TrimSpace(to)
			if k == "" || to == "" || phraseKey(to) == k || containsPhrase(t[k], to) {
				continue
			}
			t[k] = append(t[k], to)
		}
	}
	return t
})

func containsPhrase(list []string, p string) bool {
	for _, have := range list {
		if phraseKey(have) == phraseKey(p) {
			return true
		}
	}
	return false
}
