// Package promptlib is the prompt library's vocabulary: folders, prompts, colors, the field
// rules every write must pass (field validation, and the folder rules CheckCreateFolder,
// CheckUpdateFolder and CheckDeleteFolder shared by the MCP pre-check and Apply), the error codes (with hints) the model and the user see, and the
// Prompteka-compatible SQL schema, and the British and American spellings of a word that search
// and the gate's ranking treat as one (AmericanSpelling, OtherSpelling), and what a text costs in a model's context (Tokens). It does no I/O of its own; functions that touch a database take
// a *sql.DB or *sql.Tx opened by the caller, so the package stays free of any driver.
package promptlib
