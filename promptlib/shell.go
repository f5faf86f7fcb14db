package promptlib

import "strings"

// ShellWord quotes s for a POSIX shell when it needs it, so that a command a message names can
// be pasted as it is: a Prompteka library is in ".../Application Support/prompteka", which
// unquoted is two arguments.
func ShellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == '@' || r == ',' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Quoted is a command as a message names it: in single quotes ('mcpctl serve'), or in
// backquotes when it holds a quoted word of its own, which single quotes around it would break
// (`mcpctl serve --library '/a b'`).
func Quoted(command string) string {
	if strings.Contains(command, "'") {
		return "`" + command + "`"
	}
	return "'" + command + "'"
}
