package promptlib

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestTimeAppendJSON holds the hand-written timestamp to the API's layout as time formats it,
// in and out of the four-digit years it writes directly.
func TestTimeAppendJSON(t *testing.T) {
	zone := time.FixedZone("minus", -5*3600-30*60)
	times := []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, 999_999_999).In(zone),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 9, 5, 7, 1_500_000, zone),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		times = append(times, time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)).In(zone))
	}
	for _, tm := range times {
		want := `"` + tm.UTC().Format(TimeLayout) + `"`
		if got := string(Time{tm}.AppendJSON(nil)); got != want {
			t.Errorf("%v: got %s, want %s", tm, got, want)
		}
	}
}
