package queue

import (
	"testing"
	"testing/synctest"
)

// The last waiter to leave a watch returns only once the goroutine dispatching its events has
// ended: no goroutine of a Writer outlives the writes that needed it. The dispatch is held at its
// end; in a synctest bubble, Wait returns once every goroutine is blocked, and the waiter's
// unsubscribe must then still be waiting for it.
func TestDirWatchUnsubscribeWaitsForDispatch(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		ending, release := make(chan struct{}), make(chan struct{})
		d := &dirWatch{dispatchEnd: func() {
			close(ending)
			<-release
		}}
		_, unsubscribe := d.subscribe(dir, "x", testLogger(t))
		if d.w == nil {
			unsubscribe()
			t.Skip("fsnotify unavailable here: no goroutine to own")
		}
		unsubscribed := make(chan struct{})
		go func() {
			unsubscribe()
			close(unsubscribed)
		}()
		<-ending
		synctest.Wait()
		select {
		case <-unsubscribed:
			t.Error("unsubscribe returned while the goroutine dispatching the watch's events still ran")
		default:
		}
		close(release)
		<-unsubscribed
	})
}
