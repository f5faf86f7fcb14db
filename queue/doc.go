// Package queue is both ends of the import queue, the only way mcpctl writes a library: the
// Writer drops an operation file and waits for the response, the Processor (the app's part, for
// standalone libraries) claims, applies and answers each operation exactly once.
package queue
