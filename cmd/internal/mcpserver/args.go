package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// decodeToolArgs decodes a tool's arguments, which have passed its input schema, into v. JSON
// Schema counts 100.0 and 1e2 as integers, and encoding/json does not: such a number is
// written as the integer it is and decoded again, rather than refused.
func decodeToolArgs(args json.RawMessage, v any) error {
	err := json.Unmarshal(args, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		if whole, ok := wholeNumbers(args); ok {
			err = json.Unmarshal(whole, v)
		}
	}
	if err != nil {
		return badArgs(err)
	}
	return nil
}

// wholeNumbers rewrites the arguments' whole numbers written with a fraction or an exponent as
// plain integers; ok is false when there was none to rewrite.
func wholeNumbers(args json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil, false
	}
	changed := false
	for k, v := range m {
		n, isNum := v.(json.Number)
		if !isNum || !strings.ContainsAny(string(n), ".eE") {
			continue
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			continue // not whole, or beyond exact integers: the decode error stands
		}
		m[k], changed = json.Number(strconv.FormatInt(int64(f), 10)), true
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(m)
	return b, err == nil
}

// badArgs is arguments that passed the input schema but do not decode: a whole number too large
// for the field (an offset of 1e300). The message names the argument (the last part of the Go
// field path, which starts with embedded struct names).
func badArgs(err error) error {
	msg := "arguments do not match the tool's input schema"
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		msg = fmt.Sprintf("%s: %s is not a value this argument takes", field, te.Value)
		if strings.HasPrefix(te.Value, "number") {
			msg = fmt.Sprintf("%s: %s is out of range", field, te.Value)
		}
	}
	return &promptlib.Error{Code: promptlib.CodeInvalidInput, Message: msg, Err: err}
}
