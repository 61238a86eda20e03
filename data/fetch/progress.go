package fetch

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// bar draws the progress of one download on a line of its own, redrawn
// with a carriage return at most every 200 ms: name, percentage and bar
// (when the size is known), bytes and rate.
type bar struct {
	w           io.Writer
	name        string
	done, total int64 // total < 0: unknown
	start, last time.Time
	from        int64 // bytes present before this transfer (a resume)
}

func newBar(w io.Writer, name string, have, total int64) *bar {
	now := time.Now()
	b := &bar{w: w, name: name, done: have, total: total, start: now, from: have}
	b.draw(now)
	return b
}

// Write counts n bytes received; it never fails.
func (b *bar) Write(p []byte) (int, error) {
	b.done += int64(len(p))
	if now := time.Now(); now.Sub(b.last) >= 200*time.Millisecond {
		b.draw(now)
	}
	return len(p), nil
}

// finish draws the final state and ends the line.
func (b *bar) finish(ok bool) {
	if b.w == nil {
		return
	}
	b.draw(time.Now())
	if ok {
		fmt.Fprintln(b.w)
	} else {
		fmt.Fprintln(b.w, " (interrupted)")
	}
}

func (b *bar) draw(now time.Time) {
	if b.w == nil {
		return
	}
	b.last = now
	rate := ""
	if dt := now.Sub(b.start).Seconds(); dt > 0.5 {
		rate = fmt.Sprintf(" %s/s", size(int64(float64(b.done-b.from)/dt)))
	}
	if b.total > 0 {
		const width = 24
		frac := min(float64(b.done)/float64(b.total), 1)
		fill := int(frac * width)
		fmt.Fprintf(b.w, "\r%s %3.0f%% [%s%s] %s/%s%s", b.name, 100*frac,
			strings.Repeat("=", fill), strings.Repeat(" ", width-fill), size(b.done), size(b.total), rate)
		return
	}
	fmt.Fprintf(b.w, "\r%s %s%s", b.name, size(b.done), rate)
}

// size formats a byte count in decimal units.
func size(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "kB", "MB", "GB"} {
		if v < 1000 {
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1000
	}
	return fmt.Sprintf("%.1f TB", v)
}
