package gate

import (
	"reflect"
	"slices"
	"testing"
)

// A prompt filed beside the best match is sent on a weaker match than one filed elsewhere that
// matches as strongly: "Event Schemas" beside "Event Consumers", not "Event Tracking" from the
// analytics folder, for a task about consuming events.
func TestSelectArea(t *testing.T) {
	f := newFixture(t)
	f.prompt("Eng / Messaging", "Event Consumers", "Consumers read events once.\n\n## Events\n\nEvents are acknowledged after the write.\n")
	f.prompt("Eng / Messaging", "Event Schemas", "Schemas are versioned in the registry.\n")
	f.prompt("Eng / Analytics", "Event Tracking", "Track what users do in the product.\n")
	f.prompt("Eng / Messaging", "Unrelated", "Nothing in common.\n")
	f.prompt("Eng / Support", "Customer Calls", "Consumers of the API call support at times.\n")
	for _, topic := range []string{"Billing", "Logging", "Caching", "Testing", "Hiring", "Releases"} {
		f.prompt("Eng / Other", topic, "About "+topic+".\n")
	}
	ix := f.index(t, project(10_000, nil))
	tags := []string{"consumers", "events"}

	sel := Select(ix, tags, 10_000, 50, nil)
	if got, want := names(sel.Full), []string{"event-consumers", "event-schemas"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	xs := map[string]Explanation{}
	for _, x := range Explain(ix, tags, 10_000, 50, nil) {
		xs[x.Name] = x
	}
	schemas, tracking := xs["event-schemas"], xs["event-tracking"]
	// The two match "events" alike; only the folder sets them apart.
	if d := schemas.Relevance - tracking.Relevance; d > 0.05*schemas.Relevance || d < -0.05*schemas.Relevance {
		t.Fatalf("relevance %.2f and %.2f: the test needs them alike", schemas.Relevance, tracking.Relevance)
	}
	if !schemas.Area || tracking.Area || schemas.Floor >= tracking.Floor {
		t.Errorf("schemas area %v floor %.2f, tracking area %v floor %.2f: want only schemas in the area, with the lower floor",
			schemas.Area, schemas.Floor, tracking.Area, tracking.Floor)
	}
	if slices.Contains(names(sel.Full), "unrelated") {
		t.Error("a prompt of the area that matches nothing was sent")
	}
}
