package traffic

// Error is a traffic failure with the operation and the path it concerns.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return "traffic: " + e.Op + " " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
