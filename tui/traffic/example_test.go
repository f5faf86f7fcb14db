package traffic_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

func Example() {
	dir := traffic.Dir(filepath.Join(os.TempDir(), fmt.Sprintf("traffic-example-%d", os.Getpid())))
	defer os.RemoveAll(filepath.Dir(filepath.Dir(dir)))
	w, err := traffic.Open(dir, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Write(traffic.Event{TS: time.Now(), Session: "s1", Kind: traffic.KindResponse, Method: "tools/call",
		Name: "search_prompts", DurationMs: 3.2, BytesIn: 40, BytesOut: 900, Status: traffic.StatusOK})
	w.Close()
	events, _ := traffic.ReadFile(w.Path())
	fmt.Println(events[0].Method, events[0].Name, events[0].Status)
	// Output: tools/call search_prompts ok
}
