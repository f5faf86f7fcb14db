// Package tui is `mcpctl console`: a bubbletea program that makes the whole system visible from
// one terminal: the library, the import queue, the live traffic of every running server, the
// gate's briefing for a project and tags, and content pipelines (DESIGN §11).
//
// A root Model routes keys to one model per screen, each in its own file. Every read of the
// library, the queue directory or the traffic files happens in a tea.Cmd that returns a typed
// message, and every live source (the library's change notifications, the queue directory, the
// traffic files) is a channel read by a command that takes one item and is issued again, so the
// UI never blocks. The console never writes the library; on the Queue screen it retries or
// discards failed operations, which only moves files in the queue directory.
package tui
