package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// withdraw is step 6: no answer after every attempt. Renaming {id}.json away decides the race
// with the app: if the rename wins, the app never had the operation and it is definitely not
// applied; if the file is gone, the app took it and the outcome is pending. The call may also
// have ended first (ctx: the client cancelled it, or the server is stopping), so what it says
// of the wait is the time since published, not the attempts' sum.
func (w *Writer) withdraw(ctx context.Context, op promptlib.Operation, nudge <-chan struct{}, published time.Time) (Result, error) {
	waited := time.Since(published)
	src, dst := join(w.Dir, opName(op.ID)), join(w.Dir, withdrawnName(op.ID))
	err := w.FS.Rename(src, dst)
	switch {
	case err == nil:
		if rerr := w.FS.Remove(dst); rerr != nil {
			w.Log.Warn("queue: cannot delete a withdrawn operation; startup cleanup will", "operationId", op.ID, "err", rerr)
		}
		if serr := w.FS.SyncDir(w.Dir); serr != nil {
			w.Log.Warn("queue: cannot fsync the queue directory", "operationId", op.ID, "err", serr)
		}
		// A processor that reads files in place (as the app does) may have answered in the
		// instant before the rename; its answer wins.
		if r, _ := w.readResponse(join(w.Dir, responseName(op.ID))); r.Status != "" {
			return w.finish(op, r)
		}
		w.Log.Warn("queue: operation withdrawn", "operationId", op.ID, "waited", waited.String())
		if ctx.Err() != nil {
			e := promptlib.Errorf(promptlib.CodeTimeout, "the call ended before %s answered; the operation was withdrawn from the queue", w.answerer())
			e.Advice = "Nothing was applied; call the tool again to make the change."
			return Result{}, opError(op.ID, promptlib.NotApplied, e)
		}
		// The hint is the writer's (advise): it depends on who answers this queue.
		if w.alive != nil {
			return Result{}, opError(op.ID, promptlib.NotApplied, promptlib.Errorf(promptlib.CodeResponseTimeout,
				"mcpctl's queue processor did not answer within %s; the operation was withdrawn from the queue", waited.Round(time.Second)))
		}
		return Result{}, opError(op.ID, promptlib.NotApplied, promptlib.Errorf(promptlib.CodeResponseTimeout,
			"the app did not answer within %s and seems not to be running; the operation was withdrawn from the queue", waited.Round(time.Second)))
	case isNotExist(err):
		grace := w.Grace
		if ctx.Err() != nil {
			grace = 0
		}
		got, werr := w.waitResponse(context.WithoutCancel(ctx), op.ID, grace, nudge)
		var down *processorDown
		if errors.As(werr, &down) {
			return Result{}, opError(op.ID, promptlib.Unknown, stoppedError(
				"the processor took the operation, then stopped; outcome unknown until it runs again (get_operation_status tells)", down.reason))
		}
		if werr != nil {
			return Result{}, werr
		}
		if got != nil {
			return w.finish(op, *got)
		}
		w.Log.Warn("queue: operation accepted, outcome pending", "operationId", op.ID)
		if ctx.Err() != nil {
			e := promptlib.Errorf(promptlib.CodeTimeout,
				"the call ended before %s answered, after it had taken the operation: outcome pending; call get_operation_status with operationId %s",
				w.answerer(), op.ID)
			e.Advice = "Call get_operation_status with the operation id before retrying: the operation may yet be applied."
			return Result{}, opError(op.ID, promptlib.Unknown, e)
		}
		e := promptlib.Errorf(promptlib.CodeResponseTimeout,
			"%s accepted the operation but has not answered within %s: outcome pending; call get_operation_status with operationId %s",
			w.answerer(), time.Since(published).Round(100*time.Millisecond), op.ID)
		return Result{}, opError(op.ID, promptlib.Unknown, e)
	default:
		return Result{}, opError(op.ID, promptlib.Unknown, &promptlib.Error{Code: promptlib.CodeResponseTimeout,
			Message: fmt.Sprintf("%s did not answer and the operation could not be withdrawn: %v", w.answerer(), err), Err: err})
	}
}

// withdrawStopped ends a wait that mcpctl's processor cannot answer (it stopped, for reason): the
// operation is withdrawn if it is still pending (not applied), else the processor has it and
// the outcome is unknown until it runs again. A response that made it wins.
func (w *Writer) withdrawStopped(op promptlib.Operation, reason error) (Result, error) {
	src, dst := join(w.Dir, opName(op.ID)), join(w.Dir, withdrawnName(op.ID))
	err := w.FS.Rename(src, dst)
	if r, rerr := w.readResponse(join(w.Dir, responseName(op.ID))); rerr == nil {
		if err == nil {
			w.FS.Remove(dst)
		}
		return w.finish(op, r)
	}
	switch {
	case err == nil:
		if rerr := w.FS.Remove(dst); rerr != nil {
			w.Log.Warn("queue: cannot delete a withdrawn operation; startup cleanup will", "operationId", op.ID, "err", rerr)
		}
		w.Log.Warn("queue: processor stopped; operation withdrawn", "operationId", op.ID, "reason", reason)
		return Result{}, opError(op.ID, promptlib.NotApplied, stoppedError("the operation was withdrawn from the queue", reason))
	case isNotExist(err):
		w.Log.Warn("queue: processor stopped holding the operation", "operationId", op.ID, "reason", reason)
		return Result{}, opError(op.ID, promptlib.Unknown, stoppedError(
			"the processor took the operation, then stopped; outcome unknown until it runs again (get_operation_status tells)", reason))
	default:
		return Result{}, opError(op.ID, promptlib.Unknown, stoppedError(
			fmt.Sprintf("the operation could not be withdrawn (%v)", err), reason))
	}
}
