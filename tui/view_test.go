package tui

import (
	"slices"
	"testing"
)

func TestShareWidths(t *testing.T) {
	for _, tc := range []struct {
		need  []int
		avail int
		want  []int
	}{
		{[]int{8, 14, 18, 9}, 60, []int{8, 14, 18, 20}}, // all fit; the rest to the last
		{[]int{8, 14, 18, 9}, 47, []int{8, 14, 16, 9}},  // the widest is cut, the others whole
		{[]int{30, 30}, 20, []int{10, 10}},
		{[]int{30, 30, 30}, 20, []int{8, 6, 6}},
		{[]int{5}, 0, []int{0}},
		{[]int{5, 5}, -3, []int{0, 0}},
	} {
		if got := shareWidths(tc.need, tc.avail); !slices.Equal(got, tc.want) {
			t.Errorf("shareWidths(%v, %d) = %v, want %v", tc.need, tc.avail, got, tc.want)
		}
	}
}
