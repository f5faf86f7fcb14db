package queue

import (
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// finish is step 5: the response arrived and parsed. It checks that the answer is about this
// operation's target, remembers the verdict for Status, deletes the response file and turns an
// error answer into a *promptlib.Error that says the operation was not applied.
func (w *Writer) finish(op promptlib.Operation, r promptlib.Response) (Result, error) {
	mismatch := matchResponse(op, r)
	if mismatch != nil {
		mismatch = fmt.Errorf("%s's response does not match the operation: %w", w.answerer(), mismatch)
	}
	w.remember(op.ID, answer{r, mismatch})
	path := join(w.Dir, responseName(op.ID))
	if err := w.FS.Remove(path); err != nil && !isNotExist(err) {
		w.Log.Warn("queue: cannot delete the response file; startup cleanup will", "operationId", op.ID, "err", err)
	}
	if mismatch != nil {
		return Result{}, opError(op.ID, promptlib.Unknown, &promptlib.Error{Code: promptlib.CodeResponseTimeout,
			Message: mismatch.Error(), Err: mismatch})
	}
	if r.OK() {
		return Result{OperationID: op.ID, Response: r}, nil
	}
	return Result{}, opError(op.ID, promptlib.NotApplied, &promptlib.Error{Code: responseCode(r), Message: r.Message})
}

// matchResponse checks the response's id against what the operation names: an update or delete
// answers for its target, a successful creation for a new id. A response that names another
// prompt or folder is not taken as this operation's answer.
func matchResponse(op promptlib.Operation, r promptlib.Response) error {
	if !r.OK() {
		return nil
	}
	v, err := promptlib.DecodeData(op)
	if err != nil {
		return nil // the writer's own operation; DecodeData failing here would be a bug caught elsewhere
	}
	target := promptlib.TargetID(v)
	switch {
	case target != "" && r.ID != nil && !strings.EqualFold(*r.ID, target):
		return fmt.Errorf("it names %s, not %s", *r.ID, target)
	case target == "" && r.ID == nil:
		return fmt.Errorf("a successful %s names no new id", op.Operation)
	}
	return nil
}

// responseCode maps the app's error code to the taxonomy; a code mcpctl does not know keeps a
// known class so that the model still gets a hint.
func responseCode(r promptlib.Response) promptlib.Code {
	if r.Error == nil {
		return promptlib.CodeDatabaseError
	}
	c := promptlib.Code(*r.Error)
	switch {
	case c == "VALIDATION_ERROR":
		return promptlib.CodeInvalidInput
	case c.Hint() == "":
		return promptlib.CodeDatabaseError
	}
	return c
}
