// mcpctl_rank: FTS5's bm25 that also counts the rows it ranks, so a search learns its total from
// the ranking pass instead of a second pass over the doclists (see rank.go).
//
// go-sqlite3 compiles SQLite into the binary and exposes no header to other packages, so the
// few declarations used are repeated here, copied from sqlite3.h (public domain). The FTS5
// structs are append-only by SQLite's versioning rules: the leading members below are the
// layout of every version since FTS5 shipped.
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long long sqlite3_int64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_api_routines sqlite3_api_routines;

#define SQLITE_OK 0
#define SQLITE_UTF8 1
#define SQLITE_DIRECTONLY 0x000080000
#define SQLITE_INNOCUOUS 0x000200000

int sqlite3_auto_extension(void (*xEntryPoint)(void));
int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
int sqlite3_bind_pointer(sqlite3_stmt *, int, void *, const char *, void (*)(void *));
int sqlite3_step(sqlite3_stmt *);
int sqlite3_finalize(sqlite3_stmt *);
int sqlite3_create_function_v2(sqlite3 *, const char *, int, int, void *,
                               void (*)(sqlite3_context *, int, sqlite3_value **),
                               void (*)(sqlite3_context *, int, sqlite3_value **),
                               void (*)(sqlite3_context *), void (*)(void *));
void *sqlite3_user_data(sqlite3_context *);
void *sqlite3_malloc64(unsigned long long);
void sqlite3_free(void *);
double sqlite3_value_double(sqlite3_value *);
sqlite3_int64 sqlite3_value_int64(sqlite3_value *);
void sqlite3_result_double(sqlite3_context *, double);
void sqlite3_result_int64(sqlite3_context *, sqlite3_int64);
void sqlite3_result_error(sqlite3_context *, const char *, int);
void sqlite3_result_error_code(sqlite3_context *, int);
void sqlite3_result_error_nomem(sqlite3_context *);

typedef struct Fts5ExtensionApi Fts5ExtensionApi;
typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter Fts5PhraseIter;
typedef struct fts5_api fts5_api;
typedef struct fts5_tokenizer fts5_tokenizer;
typedef void (*fts5_extension_function)(const Fts5ExtensionApi *, Fts5Context *, sqlite3_context *,
                                        int, sqlite3_value **);

struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context *);
	int (*xColumnCount)(Fts5Context *);
	int (*xRowCount)(Fts5Context *, sqlite3_int64 *pnRow);
	int (*xColumnTotalSize)(Fts5Context *, int iCol, sqlite3_int64 *pnToken);
	int (*xTokenize)(Fts5Context *, const char *, int, void *, int (*)(void *, int, const char *, int, int, int));
	int (*xPhraseCount)(Fts5Context *);
	int (*xPhraseSize)(Fts5Context *, int iPhrase);
	int (*xInstCount)(Fts5Context *, int *pnInst);
	int (*xInst)(Fts5Context *, int iIdx, int *piPhrase, int *piCol, int *piOff);
	sqlite3_int64 (*xRowid)(Fts5Context *);
	int (*xColumnText)(Fts5Context *, int iCol, const char **pz, int *pn);
	int (*xColumnSize)(Fts5Context *, int iCol, int *pnToken);
	int (*xQueryPhrase)(Fts5Context *, int iPhrase, void *pUserData,
	                    int (*)(const Fts5ExtensionApi *, Fts5Context *, void *));
	int (*xSetAuxdata)(Fts5Context *, void *pAux, void (*xDelete)(void *));
	void *(*xGetAuxdata)(Fts5Context *, int bClear);
	/* later members are not used */
};

struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *, const char *, void *, fts5_tokenizer *, void (*)(void *));
	int (*xFindTokenizer)(fts5_api *, const char *, void **, fts5_tokenizer *);
	int (*xCreateFunction)(fts5_api *, const char *zName, void *pUserData,
	                       fts5_extension_function xFunction, void (*xDestroy)(void *));
	/* later members are not used */
};

// matches is one connection's count of the rows its last mcpctl_rank query ranked.
typedef struct matches {
	sqlite3_int64 n;
} matches;

// query is what one query's first call to mcpctl_rank works out, as bm25 does: each phrase's
// IDF and the mean document length.
typedef struct query {
	int nPhrase;
	double avgdl;
	double *idf;
	double *freq;
} query;

// scan is one phrase's pass for its IDF. With rows set it also intersects the phrase's rowids
// with the rows of the phrases before it (kept ascending in rows[0:n]), so that after the last
// phrase n is the number of rows holding every phrase: the matches of an AND query.
typedef struct scan {
	sqlite3_int64 nHit;
	sqlite3_int64 *rows, n, cap, at, kept, last;
	int first, unordered, nomem;
} scan;

static int scanRow(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
	scan *sc = user;
	sc->nHit++;
	if (sc->rows == NULL && !sc->first) return SQLITE_OK;
	sqlite3_int64 rowid = api->xRowid(fts);
	if (sc->nHit > 1 && rowid <= sc->last) sc->unordered = 1;
	sc->last = rowid;
	if (sc->first) {
		if (sc->n == sc->cap) {
			sqlite3_int64 cap = sc->cap ? 2 * sc->cap : 1024;
			sqlite3_int64 *rows = sqlite3_malloc64(sizeof(sqlite3_int64) * (unsigned long long)cap);
			if (rows == NULL) {
				sc->nomem = 1;
				return 7; /* SQLITE_NOMEM */
			}
			if (sc->n) memcpy(rows, sc->rows, sizeof(sqlite3_int64) * (size_t)sc->n);
			sqlite3_free(sc->rows);
			sc->rows = rows;
			sc->cap = cap;
		}
		sc->rows[sc->n++] = rowid;
		return SQLITE_OK;
	}
	while (sc->at < sc->n && sc->rows[sc->at] < rowid) sc->at++;
	if (sc->at < sc->n && sc->rows[sc->at] == rowid) sc->rows[sc->kept++] = sc->rows[sc->at++];
	return SQLITE_OK;
}

static void freeQuery(void *p) { sqlite3_free(p); }

// newQuery works out q for the query. With and, the query is an AND of its phrases and *total
// is set to its number of matches, or -1 when the phrases' rows did not come in rowid order.
static int newQuery(const Fts5ExtensionApi *api, Fts5Context *fts, int and, query **out, sqlite3_int64 *total) {
	int nPhrase = api->xPhraseCount(fts);
	query *q = sqlite3_malloc64(sizeof(query) + 2 * sizeof(double) * (nPhrase > 0 ? nPhrase : 1));
	if (q == NULL) return 7; /* SQLITE_NOMEM */
	memset(q, 0, sizeof(query));
	q->nPhrase = nPhrase;
	q->idf = (double *)&q[1];
	q->freq = &q->idf[nPhrase];
	sqlite3_int64 nRow = 0, nToken = 0;
	int rc = api->xRowCount(fts, &nRow);
	if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
	if (rc == SQLITE_OK) q->avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
	scan sc;
	memset(&sc, 0, sizeof(sc));
	for (int i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
		sc.nHit = 0;
		sc.first = and && i == 0;
		sc.at = sc.kept = 0;
		rc = api->xQueryPhrase(fts, i, &sc, scanRow);
		if (rc == SQLITE_OK) {
			double idf = log((nRow - sc.nHit + 0.5) / (sc.nHit + 0.5));
			q->idf[i] = idf <= 0.0 ? 1e-6 : idf;
			if (!sc.first && sc.rows != NULL) sc.n = sc.kept;
		}
	}
	*total = and && !sc.unordered && !sc.nomem && nPhrase > 0 ? sc.n : -1;
	sqlite3_free(sc.rows);
	if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, q, freeQuery);
	if (rc != SQLITE_OK) {
		sqlite3_free(q);
		return rc;
	}
	*out = q;
	return SQLITE_OK;
}

// mcpctl_rank(fts, broadAt, and, w0, w1, ...) is bm25(fts, w0, w1, ...), the same score to the
// bit, and counts each row it ranks in the connection's matches. When broadAt > 0 it stops a
// query that matches more than broadAt rows with the error "mcpctl: broad N": with and set
// (the query is an AND of its phrases and nothing else narrows it), on its first row, N the
// exact number of matches, which the phrases' IDF pass counts anyway; otherwise once it has
// ranked broadAt + 1 rows, N unknown (-1).
static void rankFunc(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                     sqlite3_value **apVal) {
	char msg[64];
	matches *m = api->xUserData(fts);
	sqlite3_int64 broadAt = nVal > 0 ? sqlite3_value_int64(apVal[0]) : 0;
	int and = nVal > 1 ? (int)sqlite3_value_int64(apVal[1]) : 0;
	query *q = api->xGetAuxdata(fts, 0);
	if (q == NULL) {
		sqlite3_int64 total = -1;
		int rc = newQuery(api, fts, and, &q, &total);
		if (rc != SQLITE_OK) {
			sqlite3_result_error_code(ctx, rc);
			return;
		}
		m->n = 0;
		if (broadAt > 0 && total > broadAt) {
			snprintf(msg, sizeof(msg), "mcpctl: broad %lld", total);
			sqlite3_result_error(ctx, msg, -1);
			return;
		}
	}
	m->n++;
	if (broadAt > 0 && m->n > broadAt) {
		sqlite3_result_error(ctx, "mcpctl: broad -1", -1);
		return;
	}
	const double k1 = 1.2, b = 0.75;
	memset(q->freq, 0, sizeof(double) * q->nPhrase);
	int nInst = 0;
	int rc = api->xInstCount(fts, &nInst);
	for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
		int ip, ic, io;
		rc = api->xInst(fts, i, &ip, &ic, &io);
		if (rc == SQLITE_OK) q->freq[ip] += (nVal - 2 > ic) ? sqlite3_value_double(apVal[2 + ic]) : 1.0;
	}
	int nTok = 0;
	if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &nTok);
	if (rc != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	double D = (double)nTok, score = 0.0;
	for (int i = 0; i < q->nPhrase; i++) {
		score += q->idf[i] * ((q->freq[i] * (k1 + 1.0)) / (q->freq[i] + k1 * (1 - b + b * D / q->avgdl)));
	}
	sqlite3_result_double(ctx, -1.0 * score);
}

// mcpctl_matches() is how many rows the connection's last mcpctl_rank query ranked.
static void matchesFunc(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	(void)nVal;
	(void)apVal;
	matches *m = sqlite3_user_data(ctx);
	sqlite3_result_int64(ctx, m->n);
}

static fts5_api *fts5API(sqlite3 *db) {
	fts5_api *api = NULL;
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) == SQLITE_OK) {
		sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
		sqlite3_step(stmt);
	}
	sqlite3_finalize(stmt);
	return api;
}

// registerRank runs for every connection the process opens. A connection without FTS5 is left
// as it is; nothing here may fail the open.
static int registerRank(sqlite3 *db, char **errMsg, const sqlite3_api_routines *thunk) {
	(void)errMsg;
	(void)thunk;
	fts5_api *api = fts5API(db);
	if (api == NULL || api->iVersion < 2) return SQLITE_OK;
	matches *m = sqlite3_malloc64(sizeof(matches));
	if (m == NULL) return SQLITE_OK;
	m->n = 0;
	// The scalar function owns m and frees it when the connection closes; the FTS5 function
	// borrows it.
	if (sqlite3_create_function_v2(db, "mcpctl_matches", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, m, matchesFunc,
	                               NULL, NULL, sqlite3_free) != SQLITE_OK) {
		return SQLITE_OK;
	}
	api->xCreateFunction(api, "mcpctl_rank", m, rankFunc, NULL);
	return SQLITE_OK;
}

int mcpctl_register_rank(void) { return sqlite3_auto_extension((void (*)(void))registerRank); }
