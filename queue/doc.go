// Package queue is both ends of the import queue, the only way mcpctl writes a library: the
// Writer drops an operation file and waits for the response, the Processor (the app's part, for
// standalone libraries) claims, applies and answers each operation exactly once.
//
// The queue directory (mode 0700, files 0600) holds:
//
//	{id}.json               a pending operation, published by a no-replace link from .{id}.tmp
//	.response-{id}.json     the answer, written atomically; the writer deletes it once read
//	.{id}.withdrawn         an operation the writer took back after getting no answer
//	.processor.lock         flock'ed by the one processor of the library
//	processing/{id}.json    claimed by the processor (a rename, so exactly one party wins)
//	processed/{id}.json     applied; pruned 7 days after it was filed (dated then)
//	failed/{id}.json        refused, with failed/{id}.error saying why; kept
//
// Exactly once rests on two things: the claim and the withdraw are renames of the same file, so
// the writer knows for certain whether the processor ever had an operation; and the processor
// records every answer in applied_ops in the transaction that applies it, so a crash at any
// point replays into the recorded answer rather than a second apply. (When the database itself
// fails, on a full disk say, the transaction rolls back and the answer, "not applied" with the
// cause, cannot be recorded; the processor files the operation in failed/ before it answers, so
// nothing is left to decide again.) Operation
// ids compare without case everywhere, applied_ops included (it records them in lower case).
//
// CheckDir is the one check of a queue directory, run by the Writer before every operation and
// reported by health_check. For a standalone library, RunElected reports the elected
// processor's state to a ProcessorStatus, and a Writer given its Alive (WithProcessor) fails at
// once with the real reason when the processor cannot run, instead of waiting for an answer.
package queue
