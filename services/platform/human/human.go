// Package human says quantities the way a person reads them. The bridge's
// console and Slack messages and the reviewer's incident reports say
// durations through it, so the same wait reads the same everywhere.
package human

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Duration says d the way a person would: "37 ms", "4.2 s", "2 min 5 s",
// "1 h 4 min", "2 d 3 h". Never 36.77277ms. A negative d reads as its size.
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d == 0:
		return "0 s"
	case d < time.Millisecond:
		return "< 1 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", int64(math.Round(float64(d)/float64(time.Millisecond))))
	case d < 10*time.Second:
		return strings.Replace(fmt.Sprintf("%.1f s", d.Seconds()), ".0 s", " s", 1)
	case d < time.Minute:
		return fmt.Sprintf("%d s", int64(math.Round(d.Seconds())))
	}
	// Rounded before the unit is chosen, so 59 min 59.6 s says "1 h".
	d = d.Round(time.Second)
	switch {
	case d < time.Hour:
		return pair(int64(d/time.Minute), "min", int64(d%time.Minute/time.Second), "s")
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		return pair(int64(d/time.Hour), "h", int64(d%time.Hour/time.Minute), "min")
	default:
		d = d.Round(time.Hour)
		return pair(int64(d/(24*time.Hour)), "d", int64(d%(24*time.Hour)/time.Hour), "h")
	}
}

// pair says "a ua b ub", or "a ua" when b is zero ("15 min", not "15 min 0 s").
func pair(a int64, ua string, b int64, ub string) string {
	if b == 0 {
		return fmt.Sprintf("%d %s", a, ua)
	}
	return fmt.Sprintf("%d %s %d %s", a, ua, b, ub)
}
