//go:build !linux

package queue

// renameNoReplace renames oldpath to newpath, refusing an existing newpath. Without
// RENAME_NOREPLACE the check and the rename are two steps; the rename itself stays atomic, which
// is what the claim-versus-withdraw race needs.
func renameNoReplace(oldpath, newpath string) error { return renameIfAbsent(oldpath, newpath) }
